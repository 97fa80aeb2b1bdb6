"""Fuzzing the in-process checker with mutated real recipes (issue 16, item 11).

Every run mutates the recipes of the corpus at ``main`` ``RECIPE_CHECK_FUZZ_CASES`` times
(default: the first ``SAMPLE_CASES`` mutants of the seed; ``-m full_sweep`` runs the whole
sweep of ``FULL_CASES``, of which the sample is the start): line mutations of the bytes
(delete, duplicate, swap, truncate, re-indent, hostile scalars and YAML syntax), YAML-tree
mutations (a node replaced by a huge number, another type, control and bidi characters,
deep nesting; keys deleted, added, renamed) and checks each mutant with
:class:`~validator.checker.Checker`: no exception may escape and no rule may crash
(``internal_errors`` stays empty). The seed is printed. It is ``DEFAULT_SEED`` unless
``RECIPE_CHECK_FUZZ_SEED`` is set (a number replays that run; ``random`` draws a new
seed), so CI judges one fixed set of mutants and exploring new ones is a local choice;
every crash found that way is fixed as a class, and its mutant kept by the seeds of
``test_fuzz_seeds_that_found_crashes``.
"""

from __future__ import annotations

import copy
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from validator.checker import Checker, RunResult
from validator.context import Context, Settings, build_context
from validator.rule_index import check_rules
from validator.schema import SchemaValidator
from validator.source.provenance import Provenance
from validator.source.tree import LocalTree

pytestmark = pytest.mark.corpus

SEED_ENV = "RECIPE_CHECK_FUZZ_SEED"
CASES_ENV = "RECIPE_CHECK_FUZZ_CASES"
FULL_CASES = 2000
SAMPLE_CASES = 500
"""The default run checks the first 500 mutants of the seed. Measured with coverage.py
(branch coverage, default seed, this corpus): they take 10,089 of the 10,441 branch arcs
of ``validator/`` that all 2,000 take (96.6 %; 6,446 of 6,650 lines), and 3,009 of the
3,046 arcs of ``validator/render/`` (98.8 %); the rest is left to ``-m full_sweep``. A
renderer or loader crash on the hostile values every mutant kind draws (huge integers,
control characters, deep nesting) is met early: the removed OverflowError guard of the
YAML number check fails both at case 20."""
DEFAULT_SEED = 20261201


def fuzz_seed(setting: str) -> int:
    """The seed of this run: ``DEFAULT_SEED`` when unset, a fresh one for ``random``."""
    if setting.strip().lower() == "random":
        return random.SystemRandom().randrange(2 ** 32)
    return int(setting) if setting.strip() else DEFAULT_SEED

HUGE = 10 ** 4000  # what PyYAML can still write; longer ones come from the text below
OVER_LIMIT = "HUGEINTEGEROVERPYTHONLIMIT"
"""Written into the YAML tree, replaced by a 5,000-digit integer in the dumped text."""
SCALAR_TEXT = ["9" * 5000, "-" + "9" * 5000, "1e400", "-1", "0", ".inf", "-.inf", ".nan",
               "~", "null", "true", "0x" + "f" * 64, "0o777", "'\u202eevil'", '"\\x1b[2J"',
               '"\\u2028"', "''", "[", "]", "{a: [", "&a [*a, *a]", "*undefined",
               "!!binary AAAA", "!!python/object/apply:os.system ['true']", "!!int 'x'",
               "? complex", "|", ">-", "- item", "'" + "a" * 20000 + "'", "--omni",
               "0.1", "2020-01-01", "\"\\0\"", "{}", "[]", "[[[[[[[[]]]]]]]]"]
HOSTILE_VALUES: list[Any] = [
    HUGE, -HUGE, OVER_LIMIT, 10 ** 400, -1, 0, 2 ** 63, 1e308, float("inf"), float("-inf"),
    float("nan"),
    None, True, False, "", "\x1b[31mred\x07", "\u202eevil\u202c", "\u2028::error::x",
    "\r::error::x", "a" * 5000, "9" * 5000, "nightly", "--max-model-len 9" + "9" * 400,
    [], {}, [None], [1, [2, [3, [4]]]], {"": None}, {"-1": -1}, ["--omni"],
]


