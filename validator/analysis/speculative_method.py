"""The ``method`` and the top-level keys of ``--speculative-config`` against what each
release of a plan accepts (:mod:`validator.vllm_cli.speculative_methods`): issues
``spec_method`` / ``spec_key`` (the minimum rejects it), ``unreleased_only`` (no vendored
release accepts the method and the recipe installs unreleased code) and
``range_rejected`` (a later release of the install range rejects it). A key is judged only
where the release refuses unknown keys (vLLM 0.8.x to 0.9.0, and 0.16.0 on): the releases
in between ignore them, and so does this check."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan, required_vllm, unverifiable_by, versions
from validator.analysis.flag_values import FlagIssue
from validator.analysis.option_hints import close_matches, nearest_hint
from validator.analysis.release_range import release_runs
from validator.vllm_cli.parsed_args import ParsedArgs, key_setter
from validator.vllm_cli.speculative_methods import accepted_methods, known_keys, strict_keys

OPTION = "--speculative-config"
DEST = "speculative_config"


def method_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """The issues of the ``method`` vLLM ends up with for ``--speculative-config`` (the
    last whole JSON value, or the merged dotted keys), on the token that sets it."""
    low = plan.minimum
    value, sources = parsed.json_value(DEST)
    method = value.get("method") if value else None
    if plan.family != VLLM or low is None or not isinstance(method, str):
        return
    source = key_setter(sources, "method")
    if source is None:
        return
    at = source.value_at  # the method is in the value, the whole JSON's or the dotted key's
    here = accepted_methods(low.version)
    if here is not None and method not in here:
        yield from _at_minimum(method, plan, at, here)
        return
    found = [v for v in plan.checked if (ok := accepted_methods(v)) is not None
             and method not in ok]
    if found:
        yield FlagIssue("range_rejected", at, f"speculative method `{method}` (`{OPTION}`) is "
                        f"rejected by "
                        f"{plan.product} {release_runs(found, plan.checked)}, {len(found)} "
                        f"release{'s' if len(found) != 1 else ''} (not a speculative method "
                        f"there), inside the install range {plan.range_label} the recipe "
                        "claims", nearest_hint(method, sorted(accepted_methods(found[0]) or ()))
                        or "pin an install path below the first release that rejects it",
                        on_value=True)


def _at_minimum(method: str, plan: VersionPlan, at: int,
                here: frozenset[str]) -> Iterator[FlagIssue]:
    assert plan.minimum is not None
    low = plan.minimum.version
    window = [str(v) for v in versions(plan.cli)]
    accepting = [v for v in window if method in (accepted_methods(v) or ())]
    hint = nearest_hint(method, sorted(here))
    later = [v for v in accepting if Version(v) > Version(low)]
    what = f"speculative method `{method}` (`{OPTION}`)"
    if later and not [v for v in accepting if Version(v) < Version(low)]:
        yield FlagIssue("spec_method", at, f"{what} is accepted only from {plan.product} "
                        f"{later[0]}, but {plan.short_of()}",
                        plan.raise_to(required_vllm(plan.cli, later[0])), on_value=True,
                        floor=True)
        return
    near = bool(close_matches(method, tuple(sorted(here)), n=1, cutoff=0.6))
    if not accepting and plan.launch_day:
        return  # a method no release has yet: unverifiable on launch day
    if not accepting and plan.unreleased and not near:
        yield FlagIssue("unreleased_only", at, f"{what} is a speculative method no vendored "
                        f"{plan.product} release accepts; " + unverifiable_by(
                            plan, "a nightly, source or launch-image install"),
                        hint, on_value=True)
        return
    span = f" (accepted by {accepting[0]} to {accepting[-1]})" if accepting else ""
    yield FlagIssue("spec_method", at, f"{what} is not a speculative method {plan.product} "
                    f"{low} accepts{span}; vLLM refuses to start",
                    hint or f"one of: {', '.join(sorted(here))}", on_value=True)


def key_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """The issues of each top-level key of ``--speculative-config`` that the plan's
    minimum, or a release of its install range, refuses: on the value token of a whole
    JSON value, on the option token of a dotted key (the key is in its name)."""
    low = plan.minimum
    value, sources = parsed.json_value(DEST)
    if plan.family != VLLM or low is None or not value or not sources:
        return
    for key in value:
        source = next((o for o in reversed(sources) if (o.keys[0] if o.keys else None) == key
                       or (not o.keys)), None)
        if source is None:
            continue
        dotted = bool(source.keys)
        at = source.index if dotted or not source.value_indexes else source.value_indexes[-1]
        yield from _key_issues(key, plan, at, not dotted)


def _key_issues(key: str, plan: VersionPlan, at: int, on_value: bool) -> Iterator[FlagIssue]:
    assert plan.minimum is not None
    low = plan.minimum.version
    what = f"key `{key}` of `{OPTION}`"
    here = strict_keys(low)
    if here is not None and key not in here:
        window = [str(v) for v in versions(plan.cli)]
        taking = [v for v in window if key in known_keys(v)]
        hint = nearest_hint(key, sorted(here))
        if taking and Version(taking[0]) > Version(low):
            yield FlagIssue("spec_key", at, f"{what} is taken only from {plan.product} "
                            f"{taking[0]}, but {plan.short_of()}",
                            plan.raise_to(required_vllm(plan.cli, taking[0])),
                            on_value=on_value, floor=True)
            return
        yield FlagIssue("spec_key", at, f"{what} is no field of the speculative config of "
                        f"{plan.product} {low}, which refuses unknown keys; vLLM does not "
                        "start", hint or "drop the key", on_value=on_value)
        return
    found = [v for v in plan.checked if (ok := strict_keys(v)) is not None and key not in ok]
    if found:
        yield FlagIssue("range_rejected", at, f"{what} is rejected by {plan.product} "
                        f"{release_runs(found, plan.checked)}, {len(found)} release"
                        f"{'s' if len(found) != 1 else ''} (no field there, and unknown keys "
                        f"are refused), inside the install range {plan.range_label} the "
                        "recipe claims", nearest_hint(key, sorted(strict_keys(found[0]) or ()))
                        or "drop the key, or pin an install path below the first release "
                        "that rejects it", on_value=on_value)
