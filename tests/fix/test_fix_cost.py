"""What ``--fix`` checks: each text of a recipe once (the text read, each candidate edit,
the text a pass leaves), and the check after the writes takes what the fix loop found in
the bytes it left rather than checking them again; its report stays the one ``check``
gives on the fixed tree."""

from __future__ import annotations

import codecs
import collections
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fix.test_fix_cli import BROKEN, FIXED
from tests.fix.test_fixes import PATH, RECIPE, make_tree
from validator.checker import Checker
from validator.cli import main

CLEAN = "models/acme/Acme-Chat-9B-Clean.yaml"
"""A second recipe of the tree with nothing to fix."""


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[tuple[str, str]]:
    """Every (path, SHA-256) a checker judges from now on, counted."""
    seen: collections.Counter[tuple[str, str]] = collections.Counter()
    judge = Checker.document_findings

    def counting(self: Checker, doc: Any, *args: Any, **kwargs: Any) -> Any:
        seen[doc.path, doc.sha256] += 1
        return judge(self, doc, *args, **kwargs)

    monkeypatch.setattr(Checker, "document_findings", counting)
    return seen


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_fix_checks_each_text_once_and_the_final_check_reuses_the_loops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(tmp_path, BROKEN)
    (root / CLEAN).write_text(RECIPE)
    seen = _count_checks(monkeypatch)  # in this process: --jobs 1
    _code, _out, err = _run("--fix", "--no-cache", "--jobs", "1", str(root / PATH),
                            str(root / CLEAN))
    assert (root / PATH).read_text() == FIXED
    assert "fixed 2 finding(s) with 2 fix(es) in 1 file(s)" in err
    assert seen and max(seen.values()) == 1, seen
    paths = collections.Counter(path for path, _sha in seen)
    assert paths[CLEAN] == 1  # nothing to fix: one check, the final one taken from it
    # the text read, each fix alone, both together (the text the pass leaves and the
    # final check takes): four texts
    assert paths[PATH] == 4


def test_fix_report_is_the_check_of_the_fixed_tree(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN.replace('  provider: \'Acme\'', '  provider: Acme'))
    (root / CLEAN).write_text(RECIPE)
    targets = (str(root / PATH), str(root / CLEAN))
    code, fixed_report, _err = _run("--fix", "--no-cache", "--format", "json", *targets)
    check_code, check_report, _ = _run("check", "--no-cache", "--format", "json", *targets)
    assert code == check_code
    assert json.loads(fixed_report) == json.loads(check_report)
    assert json.loads(fixed_report)["documents"]


def test_fix_reads_each_text_once_with_the_second_parser(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from validator.fix import second_reader

    texts: collections.Counter[str] = collections.Counter()
    read = second_reader.read

    def counting(text: str) -> Any:
        texts[text] += 1
        return read(text)

    monkeypatch.setattr(second_reader, "read", counting)
    root = make_tree(tmp_path, BROKEN)
    _code, _out, err = _run("--fix", "--no-cache", str(root / PATH))
    assert "fixed 2 finding(s) with 2 fix(es) in 1 file(s)" in err
    # the text read, each fix alone and both together, each read once
    assert sorted(texts.values()) == [1, 1, 1, 1]


def test_fix_takes_the_checks_of_its_texts_from_the_result_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each text the fix loop checks (the text read, each candidate, what a pass leaves)
    is a unit of ``check``'s result cache: ``--fix`` run again on the same bytes with the
    same cache judges no text, and writes and reports what the first run did."""
    cache = tmp_path / "cache"
    root = make_tree(tmp_path, BROKEN)
    (root / CLEAN).write_text(RECIPE)
    targets = ("--fix", "--cache-dir", str(cache), "--jobs", "1", str(root / PATH),
               str(root / CLEAN))
    first = _run(*targets)
    assert (root / PATH).read_text() == FIXED
    (root / PATH).write_text(BROKEN)
    seen = _count_checks(monkeypatch)
    assert _run(*targets) == first
    assert (root / PATH).read_text() == FIXED
    assert "fixed 2 finding(s) with 2 fix(es) in 1 file(s)" in first[2]
    assert not seen, seen


def test_fix_checks_a_text_with_a_byte_order_mark_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop checks a file with a BOM as its text without the BOM, which is not what
    ``check`` checks in those bytes: no such text is taken from (or put in) the cache."""
    cache = tmp_path / "cache"
    root = make_tree(tmp_path, BROKEN)
    broken = codecs.BOM_UTF8 + BROKEN.encode()
    (root / PATH).write_bytes(broken)
    targets = ("--fix", "--cache-dir", str(cache), "--jobs", "1", str(root / PATH))
    first = _run(*targets)
    (root / PATH).write_bytes(broken)
    seen = _count_checks(monkeypatch)
    assert _run(*targets) == first
    assert (root / PATH).read_bytes() == codecs.BOM_UTF8 + FIXED.encode()
    # the text read, each fix alone, both together; the check after the write takes the
    # loop's (``known``)
    assert sum(seen.values()) == 4
