"""How far an argument list's ``--hf-overrides``/``--rope-scaling`` extend the context
vLLM derives (``ModelConfig``'s ``_get_and_verify_max_len``), for ``FLAG015`` and
``GUIDE020``: an override that extends nothing (``{"use_sliding_window": false}``, a
misspelt ``rope_scalling``) or too little does not make a larger ``--max-model-len``
start.

vLLM derives the length from the model config's ``max_position_embeddings`` (which the
override may set) and, for a ``rope_scaling`` whose type is not ``su``/``longrope``/
``llama3``, multiplies it by ``factor`` (a ``yarn`` scaling multiplies its
``original_max_position_embeddings`` instead). Whatever cannot be read with certainty (a
value that is no JSON object or holds a shell reference, a rope type vLLM treats apart,
a ``factor`` or original length that is no number, per-layer-type rope parameters) makes
the extension unknown: the caller then stays silent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.vllm_cli.parsed_args import ParsedArgs

ROPE_KEYS = ("rope_scaling", "rope_parameters")
"""The keys of a Hugging Face config that hold its rope scaling."""

APART = frozenset({"su", "longrope", "llama3"})
"""Rope types whose ``factor`` vLLM does not apply to the derived length."""


def _number(value: Any) -> float | None:
    """``value`` when it is a number (not a bool), else ``None``."""
    return None if isinstance(value, bool) or not isinstance(value, int | float) else value


def _configs(value: Any) -> Iterator[dict[str, Any]]:
    """The objects of a JSON value that hold a rope scaling or ``max_position_embeddings``
    (the top level, or a nested sub-config such as ``text_config``)."""
    if isinstance(value, dict):
        if "max_position_embeddings" in value or any(k in value for k in ROPE_KEYS):
            yield value
        for child in value.values():
            yield from _configs(child)


def _scaled(base: float, rope: Any) -> float | None:
    """The length ``rope`` (a config's rope scaling) extends ``base`` to, or ``None``
    when it cannot be read with certainty."""
    if rope is None:
        return base
    if not isinstance(rope, dict):
        return None
    kind = rope.get("rope_type", rope.get("type"))
    if not isinstance(kind, str) or kind in APART:
        return None
    factor = _number(rope.get("factor", 1.0))
    if factor is None:
        return None
    if kind == "yarn":
        original = _number(rope.get("original_max_position_embeddings"))
        return None if original is None else original * factor
    return base * factor


def _extension(config: dict[str, Any], limit: int) -> float | None:
    """The length one config object of an override extends the context to (``limit``,
    the model's ``context_length``, when it sets no length), or ``None`` (unknown)."""
    given = config.get("max_position_embeddings")
    base = limit if given is None else _number(given)
    if base is None:
        return None
    ropes = [config[k] for k in ROPE_KEYS if k in config]
    found = [_scaled(base, rope) for rope in ropes] or [base]
    return None if None in found else max(f for f in found if f is not None)


def extended_length(parsed: ParsedArgs, limit: int) -> float | None:
    """The longest context the arguments' ``--hf-overrides`` and ``--rope-scaling`` make
    vLLM derive from a model whose ``context_length`` is ``limit``: ``limit`` itself when
    they extend nothing (or are absent), ``None`` when their effect cannot be read (the
    caller stays silent)."""
    longest: float = limit
    for dest in ("hf_overrides", "rope_scaling"):
        if not parsed.has(dest):
            continue
        value, _ = parsed.json_value(dest)
        if value is None:
            return None
        configs = list(_configs(value)) if dest == "hf_overrides" else [{"rope_scaling": value}]
        for config in configs:
            length = _extension(config, limit)
            if length is None:
                return None
            longest = max(longest, length)
    return longest
