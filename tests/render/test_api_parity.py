"""``recipe-check render --api-out`` against the site's own build (the Node oracle).

Every file the site's ``build-recipes-api.mjs`` writes must be written by us too, and every
field of every configuration file must be equal (links and copied specs excepted, see
:mod:`tests.render.api_compare`). Where the site's build fails on a tree, our render must
report a problem and write nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from .api_compare import ApiComparison, compare_api, read_api
from .conftest import PROJECT, SiteBuild, cached_site_build, site_api
from .head_inputs import HeadBuild, export_build, plan_head_builds

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

MAIN_FILES = 15_727
MAIN_CONFIGURATION_FILES = 15_686
PULL_REQUESTS = 30


@dataclass(frozen=True)
class OurBuild:
    """One run of ``python -m validator render --api-out``."""

    code: int
    out: Path
    seconds: float
    cpu_seconds: float
    stderr: str


def run_our_build(tree: Path, out: Path) -> OurBuild:
    """Our CLI over the recipes tree ``tree`` (its root as PATH: every recipe)."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    start = time.perf_counter()
    before = os.times()
    done = subprocess.run([sys.executable, "-m", "validator", "render", "--api-out", str(out),
                           str(tree)], cwd=PROJECT, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    after = os.times()
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return OurBuild(done.returncode, out, time.perf_counter() - start, cpu, done.stderr)


def compare_builds(site: SiteBuild, ours: OurBuild) -> ApiComparison:
    """Compare the two outputs; the readable report is in the assertion message."""
    assert ours.code == 0, ours.stderr
    return compare_api(site_api(site), read_api(ours.out))


def test_corpus_main_equals_the_site_build(site_main_build: SiteBuild, corpus_main_tree: Path,
                                           tmp_path: Path) -> None:
    """Corpus ``main``: the same 15,727 files; every field of the 15,686 configuration
    files equal; the other files equal whole."""
    ours = run_our_build(corpus_main_tree, tmp_path / "api")
    result = compare_builds(site_main_build, ours)
    print(f"\ncorpus main: {result.report()}\n"
          f"site build {site_main_build.seconds:.1f} s; ours {ours.seconds:.1f} s wall, "
          f"{ours.cpu_seconds:.1f} s CPU")
    assert result.equal, result.report()
    assert result.site_files == MAIN_FILES
    assert result.configuration_files == MAIN_CONFIGURATION_FILES
    assert result.fields_equal == result.fields > 250_000
    assert "API written" in ours.stderr


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def _pull_numbers(repo: Path) -> list[int]:
    """Numbers of the ``refs/pull/<N>/head`` refs, highest first."""
    refs = _git(repo, "for-each-ref", "--format=%(refname)", "refs/pull/*/head").split()
    return sorted((int(m.group(1)) for r in refs
                   if (m := re.fullmatch(r"refs/pull/(\d+)/head", r))), reverse=True)


def pull_request_heads(repo: Path, count: int = PULL_REQUESTS) -> list[int]:
    """The ``count`` highest pull-request numbers of the bundle whose head changes at
    least one file under ``models/`` against its merge base with ``main``."""
    numbers = _pull_numbers(repo)
    chosen: list[int] = []
    for number in numbers:
        head = f"refs/pull/{number}/head"
        base = subprocess.run(["git", "merge-base", "main", head], cwd=repo,
                              capture_output=True, text=True, check=False).stdout.strip()
        if base and _git(repo, "diff", "--name-only", base, head, "--", "models/"):
            chosen.append(number)
            if len(chosen) == count:
                break
    return chosen


def lacks_inputs(repo: Path, number: int) -> bool:
    """Whether the head of pull request ``number`` has no ``taxonomy.yaml`` or no
    ``kv_store/``."""
    names = set(_git(repo, "ls-tree", "--name-only", f"refs/pull/{number}/head").split())
    return not {"taxonomy.yaml", "kv_store"} <= names


def heads_without_inputs(repo: Path, exclude: list[int], count: int = 3) -> list[int]:
    """The ``count`` highest pull-request numbers not in ``exclude`` whose head has no
    ``taxonomy.yaml`` or no ``kv_store/`` (older trees): the site's build fails on them."""
    numbers = _pull_numbers(repo)
    chosen: list[int] = []
    for number in (n for n in numbers if n not in exclude):
        if lacks_inputs(repo, number):
            chosen.append(number)
            if len(chosen) == count:
                break
    return chosen


@dataclass(frozen=True)
class HeadResult:
    build: HeadBuild
    site: SiteBuild
    ours: OurBuild
    comparison: ApiComparison | None


def _check_build(site_dir: Path, cache: Path | None, repo: Path, build: HeadBuild,
                 work: Path) -> HeadResult:
    tree = export_build(repo, build, work / f"pr{build.number}")
    try:
        site = cached_site_build(site_dir, tree, cache)
        ours = run_our_build(tree, work / f"pr{build.number}-api")
        comparison = None
        if site.ok and ours.code == 0:
            comparison = compare_api(site_api(site), read_api(ours.out))
        return HeadResult(build, site, ours, comparison)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(work / f"pr{build.number}-api", ignore_errors=True)


def _failure(r: HeadResult) -> str | None:
    """What is wrong with one head's result, ``None`` when ours agrees with the site."""
    number = r.build.number
    if not r.site.ok:
        if r.ours.code != 1 or "nothing written" not in r.ours.stderr:
            return (f"PR {number}: the site's build fails ({r.site.stderr.strip()[-300:]}) "
                    f"but ours exits {r.ours.code}: {r.ours.stderr.strip()[-300:]}")
        if r.ours.out.exists():
            return f"PR {number}: an API was written although the build fails"
        return None
    if r.comparison is None:
        return (f"PR {number}: the site's build succeeds, ours exits {r.ours.code}: "
                f"{r.ours.stderr.strip()[-500:]}")
    if not r.comparison.equal:
        return f"PR {number}: {r.comparison.report(5)}"
    return None


@dataclass(frozen=True)
class HeadsChecked:
    """The heads' builds and results, and the summary line printed."""

    builds: list[HeadBuild]
    results: list[HeadResult]

    @property
    def compared(self) -> list[ApiComparison]:
        return [r.comparison for r in self.results if r.comparison is not None]


def check_heads(site_dir: Path, cache: Path | None, repo: Path, numbers: list[int],
                rejected: list[int], work: Path,
                sample: Mapping[int, Collection[str]] | None = None) -> HeadsChecked:
    """Build ``numbers`` (as reduced trees, :mod:`tests.render.head_inputs`) and
    ``rejected`` (whole) with the site's build and ours, two builds at a time (each: the
    site's, then ours); every head must agree: our API equals the site's where its build
    succeeds, and ours exits 1 writing nothing where it fails -- for the context (no
    ``taxonomy.yaml`` or ``kv_store/``), never for one recipe. The site's builds are kept
    in ``cache`` (:func:`~tests.render.conftest.cached_site_build`). A head in ``sample``
    is built with only those of its recipes (:func:`plan_head_builds`)."""
    builds = plan_head_builds(repo, numbers + rejected, set(rejected), sample=sample)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda b: _check_build(site_dir, cache, repo, b, work), builds))
    failures = [f for r in results if (f := _failure(r)) is not None]
    checked = HeadsChecked(builds, results)
    print(f"\n{len(numbers) + len(rejected)} pull-request heads "
          f"({', '.join(map(str, numbers + rejected))}): {len(checked.compared)} reduced "
          f"trees built by the site and compared ({sum(b.new_inputs for b in builds)} recipe "
          f"renderings new to them of {sum(b.head_recipes for b in builds)} in their "
          f"heads), {sum(not r.site.ok for r in results)} rejected by the site; "
          f"{sum(c.configuration_files for c in checked.compared)} configuration files, "
          f"{sum(c.fields for c in checked.compared)} fields; site "
          f"{sum(r.site.seconds for r in results):.0f} s, ours "
          f"{sum(r.ours.seconds for r in results):.0f} s wall / "
          f"{sum(r.ours.cpu_seconds for r in results):.0f} s CPU")
    assert not failures, "\n".join(failures)
    assert set(rejected) <= {r.build.number for r in results if not r.site.ok}
    # a reduced tree the site rejects must be rejected for its context (no taxonomy or
    # kv_store/, as every tree of that context is): had one recipe made it fail, the
    # other recipes it brought would be compared by no build
    assert all(lacks_inputs(repo, r.build.number) for r in results if not r.site.ok)
    return checked


