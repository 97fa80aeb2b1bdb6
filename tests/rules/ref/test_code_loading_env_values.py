"""Env values that make Python load code: ``PYTHONWARNINGS`` imports the module a warning
filter's category names (``ignore::evil.Cat`` runs ``evil.py``), so ``REF018`` judges its
value; plain filters stay clean. ``OPENSSL_CONF`` (a config file that can load engine and
provider libraries) is a code-loading name. No env map of the corpus (main and every PR
head) sets either."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit, _ref018, bash
from validator.cli import main


def test_a_warning_filter_naming_a_module_category_runs_it_and_is_reported(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _edit(examples_tree, "  base_env: {}",
                 '  base_env:\n    PYTHONWARNINGS: "default,ignore::evil.Cat"')
    main(["render", str(examples_tree / CHAT)])
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("export PYTHONWARNINGS=default,ignore::evil.Cat")
    assert lines[at - 1].startswith("# warning: REF018: ") and "`evil`" in lines[at - 1]
    (tmp_path / "evil.py").write_text("open('pwned', 'w').close()\nclass Cat(Warning): ...\n")
    bash(f"{lines[at]}\nPYTHONPATH=. {sys.executable} -c 'pass'", tmp_path)
    assert (tmp_path / "pwned").exists()  # the oracle: Python imported evil at start-up
    (finding,) = _ref018(examples_tree)
    assert finding.severity.name == "ERROR"
    assert finding.line == line_of(text, "PYTHONWARNINGS")
    assert "imports the module `evil`" in finding.message


@pytest.mark.parametrize("value", ["ignore", "default", "error::DeprecationWarning",
                                   "ignore::builtins.UserWarning,always",
                                   "ignore:msg:warnings.WarningMessage:mod.x:3"])
def test_warning_filters_of_builtin_categories_stay_clean(examples_tree: Path,
                                                          value: str) -> None:
    _edit(examples_tree, "  base_env: {}", f'  base_env:\n    PYTHONWARNINGS: "{value}"')
    assert _ref018(examples_tree) == []


def test_openssl_conf_is_a_code_loading_name(examples_tree: Path) -> None:
    text = _edit(examples_tree, "  base_env: {}", '  base_env:\n    OPENSSL_CONF: "/x.cnf"')
    assert [f.line for f in _ref018(examples_tree)] == [line_of(text, "OPENSSL_CONF")]
