"""A whole ``check`` run answered from one cache entry (:mod:`validator.run_cache`): an
unchanged run gives the computed run's output byte for byte without importing a rule;
any change to what the run reads, to the tool or to the entry makes it compute again.

Every run is a real process on real files (a copy of ``examples/recipes``); a run that
computed its findings imported :mod:`validator.checker`, a replayed one did not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from validator.cache import RUNS
from validator.run_cache import _parse

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLE = PROJECT / "examples" / "recipes"
CHAT = "models/example-org/Example-Chat-8B.yaml"
RUN = """
import sys
from validator.cli import main
code = main()  # the process's own command line (sys.argv), as the console script
sys.stdout.flush()
sys.stderr.write("\\n<computed>" if "validator.checker" in sys.modules else "\\n<replayed>")
raise SystemExit(code)
"""


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLE, root)
    return root


def check(root: Path, cache: Path | None, *options: str, code: Path = PROJECT
          ) -> tuple[str, int, bool]:
    """(stdout, exit code, whether the findings were computed) of ``check models/`` run
    in ``root`` by the package in ``code``; ``cache=None``: ``--no-cache``."""
    where = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", RUN, "check", "--offline", "--format",
                           "json", *where, *options, "models/"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.stderr.endswith(("<computed>", "<replayed>")), done.stderr
    return done.stdout, done.returncode, done.stderr.endswith("<computed>")


def run_entries(cache: Path) -> list[Path]:
    return [f for f in (cache / RUNS).glob("*/*.json") if '"run":' in f.read_text()]


def test_an_unchanged_run_is_answered_from_one_entry_without_importing_a_rule(
        tmp_path: Path) -> None:
    root, cache = tree(tmp_path), tmp_path / "cache"
    cold = check(root, cache)
    warm = check(root, cache)
    assert cold[2] and not warm[2]
    assert warm[:2] == cold[:2] == check(root, None)[:2]
    assert len(run_entries(cache)) == 1
    # --jobs does not change the output, so it is not part of the key
    assert check(root, cache, "--jobs", "2") == warm


def test_as_written_is_answered_from_the_cache_and_its_old_spellings_compute_every_run(
        tmp_path: Path) -> None:
    """``--layers-only``/``--no-rendered`` are deprecated spellings of ``--as-written``: a
    run with one always computes, so that it always prints the deprecation warning."""
    root, cache = tree(tmp_path), tmp_path / "cache"
    cold = check(root, cache, "--as-written")
    warm = check(root, cache, "--as-written")
    assert cold[2] and not warm[2] and warm[:2] == cold[:2]
    for old in ("--layers-only", "--layers-only", "--no-rendered"):
        assert check(root, cache, old) == (*cold[:2], True)


def _edit_recipe(root: Path) -> None:
    with (root / CHAT).open("a") as f:
        f.write("\n# edited\n")


def _add_recipe(root: Path) -> None:
    shutil.copy(root / CHAT, root / "models/example-org/Copy.yaml")


def _chmod_recipe(root: Path) -> None:
    (root / CHAT).chmod(0o600)


def _edit_taxonomy(root: Path) -> None:
    with (root / "taxonomy.yaml").open("a") as f:
        f.write("\n# edited\n")


def _add_config(root: Path) -> None:
    (root / ".recipe-check.toml").write_text('ignore = ["FLAG025"]\n')


def _retarget_link(root: Path) -> None:
    with (root / "elsewhere" / "linked.yaml").open("a") as f:
        f.write("\nmodel: {}\n")


@pytest.fixture(scope="module")
def linked_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``recipes`` (the examples and a recipe that is a link to a file
    outside ``models/``) and ``cache``, holding the computed run of that tree, and a
    pristine copy of both under ``pristine/``: each change starts from the same computed
    run at the same paths (:func:`restored`) instead of computing it again."""
    base = tmp_path_factory.mktemp("linked-run")
    root, cache = tree(base), base / "cache"
    (root / "elsewhere").mkdir()
    shutil.copy(root / CHAT, root / "elsewhere" / "linked.yaml")
    (root / "models/example-org/Linked.yaml").symlink_to("../../elsewhere/linked.yaml")
    assert check(root, cache)[2]
    for part in (root, cache):
        shutil.copytree(part, base / "pristine" / part.name, symlinks=True)
    return base