SAMPLED_RECIPES: dict[int, tuple[str, ...]] = {
    817: ("models/deepseek-ai/DeepSeek-V4-Flash.yaml",),
    811: ("models/Google/gemma-4-E4B-it.yaml",),
}
"""The pull-request head recipes the default run builds (with their head's context files
and the recipes they name), of the 1,008 recipe renderings of the full sweep below. With
corpus ``main`` (compared in full above) and the rejected heads, our render takes every
branch of ``validator/render/`` that main and the 30 heads take but two (below):
coverage.py, branch coverage, one coverage context per recipe rendered by ``build_api`` in
one process, chosen by greedy set cover. On this bundle and the renderer of 2026-12-07 the
sweep's heads (and its rejected ones) take 54 arcs main does not: 8 in ``gates.py`` and
``layers.py`` (a mode refused by a GPU generation's gate, a modal feature with no allowed
mode) that PR 817's ``DeepSeek-V4-Flash.yaml`` takes, 30 of a configuration whose command
synthesis throws (a spread of a value that is no list; the site writes no file for it) that
PR 811's ``gemma-4-E4B-it.yaml`` takes, 14 of the refusal of a tree without ``kv_store/``
that the rejected heads take, and 2 of the memo of
:func:`validator.render.gates.resolve_mode_key` emptied at 256 entries, not sampled: taken
in that measurement only late in the one process that rendered main and the heads in a row
(at PR 803; the sweep builds each head in a process of its own). The heads sampled before
(827, 817 and 809, whole: 478 renderings) missed the 30 of PR 811; 827 took none of its
own. Choose again with coverage when the bundle or the renderer changes."""
SAMPLED_REJECTED_HEADS = (809,)
"""Sampled heads without ``kv_store/``: refused by both builds for their context."""
SAMPLED_HEADS = (*SAMPLED_RECIPES, *SAMPLED_REJECTED_HEADS)
SAMPLED_REJECTED = 1
"""Of the 3 rejected heads of the full sweep, the highest-numbered."""
CONFIGURATION_FILES_MIN = 400
"""The sampled recipes render 428 configuration files (256 at PR 817, 172 at PR 811)."""


