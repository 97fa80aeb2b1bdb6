"""Values of ``--speculative-config`` each valid alone that ``SpeculativeConfig`` refuses
together (:mod:`validator.vllm_cli.speculative_methods`, read from each release's
``__post_init__``): a method that needs a draft ``model`` given ``num_speculative_tokens``
without one ("num_speculative_tokens was provided but without speculative model"), and
``prompt_lookup_min`` above ``prompt_lookup_max`` for an n-gram method. Issues
``spec_refused`` (the minimum refuses it) and ``range_rejected`` (a later release of the
install range does)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.cli_plan import VLLM, VersionPlan
from validator.analysis.flag_values import FlagIssue
from validator.analysis.release_range import release_runs
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption, key_setter
from validator.vllm_cli.speculative_methods import (
    accepted_methods,
    lookup_order_methods,
    methods_without_model,
)

OPTION = "--speculative-config"
DEST = "speculative_config"


def refusal_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """The issues of the speculative config vLLM ends up with (the last whole JSON value,
    or the merged dotted keys) that the plan's releases refuse as a whole."""
    low = plan.minimum
    value, sources = parsed.json_value(DEST)
    if plan.family != VLLM or low is None or not value or not sources:
        return
    method = value.get("method")
    if not isinstance(method, str) or method not in (accepted_methods(low.version) or {method}):
        return  # no method, or one the minimum does not know (FLAG030)
    if value.get("model") is None and value.get("num_speculative_tokens") is not None:
        refusing = [v for v in (low.version, *plan.checked)
                    if (taken := methods_without_model(v)) is not None and method not in taken]
        if refusing:
            yield _issue(plan, refusing, _at(sources, "method"),
                         f"speculative method `{method}` (`{OPTION}`) needs a draft `model`: "
                         "without one, SpeculativeConfig refuses it (\"num_speculative_tokens "
                         "was provided but without speculative model\")",
                         "add the draft checkpoint as \"model\", or use a method that needs "
                         "none (an MTP method of the model, `ngram`, `suffix`)")
    low_n, high_n = _int(value.get("prompt_lookup_min")), _int(value.get("prompt_lookup_max"))
    if low_n is not None and high_n is not None and low_n > high_n:
        refusing = [v for v in (low.version, *plan.checked) if method in lookup_order_methods(v)]
        if refusing:
            yield _issue(plan, refusing, _at(sources, "prompt_lookup_min"),
                         f"`prompt_lookup_min` {low_n} is above `prompt_lookup_max` {high_n} "
                         f"(`{OPTION}`, method `{method}`): SpeculativeConfig refuses it "
                         "(\"prompt_lookup_min must be <= prompt_lookup_max\")",
                         "make prompt_lookup_min at most prompt_lookup_max")


def _issue(plan: VersionPlan, refusing: list[str], at: int, what: str, hint: str) -> FlagIssue:
    """At the minimum: ``spec_refused``; only later releases of the range: ``range_rejected``."""
    assert plan.minimum is not None
    span = [plan.minimum.version, *plan.checked]
    runs = release_runs(refusing, span)
    if refusing[0] == plan.minimum.version:
        return FlagIssue("spec_refused", at, f"{what} in {plan.product} {runs}; vLLM does not "
                         "start", hint, on_value=True)
    return FlagIssue("range_rejected", at, f"{what} in {plan.product} {runs}, inside the "
                     f"install range {plan.range_label} the recipe claims", hint, on_value=True)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _at(sources: list[ParsedOption], key: str) -> int:
    """The token that sets ``key`` (:func:`key_setter`), else the last source's value."""
    return (key_setter(sources, key) or sources[-1]).value_at
