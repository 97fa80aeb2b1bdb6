"""``FLAG031``: a ``--quantization`` method of another precision family than the variant's
``precision``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.analysis.recipe_data import get
from validator.analysis.release_range import LISTS_KEPT
from validator.analysis.rendered_commands import affected
from validator.findings import Severity
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS

if TYPE_CHECKING:
    from collections.abc import Iterator

    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.configuration import Token

_UNQUANTIZED = frozenset({"bf16", "fp16", "fp32"})
_INTEGER = frozenset({"int4", "int8", "int2/4/8"})
_INTEGER_METHODS = ("awq", "awq_marlin", "gptq", "gptq_marlin", "gptq_marlin_24", "marlin",
                    "moe_wna16")

#: ``--quantization`` method -> (the precisions it contradicts, what the method reads).
#: Only the clear-cut pairs: a checkpoint of such a precision carries a
#: ``quantization_config`` whose ``quant_method`` is another method (vLLM's
#: ``ModelConfig._verify_quantization`` raises on the mismatch; no override of vLLM's
#: quantization configs maps it), or an unquantized checkpoint has no config file for a
#: method that only loads pre-quantized weights (``get_quant_config`` raises). ``fp8`` and
#: ``ptpc_fp8`` quantize a BF16 checkpoint at load time; ``modelopt`` and ``modelopt_fp4``
#: both take a ModelOpt FP8 or NVFP4 checkpoint (its ``quant_algo`` selects the config);
#: ``fp4`` may be NVFP4 or MXFP4 and is judged only against integer and FP8 methods.
#: Methods not named here (``bitsandbytes``, ``experts_int8``, ``compressed-tensors``,
#: ``quark``, ``torchao``, ``fbgemm_fp8``, platform methods such as ``ascend``, vLLM-Omni's
#: ``int8``) are not judged.
REFUSED: dict[str, tuple[frozenset[str], str]] = {
    **{m: (_UNQUANTIZED | {"fp8", "nvfp4", "mxfp4", "mxfp8", "fp4"},
           "pre-quantized integer (int4/int8) weights") for m in _INTEGER_METHODS},
    **{m: (_INTEGER | {"nvfp4", "mxfp4", "mxfp8", "fp4"},
           "an FP8 checkpoint, or quantizes a BF16 one to FP8 at load time")
       for m in ("fp8", "ptpc_fp8")},
    **{m: (_UNQUANTIZED | _INTEGER | {"mxfp4", "mxfp8"},
           "a ModelOpt FP8 or NVFP4 checkpoint") for m in ("modelopt", "modelopt_fp4")},
    "mxfp4": (_INTEGER | {"fp8", "nvfp4"}, "an MXFP4 checkpoint"),
}


def _quantization(tokens: tuple[Token, ...]) -> tuple[str, Token] | None:
    """The last ``--quantization`` value of a process's tokens (argparse keeps the last)
    and the token that holds it."""
    found = None
    for i, token in enumerate(tokens):
        text = token.text
        if text.startswith("--quantization="):
            found = (text.partition("=")[2], token)
        elif text in ("--quantization", "-q") and i + 1 < len(tokens):
            found = (tokens[i + 1].text, tokens[i + 1])
    return found


METHODS_KEPT = LISTS_KEPT
"""How many processes' tokens :func:`_method` keeps the method of (as the parses of the
data source, :data:`~validator.analysis.release_range.LISTS_KEPT`)."""


def _method(ctx: Context, tokens: tuple[Token, ...]) -> tuple[str, Token] | None:
    """:func:`_quantization` of ``tokens``, once per run for each token tuple on the run's
    data source (a pure function of them: the history audit renders the same processes
    in every revision that holds a recipe's text)."""
    try:
        hash(tokens)
    except TypeError:  # a value of the wrong type: read as it is
        return _quantization(tokens)
    return ctx.cli.bounded("FLAG031:method", tokens, lambda: _quantization(tokens),
                           limit=METHODS_KEPT)


def _precision(doc: LoadedDocument, variant: str) -> str | None:
    value = get(doc.data, "variants", variant, "precision")
    return value if isinstance(value, str) else None


def _contradictions(doc: LoadedDocument, ctx: Context
                    ) -> Iterator[tuple[tuple[str, str, str, str], str]]:
    """(pointer, method, variant, precision) of every rendered process whose method
    contradicts its variant's precision, with the configuration's label."""
    from validator.render.cache import rendered_configurations

    renderings = rendered_configurations(doc, ctx)
    # the renderer shares one process object between the configurations that render it
    # alike (kept alive by ``renderings``, so an id names one): each is read once
    methods: dict[int, tuple[str, Token] | None] = {}
    precisions: dict[str, str | None] = {}
    for rendered in renderings:
        if not rendered.ok:
            continue
        variant = rendered.config.variant
        if variant not in precisions:
            precisions[variant] = _precision(doc, variant)
        precision = precisions[variant]
        if precision is None:
            continue
        for process in rendered.processes:
            key = id(process)
            if key not in methods:
                methods[key] = _method(ctx, process.tokens)
            found = methods[key]
            if found is None:
                continue
            method, token = found
            refused = REFUSED.get(method)
            if token.document != doc.path or refused is None or precision not in refused[0]:
                continue
            yield (token.pointer, method, variant, precision), rendered.config.label()


@rule("FLAG031", Severity.ERROR,
      "The --quantization method contradicts the variant's precision", reads=FLAG_READS)
def quantization_contradicts_precision(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A rendered ``vllm serve`` command passes a ``--quantization`` method of another
    precision family than its variant's ``precision``: an AWQ/GPTQ method on an FP8,
    NVFP4, MXFP4 or BF16 variant, ``fp8``/``ptpc_fp8`` on an int4/int8/NVFP4/MXFP4 one,
    ``modelopt``/``modelopt_fp4`` on a BF16, integer or MXFP4 one, ``mxfp4`` on an
    integer, FP8 or NVFP4 one. vLLM compares ``--quantization`` with the checkpoint's
    ``quantization_config.quant_method`` and refuses to start on a mismatch; on a
    checkpoint without one (BF16), a method that only loads pre-quantized weights finds
    no config file and fails too. Either the flag or the precision the site shows (and
    sizes VRAM by) is wrong. ``modelopt`` on an NVFP4 variant is accepted (vLLM maps a
    ModelOpt NVFP4 checkpoint to ``modelopt_fp4``), and so is an online method such as
    ``fp8`` on a BF16 variant. The flag is found wherever it is written (base args, a
    variant's ``extra_args``, a feature, a hardware or strategy override), judged on
    every configuration the site renders, and reported once per flag value and variant.

    Failing::

        variants:
          awq:
            model_id: acme/Small-9B-AWQ
            precision: int4
            extra_args: ["--quantization", "fp8"]

    Passing::

        variants:
          awq:
            model_id: acme/Small-9B-AWQ
            precision: int4
            extra_args: ["--quantization", "awq_marlin"]

    How to fix: drop ``--quantization`` (vLLM reads the method from the checkpoint) or
    use a method of the variant's precision; or correct the variant's ``precision``."""
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for key, label in _contradictions(doc, ctx):
        grouped.setdefault(key, []).append(label)
    out: list[Hit] = []
    for (pointer, method, variant, precision), labels in grouped.items():
        why = ("a checkpoint of that precision has no quantization config for it (vLLM "
               "finds no config file and fails to load)" if precision in _UNQUANTIZED else
               "vLLM refuses to start when it does not match the checkpoint's "
               "quantization_config.quant_method")
        out.append(Hit(
            pointer,
            f"`--quantization {method}` on variant `{variant}` (precision {precision}): "
            f"the method reads {REFUSED[method][1]}; {why} ({affected(labels)})",
            f"drop `--quantization` (vLLM reads the method from the checkpoint) or use a "
            f"method of {precision}; or correct variants.{variant}.precision"))
    return out
