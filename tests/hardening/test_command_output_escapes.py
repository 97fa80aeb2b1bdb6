"""The lines ``fix``, ``fetch``, ``render`` and ``cache`` print about a file show its
name and the text they quote through :func:`validator.findings.printable`, as ``check``
does: a line break, CR, ESC, NEL or bidi override in a name or quoted value cannot start
a line of its own (a ``::error`` workflow command in a CI log) nor drive a terminal
(trial 13 #9)."""

from __future__ import annotations

import io
import re
import unicodedata
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cli import main
from validator.commands.fetch import _report
from validator.fix.command import report_fixes
from validator.fix.model import Applicability, DocumentFixes, Fix, Skip
from validator.source.verify import VerificationError

HOSTILE = "a\n::error::pwned\r::warning::cr\x1b[31m\x85nel\u202eevil\u2028sep"
_BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _clean(text: str) -> bool:
    """No raw control/format character but LF, and no line that is a workflow command."""
    return not any(_BAD.match(c) or unicodedata.category(c) == "Cf" for c in text) and \
        not any(ln.lstrip().startswith("::") for ln in text.split("\n"))


def test_fix_report_escapes_names_titles_and_reasons() -> None:
    outcome = DocumentFixes(f"models/x/{HOSTILE}.yaml", b"", b"",
                            applied=[Fix("FLAG001", 3, Applicability.SAFE, f"write `{HOSTILE}`",
                                         (), ())],
                            skipped=[Skip("FLAG002", 4, f"the value {HOSTILE}")],
                            error=f"does not parse: {HOSTILE}")
    out = io.StringIO()
    report_fixes([outcome], out, verb="would fix")
    assert out.getvalue().count("pwned") == 6 and _clean(out.getvalue())


def test_fetch_verification_report_escapes_the_name_and_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    _report(f"o/r@main:{HOSTILE}", VerificationError("PROV001", f"models/{HOSTILE}.yaml",
                                                     f"digest of {HOSTILE}", hint=HOSTILE))
    err = capsys.readouterr().err
    assert err.count("pwned") == 4 and _clean(err)


def test_render_escapes_the_name_of_a_file_that_does_not_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_tree(tmp_path / "repo")
    name = f"models/acme/{HOSTILE.replace('/', '_')}.yaml"
    (root / name).write_text("a: [\n", "utf-8")
    capsys.readouterr()
    main(["render", "--root", str(root), str(root / name)])
    out, err = capsys.readouterr()
    assert "pwned" in err and _clean(out) and _clean(err)


def test_cache_info_escapes_the_folder_name(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / HOSTILE.replace("/", "_")
    (root / "runs").mkdir(parents=True)
    capsys.readouterr()
    assert main(["cache", "info", "--cache-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "pwned" in out and _clean(out)
