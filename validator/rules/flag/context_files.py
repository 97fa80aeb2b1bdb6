"""The ``vllm serve`` argument lists of the context files, judged on the files themselves.

A strategy (``vllm_args``, ``prefill``/``decode.vllm_args``), a kv-store deployment
(``vllm.vllm_args``, ``pd.prefill``/``pd.decode.args``) and the taxonomy's KV offload
options (``kv_offload.<key>.args``) put arguments into the commands of every recipe that
renders with them. Each list is checked once, by the same ``FLAG`` engine as a recipe's
own lists (:func:`validator.rules.flag.facts.judge_list`), against the vLLM CLI from the
file's own ``min_vllm_version`` (else the newest vendored release) up to the newest
release, and reported at the file's own line. A recipe using the list keeps only what its
own release range adds (:func:`validator.rules.flag.facts.add_issue_hits`).

Every value of such a file that the site prints unquoted -- an argument item no flag
takes, a flag item, an environment variable's name and value (``-e KEY=VALUE`` of
``docker run``) -- is read with the shell model of ``REF018``
(:func:`validator.rules.ref.shell_code.context_shell_hits`) and reported on the file at its
line, also for the KV offload options, whose configurations no recipe's rendering holds.

The whole commands a context file shows verbatim -- a kv-store deployment's companion
commands, the install snippets of ``platforms.yaml`` -- and the links of ``platforms.yaml``
are judged as a recipe's are (:mod:`validator.rules.ref.shown_commands`: ``REF022``,
``REF023``, ``REF024``), on the file at its line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from validator.analysis.arg_layers import STRATEGY_ARG_LISTS, ArgLayer, list_tokens
from validator.analysis.recipe_data import as_dict, get
from validator.rules.api import Hit, Rule
from validator.rules.flag.facts import add_issue_hits, context_list_issues
from validator.rules.ref.shell_code import context_shell_hits
from validator.rules.ref.shown_commands import shown_command_hits
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.findings import Finding
    from validator.load import LoadedDocument

KV_STORE_ARG_LISTS = ("/vllm/vllm_args", "/pd/prefill/args", "/pd/decode/args")
"""Where a kv-store deployment keeps the arguments the site adds to ``vllm serve``."""
ENV_MAPS = {"strategy": ("/env", "/prefill/env", "/decode/env"),
            "kv_store": ("/vllm/env",)}
"""Where a strategy and a kv-store deployment keep the environment the site prints as
``-e KEY=VALUE`` (a KV offload option: ``kv_offload.<key>.env``)."""


def context_env_maps(kind: str, data: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, mapping)`` of each environment map of a context document of ``kind``."""
    if kind == "taxonomy":
        for key, option in as_dict(get(data, "kv_offload")).items():
            yield (join_pointer(join_pointer("/kv_offload", key), "env"),
                   as_dict(get(option, "env")))
        return
    for pointer in ENV_MAPS.get(kind, ()):
        yield pointer, as_dict(get(data, *pointer.strip("/").split("/")))


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
        yield from _layer(pointer, get(data, *pointer.strip("/").split("/")),
                          pointer[1:].replace("/", "."))


def _layer(pointer: str, value: Any, label: str) -> Iterator[ArgLayer]:
    tokens = list_tokens(value)
    if tokens is not None:
        yield ArgLayer(pointer, tokens, label)


def context_arg_hits(doc: LoadedDocument, kind: str) -> dict[str, list[Hit]]:
    """Rule id -> hits of every argument list of the context document ``doc``. The
    caller makes the run's CLI registries and release window current."""
    hits: dict[str, list[Hit]] = {}
    if not doc.ok:
        return hits
    for layer in context_arg_lists(kind, doc.data):
        _parsed, tokens, where, issues, joined = context_list_issues(doc, layer)
        for rule_id, found in joined.items():
            hits.setdefault(rule_id, []).extend(found)
        add_issue_hits(doc, layer, tokens, where, issues, hits)
    shell = context_shell_hits(doc.path, list(context_arg_lists(kind, doc.data)),
                               list(context_env_maps(kind, doc.data)))
    if shell:
        hits.setdefault("REF018", []).extend(shell)
    for rule_id, found in shown_command_hits(kind, doc.data).items():
        hits.setdefault(rule_id, []).extend(found)
    return hits


def context_arg_findings(doc: LoadedDocument, kind: str, rules: Mapping[str, Rule], *,
                         strict: bool) -> list[Finding]:
    """:func:`context_arg_hits` as findings of those of ``rules`` (id -> rule: the run's
    selection) that found them, before the run's policy."""
    return [doc.finding(rules[rule_id], hit, strict=strict)
            for rule_id, hits in context_arg_hits(doc, kind).items() if rule_id in rules
            for hit in hits]
