"""What a context file (a strategy, a kv-store deployment, the taxonomy's KV offload
options) adds to the commands of the recipes that render with it, by pointer: its
``vllm serve`` argument lists, its environment maps and the parallel-size flags a
strategy names (``parallel_flag``, also per ``prefill``/``decode`` role).

The ``FLAG`` checks of a context file (:mod:`validator.rules.flag.context_files`) read the
argument lists; ``REF018`` (:mod:`validator.rules.ref.shell_code`) reads all three, on the
file itself, and leaves a value judged there out of each recipe's own findings.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.arg_layers import PARALLEL_FLAGS, STRATEGY_ARG_LISTS, ArgLayer, list_tokens
from validator.analysis.recipe_data import as_dict, get
from validator.context import Context
from validator.render import jsval
from validator.sourcemap import join_pointer

KV_STORE_ARG_LISTS = ("/vllm/vllm_args", "/pd/prefill/args", "/pd/decode/args")
"""Where a kv-store deployment keeps the arguments the site adds to ``vllm serve``."""
ENV_MAPS = {"strategy": ("/env", "/prefill/env", "/decode/env"),
            "kv_store": ("/vllm/env",)}
"""Where a strategy and a kv-store deployment keep the environment the site prints as
``-e KEY=VALUE`` (a KV offload option: ``kv_offload.<key>.env``)."""
ROUTER_WORDS = {
    "kv_store": (("/router/policy", "the router policy", "vllm-router --policy POLICY"),
                 ("/vllm/port", "the vLLM port",
                  "--backend-url http://$VLLM_INSTANCE_N:PORT")),
    "strategy": (("/router/policy", "the router policy", "vllm-router --policy POLICY"),)}
"""Where a kv-store deployment and a strategy keep a value the site splices unquoted into
the ``vllm-router`` command it builds: ``(pointer, what it is, the line it lands in)``."""


def _at(data: Any, pointer: str) -> Any:
    return get(data, *pointer.strip("/").split("/"))


def context_env_maps(kind: str, data: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, mapping)`` of each environment map of a context document of ``kind``."""
    if kind == "taxonomy":
        for key, option in as_dict(get(data, "kv_offload")).items():
            yield (join_pointer(join_pointer("/kv_offload", key), "env"),
                   as_dict(get(option, "env")))
        return
    for pointer in ENV_MAPS.get(kind, ()):
        yield pointer, as_dict(_at(data, pointer))


def context_arg_lists(kind: str, data: Any) -> Iterator[ArgLayer]:
    """The argument lists of a context document of ``kind`` (``"taxonomy"``,
    ``"strategy"``, ``"kv_store"``): lists of strings and numbers only (another shape is
    the schema's to report)."""
    if kind == "taxonomy":
        for key, option in as_dict(get(data, "kv_offload")).items():
            pointer = join_pointer(join_pointer("/kv_offload", key), "args")
            yield from _layer(pointer, get(option, "args"), f"kv_offload.{key}.args")
        return
    pointers = STRATEGY_ARG_LISTS if kind == "strategy" else KV_STORE_ARG_LISTS \
        if kind == "kv_store" else ()
    for pointer in pointers:
        yield from _layer(pointer, _at(data, pointer), pointer[1:].replace("/", "."))


def context_flags(kind: str, data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each parallel-size flag a strategy names (a string: another
    shape is the schema's to report)."""
    if kind != "strategy":
        return
    for pointer in PARALLEL_FLAGS:
        value = _at(data, pointer)
        if isinstance(value, str) and value:
            yield pointer, value


def context_router_words(kind: str, data: Any) -> Iterator[tuple[str, str, str, str]]:
    """``(pointer, text, what, line)`` of each :data:`ROUTER_WORDS` value of a context
    document of ``kind`` that is a string or a number (another shape is the schema's to
    report; the site prints its default when the value is absent or empty)."""
    for pointer, what, line in ROUTER_WORDS.get(kind, ()):
        value = _at(data, pointer)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and value:
            yield pointer, jsval.js_str(value), what, line


HEREDOC_CONFIGS = {"kv_store": ("/mooncake_vllm_config/template",
                                 "/mooncake_store_config/config")}
"""Where a kv-store deployment keeps the Mooncake configuration the page writes to a file
through an unquoted heredoc (the corpus files' own comments say so; the site's
``command-synthesis.js`` passes it on as data, the page code writing it is not in it)."""


def context_heredoc_values(kind: str, data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each key and string value of a :data:`HEREDOC_CONFIGS`
    mapping of a context document of ``kind``."""
    for pointer in HEREDOC_CONFIGS.get(kind, ()):
        for key, value in as_dict(_at(data, pointer)).items():
            at = join_pointer(pointer, key)
            if isinstance(key, str):
                yield at, key
            if isinstance(value, str):
                yield at, value


def _layer(pointer: str, value: Any, label: str) -> Iterator[ArgLayer]:
    tokens = list_tokens(value)
    if tokens is not None:
        yield ArgLayer(pointer, tokens, label)


def context_kind(ctx: Context, path: str) -> str | None:
    """``"taxonomy"``, ``"strategy"`` or ``"kv_store"`` for the context document at
    ``path`` of ``ctx`` (``None``: not one of them). The caller reads every context part
    (a rule declaring ``CONTEXT_FILES``)."""
    if ctx.taxonomy is not None and ctx.taxonomy.path == path:
        return "taxonomy"
    if any(d.path == path for d in ctx.strategies.values()):
        return "strategy"
    if any(d.path == path for d in ctx.kv_stores.values()):
        return "kv_store"
    return None