def test_sampled_pull_request_heads_equal_the_site_build(
        site_dir: Path, site_builds: Path | None, corpus_repo: Path, tmp_path: Path) -> None:
    """The recipes of :data:`SAMPLED_RECIPES` at their heads, the heads of
    :data:`SAMPLED_REJECTED_HEADS` (all among the 30 heads of the full sweep below) and
    the highest-numbered head the site's build rejects: our API equals the site's build,
    or is refused as the site's build refuses it (:func:`check_heads`)."""
    numbers = pull_request_heads(corpus_repo)
    assert set(SAMPLED_HEADS) <= set(numbers)
    rejected = heads_without_inputs(corpus_repo, numbers, count=SAMPLED_REJECTED)
    checked = check_heads(site_dir, site_builds, corpus_repo, list(SAMPLED_HEADS),
                          rejected, tmp_path, sample=SAMPLED_RECIPES)
    # every sampled head brings something new to render and is built: compared, or (809:
    # a tree without kv_store/) rejected by both builds for its context
    assert {r.build.number for r in checked.results} == {*SAMPLED_HEADS, *rejected}
    assert [r.build.number for r in checked.results if r.comparison is not None] == \
        list(SAMPLED_RECIPES)
    assert sum(c.configuration_files for c in checked.compared) > CONFIGURATION_FILES_MIN


@pytest.mark.full_sweep
def test_pull_request_heads_equal_the_site_build(
        site_dir: Path, site_builds: Path | None, corpus_repo: Path, tmp_path: Path) -> None:
    """The full sweep (``-m full_sweep``): the 30 highest-numbered pull requests of the
    bundle whose head changes a file under ``models/`` (against ``git merge-base main
    <head>``), at their head: where the site's build succeeds, our API equals it (same
    files, every configuration field equal); where it fails, our render exits 1 naming
    the problem and writes no API. Plus the 3 highest-numbered other heads without
    ``taxonomy.yaml`` or ``kv_store/``, which the site's build rejects: ours must reject
    them too.

    Each recipe rendering is built and compared once (:mod:`tests.render.head_inputs`):
    a head is built as the reduced tree of what it renders that corpus ``main`` (the test
    above) and the heads before it did not; a head with nothing new is not built. The
    rejected heads are built whole."""
    numbers = pull_request_heads(corpus_repo)
    assert len(numbers) == PULL_REQUESTS
    rejected = heads_without_inputs(corpus_repo, numbers)
    assert len(rejected) == 3
    checked = check_heads(site_dir, site_builds, corpus_repo, numbers, rejected, tmp_path)
    # the sweep still renders what the heads bring: older contexts in full, new recipes
    assert len(checked.compared) >= 20
    assert sum(b.new_inputs for b in checked.builds) >= 900
    assert sum(c.configuration_files for c in checked.compared) > 60_000