def restored(base: Path) -> tuple[Path, Path]:
    """The recipes and cache of :func:`linked_run` put back as the computed run left them
    (modes and links kept: the run key reads names, types, modes, link targets, bytes)."""
    for name in ("recipes", "cache"):
        shutil.rmtree(base / name, ignore_errors=True)
        shutil.copytree(base / "pristine" / name, base / name, symlinks=True)
    return base / "recipes", base / "cache"


@pytest.mark.parametrize("change", [_edit_recipe, _add_recipe, _chmod_recipe,
                                    _edit_taxonomy, _add_config, _retarget_link])
def test_a_change_to_what_the_run_reads_computes_it_again(
        linked_run: Path, change: Callable[[Path], None]) -> None:
    root, cache = restored(linked_run)
    assert not check(root, cache)[2]  # the unchanged tree is answered from the cache
    change(root)
    again = check(root, cache)
    assert again[2], "answered from the cache after a change to its inputs"
    assert again[:2] == check(root, None)[:2]
    assert not check(root, cache)[2]


@pytest.mark.parametrize("damage", ["edited", "truncated"])
def test_an_edited_or_truncated_run_entry_is_computed_again_never_trusted(
        tmp_path: Path, damage: str) -> None:
    root, cache = tree(tmp_path), tmp_path / "cache"
    cold = check(root, cache)
    [entry] = run_entries(cache)
    if damage == "edited":
        data = json.loads(entry.read_text())
        data["results"]["run"]["output"] = [["stdout", "{}\n"]]
        data["results"]["run"]["code"] = 0
        entry.write_text(json.dumps(data))
    else:
        entry.write_bytes(entry.read_bytes()[:100])
    again = check(root, cache)
    assert again[2] and again[:2] == cold[:2]


def test_another_tool_version_computes_the_run_again(tmp_path: Path) -> None:
    code = tmp_path / "code"
    for part in ("validator", "schemas", "snapshots"):
        shutil.copytree(PROJECT / part, code / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PROJECT / "pyproject.toml", code / "pyproject.toml")
    root, cache = tree(tmp_path), tmp_path / "cache"
    check(root, cache, code=code)
    assert not check(root, cache, code=code)[2]
    init = code / "validator" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "0.1.0"',
                                             '__version__ = "0.1.0.post9"'))
    out, _, computed = check(root, cache, code=code)
    assert computed and json.loads(out)["tool"]["version"] == "0.1.0.post9"


def test_a_run_writing_a_report_file_is_never_answered_from_the_cache(
        tmp_path: Path) -> None:
    root, cache = tree(tmp_path), tmp_path / "cache"
    report = tmp_path / "report.json"
    for _ in range(2):
        report.unlink(missing_ok=True)
        assert check(root, cache, "--output", str(report))[2]
        assert report.is_file()
    assert not run_entries(cache)


def test_only_options_that_write_nothing_but_the_report_to_stdout_are_keyed() -> None:
    assert _parse(["--offline", "-j2", "--format=json", "--select", "FLAG", "models/"]) == (
        ["--offline", "--format=json", "--select=FLAG"], ["models/"],
        {"--offline": "", "-j": "2", "--format": "json", "--select": "FLAG"})
    assert _parse(["--jobs", "3", "-j", "4", "a.yaml"]) == ([], ["a.yaml"],
                                                          {"--jobs": "3", "-j": "4"})
    for unsafe in (["--fix"], ["--output", "f"], ["--json", "f"], ["--summary", "f"],
                   ["--config", "c.toml"], ["--no-cache"], ["--out", "f"], ["--"],
                   ["--offline=1"], ["-x"]):
        assert _parse([*unsafe, "models/"]) is None, unsafe
    assert _parse(["models/", "--select"]) is None  # a value missing


def test_an_in_process_run_is_never_kept_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller's in-process run (``main(argv)``) may have patched what no key sees."""
    from validator.cli import main

    root, cache = tree(tmp_path), tmp_path / "cache"
    monkeypatch.chdir(root)
    for _ in range(2):
        main(["check", "--offline", "--cache-dir", str(cache), "models/"])
    assert capsys.readouterr().out
    assert not run_entries(cache)
