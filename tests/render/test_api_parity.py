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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from .api_compare import ApiComparison, compare_api, read_api
from .conftest import PROJECT, SiteBuild, export_revision, run_site_build

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
    return compare_api(read_api(site.public), read_api(ours.out))


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


def heads_without_inputs(repo: Path, exclude: list[int], count: int = 3) -> list[int]:
    """The ``count`` highest pull-request numbers not in ``exclude`` whose head has no
    ``taxonomy.yaml`` or no ``kv_store/`` (older trees): the site's build fails on them."""
    numbers = _pull_numbers(repo)
    chosen: list[int] = []
    for number in (n for n in numbers if n not in exclude):
        names = set(_git(repo, "ls-tree", "--name-only", f"refs/pull/{number}/head").split())
        if not {"taxonomy.yaml", "kv_store"} <= names:
            chosen.append(number)
            if len(chosen) == count:
                break
    return chosen


@dataclass(frozen=True)
class HeadResult:
    number: int
    site: SiteBuild
    ours: OurBuild
    comparison: ApiComparison | None


def _check_head(site_dir: Path, repo: Path, number: int, work: Path) -> HeadResult:
    tree = export_revision(repo, f"refs/pull/{number}/head", work / f"pr{number}")
    try:
        site = run_site_build(site_dir, tree)
        ours = run_our_build(tree, work / f"pr{number}-api")
        comparison = None
        if site.ok and ours.code == 0:
            comparison = compare_api(read_api(site.public), read_api(ours.out))
        return HeadResult(number, site, ours, comparison)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(work / f"pr{number}-api", ignore_errors=True)


def test_pull_request_heads_equal_the_site_build(site_dir: Path, corpus_repo: Path,
                                                 tmp_path: Path) -> None:
    """The 30 highest-numbered pull requests of the bundle whose head changes a file under
    ``models/`` (against ``git merge-base main <head>``), at their head: where the site's
    build succeeds, our API equals it (same files, every configuration field equal);
    where it fails, our render exits 1 naming the problem and writes no API. Plus the 3
    highest-numbered other heads without ``taxonomy.yaml`` or ``kv_store/``, which the
    site's build rejects: ours must reject them too.

    Two heads are checked at a time (each runs the site's build, then ours)."""
    numbers = pull_request_heads(corpus_repo)
    assert len(numbers) == PULL_REQUESTS
    rejected = heads_without_inputs(corpus_repo, numbers)
    assert len(rejected) == 3
    numbers += rejected
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda n: _check_head(site_dir, corpus_repo, n, tmp_path),
                                numbers))
    failures: list[str] = []
    for r in results:
        if not r.site.ok:
            if r.ours.code != 1 or "nothing written" not in r.ours.stderr:
                failures.append(f"PR {r.number}: the site's build fails "
                                f"({r.site.stderr.strip()[-300:]}) but ours exits "
                                f"{r.ours.code}: {r.ours.stderr.strip()[-300:]}")
            elif r.ours.out.exists():
                failures.append(f"PR {r.number}: an API was written although the build fails")
        elif r.comparison is None:
            failures.append(f"PR {r.number}: the site's build succeeds, ours exits "
                            f"{r.ours.code}: {r.ours.stderr.strip()[-500:]}")
        elif not r.comparison.equal:
            failures.append(f"PR {r.number}: {r.comparison.report(5)}")
    compared = [r for r in results if r.comparison is not None]
    assert not [r.number for r in results if r.number in rejected and r.site.ok]
    print(f"\n{len(results)} pull-request heads ({', '.join(map(str, numbers))}): "
          f"{len(compared)} built by the site and compared, "
          f"{sum(not r.site.ok for r in results)} rejected by the site; "
          f"{sum(c.comparison.configuration_files for c in compared if c.comparison)} "
          f"configuration files, {sum(c.comparison.fields for c in compared if c.comparison)} "
          f"fields; site {sum(r.site.seconds for r in results):.0f} s, ours "
          f"{sum(r.ours.seconds for r in results):.0f} s wall / "
          f"{sum(r.ours.cpu_seconds for r in results):.0f} s CPU")
    assert not failures, "\n".join(failures)
    assert compared and all(c.comparison and c.comparison.configuration_files > 10_000
                            for c in compared)
