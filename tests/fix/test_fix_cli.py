"""``recipe-check --fix/--diff/--unsafe-fixes`` end to end: what is written, what is not,
and the real corpus at ``main``."""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.fix.test_fixes import PATH, RECIPE, changed_old_lines, make_tree
from tests.shared_run import shared_result
from validator.catalogue import check_rules
from validator.cli import main
from validator.context import Settings
from validator.findings import Finding, Severity
from validator.fix.command import fix_targets, write_fixed
from validator.fix.model import Applicability
from validator.fix.registry import FIXES
from validator.source.local import Target
from validator.source.tree import LocalTree

BROKEN = (RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"  # x\n')
          .replace("    --tool-call-parser hermes\n  ```\n", "    --tool-call-parser hermes ```\n"))
FIXED = RECIPE.replace('      - "--max-model-len"\n', '      - "--max-model-len"  # x\n')
VERSION = re.compile(r"\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?")
SAFE_RULES = {r for r, spec in FIXES.items() if spec.applicability is Applicability.SAFE}


def test_diff_prints_a_patch_and_writes_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    file = root / PATH
    assert main(["--diff", str(file)]) == 1
    captured = capsys.readouterr()
    assert file.read_text() == BROKEN
    assert ("would fix 2 finding(s) with 2 fix(es) in 1 file(s); fixes per rule: FLAG013 1, "
            "GUIDE013 1") in captured.err
    patch = tmp_path / "fix.patch"
    patch.write_text(captured.out)
    # the patch is what --fix writes: git applies it to the file's bytes
    subprocess.run(["git", "apply", str(patch)], cwd=root, check=True)
    assert file.read_text() == FIXED
    assert main(["--diff", str(file)]) == 0
    assert capsys.readouterr().out == ""


def test_fix_writes_atomically_keeps_the_mode_and_rechecks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    file = root / PATH
    file.chmod(0o664)
    assert main(["--fix", str(file)]) == 0  # nothing remains
    captured = capsys.readouterr()
    assert file.read_text() == FIXED
    assert file.stat().st_mode & 0o777 == 0o664
    glued = line_of(BROKEN, "hermes ```")
    assert f"{PATH}:{glued}: fixed GUIDE013 (safe)" in captured.err
    assert "fixed 2 finding(s) with 2 fix(es) in 1 file(s)" in captured.err
    assert "0 error(s), 0 warning(s)" in captured.out
    assert not [p for p in file.parent.iterdir() if p.name.endswith(".tmp")]


def test_unparsable_file_is_never_written(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = BROKEN.replace("  tasks: [text]\n", "  tasks: [text\n")
    root = make_tree(tmp_path, bad)
    file = root / PATH
    assert main(["--fix", str(file)]) == 1
    err = capsys.readouterr().err
    assert file.read_text() == bad
    assert f"{PATH}: not fixed: the file does not load" in err


def test_file_changed_between_read_and_write_is_not_written(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN)
    target = Target(LocalTree(root), PATH)
    [outcome] = fix_targets([target], Settings(), check_rules(), unsafe=False)
    assert outcome.changed
    edited = BROKEN + "# edited by someone else meanwhile\n"
    (root / PATH).write_text(edited)
    assert write_fixed(target, outcome) == "changed since it was read; not written"
    assert (root / PATH).read_text() == edited


def test_unsafe_fixes_alone_is_a_usage_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    assert main(["--unsafe-fixes", str(root / PATH)]) == 2
    assert "--unsafe-fixes needs --fix or --diff" in capsys.readouterr().err


def test_rules_show_fixability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert "fix: safe" in lines["FLAG013"] and "fix: unsafe" in lines["REF019"]
    assert "fix:" not in lines["FLAG001"]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / "models").rglob("*.yaml"))}


@pytest.fixture()
def main_findings(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> list[Finding]:
    """Every finding of corpus ``main``'s recipes (:func:`check_tree`), once per pytest
    run: both corpus tests below compare their fixed copy against it."""
    def compute() -> list[Finding]:
        copy = tmp_path_factory.mktemp("main-findings") / "recipes"
        shutil.copytree(corpus_repo, copy, ignore=shutil.ignore_patterns(".git"))
        return check_tree(copy, *_snapshot(copy))

    return shared_result(tmp_path_factory, "check_tree of corpus main, models/", compute)


@pytest.mark.corpus
@pytest.mark.slow
def test_fix_on_the_corpus_at_main(corpus_copy: Path, main_findings: list[Finding],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    original = _snapshot(corpus_copy)
    assert len(original) == 173
    paths = list(original)
    before = main_findings
    assert {f.rule for f in before} & SAFE_RULES  # there is something to fix
    main(["--fix", "--offline", str(corpus_copy / "models")])
    err = capsys.readouterr().err
    fixed = _snapshot(corpus_copy)
    after = check_tree(corpus_copy, *paths)
    # a finding of a rule with a safe fix remains only where its fix was refused because
    # it would change what the site renders (e.g. a flag then set twice in a command)
    refused = set(re.findall(r"^(\S+?):(\d+): (\w+) not fixed: it would bring", err, re.M))
    left = [f for f in after if f.rule in SAFE_RULES]
    assert [f for f in left if (f.path, str(f.line), f.rule) not in refused] == []
    assert len(left) < len([f for f in before if f.rule in SAFE_RULES]) / 2
    # no new finding appears (same rule and message in the same file, counted)
    count = collections.Counter((f.path, f.rule, f.message) for f in before)
    new = collections.Counter((f.path, f.rule, f.message) for f in after) - count
    assert not new, sorted(new)
    # every changed line is a line a finding of a fixed rule pointed at
    lines = collections.defaultdict(set)
    for f in before:
        if f.rule in SAFE_RULES:
            lines[f.path].add(f.line)
    changed = {p for p in paths if fixed[p] != original[p]}
    assert changed
    for p in changed:
        assert changed_old_lines(original[p], fixed[p]) <= lines[p], p
    # a second --fix changes nothing
    main(["--fix", "--offline", str(corpus_copy / "models")])
    assert "fixed 0 finding(s) with 0 fix(es) in 0 file(s)" in capsys.readouterr().err
    assert _snapshot(corpus_copy) == fixed



@pytest.mark.corpus
@pytest.mark.slow
def test_unsafe_fixes_on_the_corpus_bring_no_new_error(corpus_copy: Path,
                                                       main_findings: list[Finding],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    paths = list(_snapshot(corpus_copy))
    before = main_findings
    main(["--fix", "--unsafe-fixes", "--offline", str(corpus_copy / "models")])
    err = capsys.readouterr().err
    assert "fixed REF019 (unsafe)" in err and "fixed FLAG002 (unsafe)" in err
    fixed = _snapshot(corpus_copy)
    after = check_tree(corpus_copy, *paths)

    def errors(findings: list[Finding]) -> collections.Counter[tuple[str, str, str]]:
        return collections.Counter((f.path, f.rule, VERSION.sub("#", f.message))
                                   for f in findings if f.severity is Severity.ERROR)

    assert not errors(after) - errors(before)
    assert len([f for f in after if f.severity is Severity.ERROR]) < len(
        [f for f in before if f.severity is Severity.ERROR])
    main(["--fix", "--unsafe-fixes", "--offline", str(corpus_copy / "models")])
    assert "fixed 0 finding(s) with 0 fix(es)" in capsys.readouterr().err
    assert _snapshot(corpus_copy) == fixed
