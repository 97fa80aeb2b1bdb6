"""Fuzzing the in-process checker with mutated real recipes (issue 16, item 11).

Every run mutates the recipes of the corpus at ``main``: by default it checks the mutants
of ``SAMPLE_CASES`` of the default seed, ``-m full_sweep`` the first ``FULL_CASES`` (the
whole sweep, of which the sample is a part); ``RECIPE_CHECK_FUZZ_CASES`` or another seed
check the first ``FIRST_CASES`` (or that many) instead. Mutations are line mutations of
the bytes
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
from collections.abc import Sequence
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
FIRST_CASES = 500
SAMPLE_CASES = (
    0, 4, 5, 6, 7, 9, 10, 11, 12, 15, 16, 24, 27, 34, 38, 51, 55, 59, 60, 84, 88, 93, 103, 111,
    124, 126, 131, 133, 136, 138, 139, 148, 150, 167, 169, 175, 184, 185, 187, 196, 204, 218,
    219, 226, 227, 233, 242, 246, 253, 271, 287, 305, 320, 326, 327, 334, 335, 348, 367, 378,
    381, 391, 404, 409, 413, 417, 429, 431, 432, 435, 438, 441, 442, 463, 470, 477, 487, 488,
    495, 498, 509, 511, 514, 523, 529, 530, 535, 541, 543, 546, 552, 553, 554, 565, 573, 576,
    578, 580, 591, 593, 597, 604, 610, 615, 619, 621, 633, 637, 643, 648, 652, 664, 674, 679,
    683, 686, 687, 698,
)
"""The mutants (case numbers of ``DEFAULT_SEED``) the default run checks: 118 of the first
700, chosen with coverage.py (branch coverage of ``validator/``, one coverage context per
mutant, a greedy cover weighted by each mutant's check time). They take every arc the
700 take beyond one unmutated check (5,096; the first 500, which the default run
checked before, take 4,962 of them) in about two fifths of the 500's check time: the
mutants that reach more code are the ones that cost more. The mutants before the last
one are drawn too (the seed's sequence), not checked; drawing costs about 1 ms each. A
loader guard removed (the ``OverflowError`` of the YAML number check: huge integers)
fails the sample as it fails the sweep."""
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
    """The sample: the mutants of ``SAMPLE_CASES`` of the default seed; with another seed
    or ``RECIPE_CHECK_FUZZ_CASES``, the first ``FIRST_CASES`` (or that many)."""
    seed = fuzz_seed(os.environ.get(SEED_ENV, ""))
    if seed == DEFAULT_SEED and not os.environ.get(CASES_ENV):
        run_fuzz(corpus_context, seed, SAMPLE_CASES)
    else:
        run_fuzz(corpus_context, seed, range(fuzz_cases(FIRST_CASES)))


@pytest.mark.full_sweep
def test_fuzz_mutated_recipes_full_sweep(
        corpus_context: tuple[Context, list[tuple[str, str]]]) -> None:
    """The whole sweep: the first ``FULL_CASES`` mutants (``-m full_sweep``)."""
    run_fuzz(corpus_context, fuzz_seed(os.environ.get(SEED_ENV, "")),
             range(fuzz_cases(FULL_CASES)))


def run_fuzz(corpus_context: tuple[Context, list[tuple[str, str]]], seed: int,
             cases: Sequence[int]) -> None:
    """Check the mutants ``cases`` of ``seed`` (each drawn after every mutant before it,
    so that a case number names one mutant); the first failing one is named."""
    ctx, recipes = corpus_context
    wanted = frozenset(cases)
    print(f"fuzz seed {seed} ({SEED_ENV}={seed} replays this run), {len(wanted)} cases")
    rng = random.Random(seed)
    checker = Checker(ctx, list(check_rules()), SchemaValidator())
    kinds: dict[str, int] = {}
    cpu, wall = time.process_time(), time.monotonic()
    for n in range(max(wanted) + 1):
        path, text = rng.choice(recipes)
        kind, data = mutate(text, rng)
        if n not in wanted:
            continue
        kinds[kind] = kinds.get(kind, 0) + 1
        result = RunResult()
        where = f"seed {seed}, case {n} ({kind} mutation of {path})"
        try:
            checker.check_recipe(path, data, Provenance.of_bytes(path, data), result)
        except Exception as exc:  # the assertion names the case to replay
            raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
        assert not result.internal_errors, f"{where}: {result.internal_errors}"
        assert len(result.documents) == 1, where
    print(f"fuzz: {len(wanted)} cases {kinds} in {time.process_time() - cpu:.1f} s CPU, "
          f"{time.monotonic() - wall:.1f} s wall")
    assert sum(kinds.values()) == len(wanted)
    assert min(kinds.values()) > len(wanted) // 10  # each kind of mutation is drawn


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
