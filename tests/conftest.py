"""Shared fixtures: the real recipes history (``../shared/corpus``) cloned once per run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings as hypothesis_settings

from tests import schedule
from tests.shared_run import shared_result

if TYPE_CHECKING:
    from validator.findings import Finding

PROJECT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RECIPE_CHECK_SHARED") or PROJECT.parent / "shared")
"""The shared test inputs (the corpus bundle, the site's sources, the seeds): ``../shared``
beside the checkout, or the folder ``$RECIPE_CHECK_SHARED`` names."""
EXAMPLES = PROJECT / "examples" / "recipes"
"""The example recipes root the project ships (README's first command checks it)."""
CORPUS = SHARED / "corpus"
BUNDLE = CORPUS / "vllm-recipes.bundle"
COMMIT_MAP = CORPUS / "vllm-recipes.commit-map.tsv"
EXTRA = CORPUS / "extra"
SEEDS = SHARED / "seeds"


CORPUS_FIXTURES = {"corpus_repo", "commit_map", "site_dir", "schemas_corpus"}
"""Fixtures that read ../shared; a test using one through other fixtures is found too
(``item.fixturenames`` is the closure)."""

_SHARED_NAMES = frozenset({"CORPUS", "SHARED", "SEEDS", "EXTRA", "BUNDLE", "COMMIT_MAP",
                           "SITE"})


def _global_names(code: CodeType) -> set[str]:
    """The global and attribute names ``code`` and the functions, lambdas and
    comprehensions inside it load (their bytecode's ``co_names``)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _global_names(const)
    return names


def needs_corpus(item: pytest.Item) -> bool:
    """Whether a test reads ../shared: marked ``corpus``, uses a corpus fixture (pytest
    lists the fixtures a test uses transitively), or its code names a ../shared path
    constant (read off its bytecode: reading and scanning each test's source cost about
    a second of every pytest process's collection)."""
    if item.get_closest_marker("corpus") is not None:
        return True
    if CORPUS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    code = getattr(getattr(item, "function", None), "__code__", None)
    return code is not None and not _SHARED_NAMES.isdisjoint(_global_names(code))


hypothesis_settings.register_profile("recipe-check", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "recipe-check"))
"""Property tests draw the same examples on every run (derandomized: the seed comes from
each test's own source), so CI judges one fixed set and a failure replays as it was;
``HYPOTHESIS_PROFILE=explore`` draws fresh examples (with hypothesis' example database) to
look for new failures locally. Loaded here, before any test module builds its
``@settings``, so that each inherits it."""

CACHE_HOME_ENV = "RECIPE_CHECK_TEST_CACHE_HOME"
"""Set by the first pytest process of a run (the xdist controller): the run's cache folder."""
_OWN_CACHE_HOME = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    schedule.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    """The engine's caches (``$XDG_CACHE_HOME/recipe-check``: check results, derived CLI
    registries) live in one fresh folder per test run, shared by its xdist workers and the
    CLI processes tests start (they inherit the environment): a corpus recipe checked by
    several tests with the same inputs is checked once, and no run reads or fills the
    user's own cache. Tests about the cache give their own ``--cache-dir``.

    The CLI processes tests start draw no progress (``RECIPE_CHECK_PROGRESS=off``), so
    their stderr is the same inside a CI job (``CI`` set) and outside; the tests about
    progress choose it themselves."""
    schedule.register_recorder(config)
    if os.environ.get(CACHE_HOME_ENV):  # a worker: the controller made it
        return
    os.environ["RECIPE_CHECK_PROGRESS"] = "off"
    folder = tempfile.mkdtemp(prefix="recipe-check-tests-cache-")
    os.environ[CACHE_HOME_ENV] = os.environ["XDG_CACHE_HOME"] = folder
    config.stash[_OWN_CACHE_HOME] = folder
    _bytecode_outside_the_sources(config, Path(folder))


def _bytecode_outside_the_sources(config: pytest.Config, run_folder: Path) -> None:
    """Where Python is told to write no bytecode (``PYTHONDONTWRITEBYTECODE``, to keep
    ``__pycache__`` folders out of the sources), the test run keeps its compiled modules
    and pytest's rewritten test modules in pytest's cache folder (``.pytest_cache``; with
    ``-p no:cacheprovider``, the run's own folder) through ``PYTHONPYCACHEPREFIX``: the
    xdist workers and the hundreds of ``python -m validator`` processes tests start then
    compile the package once, not each again (about 0.3 s of CPU per process). Nothing is
    written beside the sources either way."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    cache = getattr(config, "cache", None)
    prefix = cache.mkdir("recipe-check-pycache") if cache is not None else run_folder / "pyc"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(prefix)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's cache folder (in the process that made it)."""
    folder = config.stash.get(_OWN_CACHE_HOME, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(CACHE_HOME_ENV, None)


SHARED_FIXTURE_GROUPS = {
    "safe_fix": "corpus-fix",
    "unsafe_fix": "corpus-fix",
    "undeclared_reads": "rule-reads",
    "main_recipes": "rule-reads",
    "slice_result": "history-slice",
    "site_main_build": "site-main",
}
"""Fixture -> xdist group of the tests that read it. These fixtures compute one expensive
output (a whole-corpus ``--fix``, the instrumented rule runs, a history audit, the site's
build of corpus ``main``) that several tests assert on. Under ``--dist loadgroup`` (the
README's command) the tests of one group run on one worker, one after the other: the
output is computed once and no other worker sits blocked on its lock
(:func:`tests.shared_run.shared_result`) or computes a module-scoped one again. The safe
and the unsafe ``--fix`` share one group: both start from :func:`corpus_main_findings`,
which the other would wait for when the two long units are handed out first together."""


def _add_shared_fixture_group(item: pytest.Item) -> None:
    names = set(getattr(item, "fixturenames", ()))
    groups = sorted({g for f, g in SHARED_FIXTURE_GROUPS.items() if f in names})
    if groups:
        item.add_marker(pytest.mark.xdist_group(groups[0]))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need ../shared get the ``corpus`` marker. Where ../shared does not exist
    at all (a plain clone on GitHub's runners) they are skipped, with the reason in the
    skip line (``-rs``) and in the closing summary; where it exists (this project's CI,
    a developer's machine) they always run, and a missing file there fails them. Tests
    sharing one expensive output get its xdist group (:data:`SHARED_FIXTURE_GROUPS`), and
    the tests known to be long run first (:mod:`tests.schedule`)."""
    absent = not SHARED.is_dir()
    reason = (f"needs ../shared/corpus (the real recipes history), absent: {SHARED} does "
              "not exist")
    for item in items:
        _add_shared_fixture_group(item)
        if needs_corpus(item):
            item.add_marker(pytest.mark.corpus)
            if absent:
                item.add_marker(pytest.mark.skip(reason=reason))
    schedule.long_units_first(items, schedule.known_durations())


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    """Say loudly how many tests were skipped for want of ../shared."""
    if SHARED.is_dir():
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if "needs ../shared/corpus" in str(getattr(r, "longrepr", ""))]
    if skipped:
        terminalreporter.write_line(
            f"recipe-check: {len(skipped)} test(s) skipped: {SHARED} does not exist (the "
            "corpus tests run where ../shared is beside the checkout)", yellow=True)


@pytest.fixture(scope="session")
def corpus_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of the corpus bundle at ``main`` with every ``refs/pull/*`` fetched.

    Tests must not modify it; copy it (``corpus_copy``) to change files.
    """
    if not BUNDLE.is_file():
        pytest.fail(f"corpus bundle missing: {BUNDLE} (CI puts ../shared beside the checkout)")
    dest = tmp_path_factory.mktemp("corpus") / "recipes"
    git_out(dest.parent, "clone", "-q", str(BUNDLE), str(dest))
    git_out(dest, "fetch", "-q", str(BUNDLE), "refs/pull/*:refs/pull/*")
    return dest


@pytest.fixture()
def corpus_copy(corpus_repo: Path, tmp_path: Path) -> Path:
    """A throw-away copy of the corpus working tree (no .git), safe to edit."""
    dest = tmp_path / "recipes"
    shutil.copytree(corpus_repo, dest, ignore=shutil.ignore_patterns(".git"))
    return dest


@pytest.fixture(scope="session")
def commit_map() -> dict[str, str]:
    """Upstream commit id -> replay commit id in the bundle."""
    out: dict[str, str] = {}
    for line in COMMIT_MAP.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and len(parts[0]) == 40:
            out[parts[0]] = parts[1]
    return out


def replace_once(file: Path, old: str, new: str) -> str:
    """Replace the first ``old`` in ``file`` by ``new`` (``old`` must be there); returns
    the new text. Used to inject one fault into a real recipe."""
    text = file.read_text("utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    file.write_text(text, "utf-8")
    return text


def line_of(text: str, needle: str, start: int = 1) -> int:
    """1-based number of the first line at or after ``start`` containing ``needle``."""
    for number, line in enumerate(text.splitlines(), 1):
        if number >= start and needle in line:
            return number
    raise AssertionError(f"{needle!r} not found in text")


def check_tree(root: Path, *paths: str, strict: bool = False,
               **settings: Any) -> list[Finding]:
    """Run the full pipeline (loader, schema, every check rule) on ``paths`` of a recipes
    tree on disk (``settings``: more :class:`~validator.context.Settings`, such as
    ``rendered=True``); returns every finding, sorted. The checks of one test process share
    the CLI registries and the loaded context files of equal trees, as the contexts of one
    run do (:mod:`tests.shared_context`)."""
    from tests.shared_context import shared_context
    from validator.checker import Checker, RunResult
    from validator.context import Settings
    from validator.rule_index import check_rules
    from validator.schema import SchemaValidator

    ctx = shared_context(root, Settings(strict=strict, **settings))
    checker = Checker(ctx, check_rules(), SchemaValidator(strict=strict))
    result = RunResult()
    for path in paths:
        data = (root / path).read_bytes()
        checker.check_recipe(path, data, ctx.tree.provenance(path, data), result)
    assert not result.internal_errors, result.internal_errors
    return result.all_findings()


def corpus_recipes(root: Path) -> list[str]:
    """Every recipe path (``models/**/*.yaml``) of a recipes tree on disk, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "models").rglob("*.yaml"))


@pytest.fixture(scope="session")
def corpus_main_findings(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory
                         ) -> list[Finding]:
    """Every finding of every recipe of corpus ``main`` (:func:`check_tree`), computed once
    per pytest run and shared by the xdist workers (:func:`tests.shared_run.shared_result`):
    the tests that pin the corpus's known errors, rule family by rule family, and the
    ``--fix`` tests (their "before") assert on this one run."""
    return shared_result(tmp_path_factory, "check_tree of corpus main, models/",
                         lambda: check_tree(corpus_repo, *corpus_recipes(corpus_repo)))


@pytest.fixture()
def examples_tree(tmp_path: Path) -> Path:
    """A writable copy of the shipped example recipes root, at ``tmp_path/recipes``."""
    dest = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, dest)
    return dest


EDITED_RECIPE = "models/example-org/Example-Chat-8B.yaml"
"""The recipe the second commit of :func:`examples_repo` edits."""


def git_out(repo: Path, *args: str) -> str:
    """``git ARGS`` run in ``repo``; its stripped standard output (raises on failure)."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def examples_repo(examples_tree: Path) -> Path:
    """The example recipes root as a git repository of two commits on ``main``: the
    shipped tree, then ``# edited`` appended to :data:`EDITED_RECIPE` (so that ``pr``,
    ``diff`` and ``history`` have a change to read)."""
    git_out(examples_tree, "init", "-q", "-b", "main")
    git_out(examples_tree, "config", "user.email", "tests@example.invalid")
    git_out(examples_tree, "config", "user.name", "recipe-check tests")
    git_out(examples_tree, "add", ".")
    git_out(examples_tree, "commit", "-q", "-m", "recipes")
    recipe = examples_tree / EDITED_RECIPE
    recipe.write_text(recipe.read_text("utf-8") + "# edited\n", "utf-8")
    git_out(examples_tree, "commit", "-q", "-am", "edit a recipe")
    return examples_tree
