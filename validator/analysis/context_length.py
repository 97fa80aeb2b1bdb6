"""``--max-model-len`` against the model's ``context_length``: what vLLM refuses at start
(``ModelConfig``'s ``_get_and_verify_max_len``), for an argument list of the recipe
(``FLAG015``) and for a command of its guide (``GUIDE020``) alike."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from validator.analysis.arg_items import parse_int
from validator.analysis.context_extension import extended_length
from validator.analysis.recipe_data import get
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption

#: The variable that turns vLLM's refusal into a warning.
ALLOW_LONG = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"


def context_length(data: Any) -> int | None:
    """``model.context_length`` when it is a positive integer (the schema reports the rest)."""
    value = get(data, "model", "context_length")
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    return value


ALLOW_LONG_ON = ("1", "true")
"""The values that turn :data:`ALLOW_LONG` on: vLLM's ``envs.py`` reads it as
``os.environ.get(..., "0").strip().lower() in ("1", "true")`` in every release that has it,
so ``"yes"``, ``"on"``, ``"false"`` and ``"no"`` leave the refusal in place."""


def allows_long(env: Iterable[tuple[str, Any]]) -> bool:
    """Whether the ``(name, value)`` pairs of an environment turn :data:`ALLOW_LONG` on
    (:data:`ALLOW_LONG_ON`; a YAML ``true`` is printed ``true``)."""
    return any(name == ALLOW_LONG and str(value).strip().lower() in ALLOW_LONG_ON
               for name, value in env)


def above_context(parsed: ParsedArgs, limit: int) -> list[ParsedOption]:
    """The ``--max-model-len`` options of ``parsed`` above ``limit``; none when the same
    arguments extend the context far enough (rope scaling or ``max_position_embeddings``
    through ``--hf-overrides`` or ``--rope-scaling``:
    :func:`~validator.analysis.context_extension.extended_length`), or when what they
    extend it to cannot be read."""
    reach = extended_length(parsed, limit)
    if reach is None:
        return []
    out = []
    for opt in parsed.find("max_model_len"):
        n = parse_int(opt.value)
        if n is not None and n > reach:
            out.append(opt)
    return out


def too_long(value: str | None, limit: int) -> str:
    """The message of a ``--max-model-len`` ``value`` above ``limit``."""
    return (f"--max-model-len {value} is above the model's context_length {limit}: "
            "vLLM refuses to start")
