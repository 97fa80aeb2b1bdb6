"""The install-range judgement (``range_rejected`` issues) with its shared parses equals
judging every release of the range on its own parse.

:mod:`validator.analysis.release_range` parses a list once per group of releases that read
its option tokens alike and re-binds the options to each release's entries; the reference
here parses the list at every release with the real vendored registries and collects what
each release rejects. Lists are drawn (seeded) from real option names of old and new
releases, with abbreviations, underscore spellings, dotted keys, ``-O`` levels, switches
given values and choice values that some releases reject.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from packaging.version import Version

from validator.analysis.cli_plan import VersionPlan, plan_for, registry, versions
from validator.analysis.flag_values import plugged
from validator.analysis.release_range import _rejection, range_issues, release_runs
from validator.vllm_cli import argv
from validator.vllm_cli.data_source import CliRegistries
from validator.vllm_cli.parsed_args import Problem
from validator.vllm_cli.registry import CliRegistry

CLI = CliRegistries()

MINIMUMS = ("0.6.0", "0.9.0", "0.12.0")


def naive_rejections(tokens: Sequence[str],
                     plan: VersionPlan) -> dict[tuple[int, tuple[str, str]], list[str]]:
    """``(token index, (what, why)) -> releases`` from a fresh parse at each release."""
    low = plan.minimum
    assert low is not None
    parsed = argv.parse_args(tokens, low)
    by_plugin = plugged(parsed)
    accepted = [o for o in parsed.options if o.spec is not None and o.dest not in by_plugin
                and _rejection(o, (o.values, o.spec), low, {}) is None]
    out: dict[tuple[int, tuple[str, str]], list[str]] = {}
    for version in plan.checked:
        reg = registry(CLI, version, plan.family)
        later = argv.parse_args(tokens, reg)
        by_index = {o.index: o for o in later.options}
        ambiguous = {p.index: p.message for p in later.problems
                     if p.kind is Problem.AMBIGUOUS}
        for opt in accepted:
            new = by_index.get(opt.index)
            found = _rejection(opt, None if new is None else (new.values, new.spec), reg,
                               ambiguous)
            if found is not None:
                out.setdefault((opt.index, found), []).append(version)
    return out


def option_pool(regs: Sequence[CliRegistry]) -> list[tuple[str, tuple[str, ...]]]:
    """``(option string, candidate values)`` from the given releases: choice options with
    their choices (of any release) and a value no release takes, the rest with plain
    values."""
    pool: dict[str, set[str]] = {}
    for reg in regs:
        for opt in reg.long_options:
            spec = reg.lookup(opt)
            assert spec is not None
            values = pool.setdefault(opt, set())
            if spec.choices:
                values.update(spec.choices)
    return [(opt, (*sorted(values), "not-a-choice", "1", "auto"))
            for opt, values in sorted(pool.items())]


def draw(rng: random.Random, pool: Sequence[tuple[str, tuple[str, ...]]]) -> list[str]:
    """One argument list of 1-7 options, written in the ways recipes write them."""
    tokens: list[str] = []
    for _ in range(rng.randint(1, 7)):
        option, values = rng.choice(pool)
        way = rng.random()
        if way < 0.08:
            option = option[: max(4, len(option) - rng.randint(2, 6))]  # abbreviation
        elif way < 0.14:
            option = option.replace("-", "_").replace("__", "--", 1)
        elif way < 0.18:
            tokens.append(rng.choice(["-O3", "-O.mode=3", "-O=1"]))
            continue
        elif way < 0.22:
            tokens += [option + ".level", "2"]
            continue
        value = rng.choice(values)
        if rng.random() < 0.3:
            tokens.append(f"{option}={value}")
        elif rng.random() < 0.85:
            tokens += [option, value]
        else:
            tokens.append(option)
    return tokens


@pytest.mark.parametrize("minimum", MINIMUMS)
def test_shared_parses_judge_like_a_parse_per_release(minimum: str) -> None:
    plan = plan_for(CLI, Version(minimum))
    assert plan.minimum is not None and len(plan.checked) > 10
    step = max(1, len(plan.checked) // 6)
    regs = [plan.minimum, *(registry(CLI, v) for v in plan.checked[::step])]
    pool = option_pool(regs)
    rng = random.Random(f"release-range-{minimum}")
    judged = rejecting = 0
    for _ in range(120):
        tokens = draw(rng, pool)
        parsed = argv.parse_args(tokens, plan.minimum)
        issues = list(range_issues(tokens, parsed, plan, 0))
        expected = naive_rejections(tokens, plan)
        assert len(issues) == len(expected), (tokens, issues, expected)
        by_index: dict[int, list[str]] = {}
        for issue in issues:
            assert issue.code == "range_rejected"
            by_index.setdefault(issue.index, []).append(issue.message)
        for (index, (what, why)), found in expected.items():
            runs = release_runs(found, plan.checked)
            assert any(m.startswith(f"{what} is rejected by vLLM {runs}, ") and f"({why})" in m
                       for m in by_index.get(index, [])), (tokens, index, what, why, runs)
        judged += 1
        rejecting += bool(expected)
    # the draw reaches the interesting cases: some lists are rejected somewhere in range
    assert judged == 120 and rejecting >= 10, rejecting


def test_the_range_covers_the_vendored_releases() -> None:
    plan = plan_for(CLI, Version("0.9.0"))
    assert plan.checked == tuple(str(v) for v in versions(CLI) if v > Version("0.9.0"))