def _deep(n: int) -> Any:
    value: Any = "leaf"
    for _ in range(n):
        value = {"k": [value]}
    return value


# --- line mutations ------------------------------------------------------------------------

def line_mutation(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    op = rng.randrange(8)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2 and len(lines) > 1:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        return text[: rng.randrange(len(text) + 1)]
    elif op == 4:
        lines[i] = " " * rng.choice([1, 2, 3, 7, 40]) + lines[i] if rng.random() < 0.5 \
            else lines[i].lstrip() + ("\t" if rng.random() < 0.3 else "")
    elif op == 5 and ":" in lines[i]:
        key = lines[i].split(":", 1)[0]
        lines[i] = f"{key}: {rng.choice(SCALAR_TEXT)}"
    elif op == 6:
        indent = " " * rng.choice([0, 2, 4, 6])
        lines.insert(i, indent + rng.choice([f"x: {s}" for s in SCALAR_TEXT]
                                            + ["- " + s for s in SCALAR_TEXT]))
    else:
        lines[i] = lines[i].replace(rng.choice(["-", ":", " ", "'", '"', "a", "1"]),
                                    rng.choice(["", "::", "\t", "\x1b", "\u202e", "9" * 50]))
    return "\n".join(lines)


# --- YAML-tree mutations -------------------------------------------------------------------

def _nodes(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _nodes(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _nodes(v, (*path, i))
    return out


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        data = data[p]
    return data


def _confuse(value: Any, rng: random.Random) -> Any:
    """The same content as another type."""
    if isinstance(value, dict):
        return list(value.values()) if rng.random() < 0.5 else list(value.items())
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)} if rng.random() < 0.5 else \
            (value[0] if value else None)
    if isinstance(value, str):
        return rng.choice([[value], {value: value}, len(value), value.encode().hex()])
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return rng.choice([str(value), [value], -value if value == value else value, True])
    return rng.choice(HOSTILE_VALUES)


def tree_mutation(data: Any, rng: random.Random) -> Any:
    nodes = _nodes(data)
    path = rng.choice(nodes)
    op = rng.randrange(6)
    new: Any
    if not path:
        return rng.choice([_confuse(data, rng), rng.choice(HOSTILE_VALUES), _deep(60)])
    parent, key = _get(data, path[:-1]), path[-1]
    if op == 0:
        new = rng.choice(HOSTILE_VALUES)
    elif op == 1:
        new = _confuse(parent[key], rng)
    elif op == 2:
        new = _deep(rng.choice([5, 30, 80]))
    elif op == 3 and isinstance(parent, dict):
        del parent[key]
        return data
    elif op == 4 and isinstance(parent, dict):
        parent[rng.choice(["", "\u202e", "x" * 300, "model", "-1", "variants"])] = \
            parent.pop(key)
        return data
    else:
        new = rng.choice([HUGE, float("nan"), None, "", [], {}])
    parent[key] = new
    return data


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_PARSED: dict[str, Any] = {}


def _parsed(text: str) -> Any:
    """The recipe's data (parsed once per text), ``None`` if it does not parse."""
    if text not in _PARSED:
        try:
            _PARSED[text] = yaml.load(text, Loader=_LOADER)  # CSafeLoader/SafeLoader
        except yaml.YAMLError:
            _PARSED[text] = None
    return _PARSED[text]


def mutate(text: str, rng: random.Random) -> tuple[str, bytes]:
    """``(what was done, mutant bytes)``: one to three mutations of either kind."""
    kind = rng.choice(["line", "tree", "tree", "mixed"])
    if kind in ("tree", "mixed"):
        data = copy.deepcopy(_parsed(text))
        if data is not None:
            for _ in range(rng.randint(1, 3)):
                data = tree_mutation(data, rng)
            text = yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True,
                             width=10 ** 6)
            text = text.replace(OVER_LIMIT, "9" * 5000)
    if kind in ("line", "mixed"):
        for _ in range(rng.randint(1, 3)):
            text = line_mutation(text, rng)
    return kind, text.encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def corpus_context(corpus_repo: Path) -> tuple[Context, list[tuple[str, str]]]:
    tree = LocalTree(corpus_repo)
    recipes = [(p, tree.read(p).decode("utf-8")) for p in tree.list("models")
               if p.endswith((".yaml", ".yml"))]
    assert len(recipes) > 100
    return build_context(tree, Settings(offline=True)), recipes


def fuzz_cases(at_least: int) -> int:
    """How many mutants to check: ``RECIPE_CHECK_FUZZ_CASES``, never fewer than
    ``at_least``."""
    return max(at_least, int(os.environ.get(CASES_ENV) or at_least))


def test_fuzz_mutated_recipes(corpus_context: tuple[Context, list[tuple[str, str]]]) -> None:
    """The sample: the first ``SAMPLE_CASES`` mutants of the seed."""
    run_fuzz(corpus_context, fuzz_cases(SAMPLE_CASES))


@pytest.mark.full_sweep
def test_fuzz_mutated_recipes_full_sweep(
        corpus_context: tuple[Context, list[tuple[str, str]]]) -> None:
    """The whole sweep: ``FULL_CASES`` mutants (``-m full_sweep``)."""
    run_fuzz(corpus_context, fuzz_cases(FULL_CASES))


def run_fuzz(corpus_context: tuple[Context, list[tuple[str, str]]], cases: int) -> None:
    """Check ``cases`` mutants of the run's seed; the first failing one is named."""
    ctx, recipes = corpus_context
    seed = fuzz_seed(os.environ.get(SEED_ENV, ""))
    print(f"fuzz seed {seed} ({SEED_ENV}={seed} replays this run), {cases} cases")
    rng = random.Random(seed)
    checker = Checker(ctx, list(check_rules()), SchemaValidator())
    kinds: dict[str, int] = {}
    cpu, wall = time.process_time(), time.monotonic()
    for n in range(cases):
        path, text = rng.choice(recipes)
        kind, data = mutate(text, rng)
        kinds[kind] = kinds.get(kind, 0) + 1
        result = RunResult()
        where = f"seed {seed}, case {n} ({kind} mutation of {path})"
        try:
            checker.check_recipe(path, data, Provenance.of_bytes(path, data), result)
        except Exception as exc:  # the assertion names the case to replay
            raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
        assert not result.internal_errors, f"{where}: {result.internal_errors}"
        assert len(result.documents) == 1, where
    print(f"fuzz: {cases} cases {kinds} in {time.process_time() - cpu:.1f} s CPU, "
          f"{time.monotonic() - wall:.1f} s wall")
    assert sum(kinds.values()) == cases
    assert min(kinds.values()) > cases // 10  # each kind of mutation is drawn


# (seed, case) of mutants that once crashed a rule; each crash was fixed as a class
CRASHED = [(138941318, 650), (3990338786, 1710)]


@pytest.mark.parametrize(("seed", "case"), CRASHED)
def test_fuzz_seeds_that_found_crashes(corpus_context: tuple[Context, list[tuple[str, str]]],
                                       seed: int, case: int) -> None:
    ctx, recipes = corpus_context
    rng = random.Random(seed)
    for _ in range(case):  # the same draws as the run that found it
        mutate(rng.choice(recipes)[1], rng)
    path, text = rng.choice(recipes)
    kind, data = mutate(text, rng)
    result = RunResult()
    Checker(ctx, list(check_rules()), SchemaValidator()).check_recipe(
        path, data, Provenance.of_bytes(path, data), result)
    assert not result.internal_errors, f"{kind} mutation of {path}: {result.internal_errors}"
    assert len(result.documents) == 1


def test_mutators_change_the_recipe() -> None:
    rng = random.Random(7)
    text = "model:\n  model_id: a/b\nmeta:\n  title: t\n  tasks: [text]\n"
    changed = {mutate(text, rng)[1] for _ in range(200)}
    assert len(changed) > 150  # almost every mutant differs from the others
