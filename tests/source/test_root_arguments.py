"""``--root``: a folder without ``taxonomy.yaml`` is no recipes root, so the rules that look
names up in the root are skipped (said once, with their ids) instead of failing every
recipe; a ``--root`` that is no folder is a usage error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from validator.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
ROOT_RULES = {"REF002", "REF003", "REF004", "REF013"}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, set[str], str]:
    code = main([*args, "--format", "json"])
    out = capsys.readouterr()
    report = json.loads(out.out) if out.out.strip() else {"documents": []}
    rules = {f["rule"] for d in report["documents"] for f in d["findings"]}
    return code, rules, out.err


@pytest.fixture()
def bare(tmp_path: Path) -> Path:
    """Our example recipes without their taxonomy and strategies."""
    root = tmp_path / "bare"
    shutil.copytree(EXAMPLES / "models", root / "models")
    return root


def test_without_a_taxonomy_the_root_rules_are_skipped_and_said_once(
        bare: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = tmp_path / "full"
    shutil.copytree(EXAMPLES, full)
    shutil.rmtree(full / "strategies")  # a taxonomy, no strategies: REF002 still judges
    _, rules, _ = run(["--root", str(full), str(full / "models")], capsys)
    assert "REF002" in rules
    code, rules, err = run(["--root", str(bare), str(bare / "models")], capsys)
    assert not rules & ROOT_RULES
    assert err.count("has no taxonomy.yaml") == 1
    assert ("skipped (REF002, REF003, REF004, REF013, REF020, REF025, REF026, REF031, REF032, "
            "REF033, REF035, REF036, REF038, REF039)") in err
    assert "SCHEMA002" in rules  # the other rules still run (a real defect of an example)
    assert code == 1


def test_the_skipped_list_names_only_selected_rules(bare: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(["--root", str(bare), "--select", "REF002,SCHEMA",
                     str(bare / "models")], capsys)
    assert "skipped (REF002)" in err


@pytest.mark.parametrize("name", ["missing", "file.yaml"])
def test_a_root_that_is_no_folder_is_a_usage_error(tmp_path: Path, name: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file.yaml").write_text("a: 1\n")
    root = tmp_path / name
    code, _, err = run(["--root", str(root), str(EXAMPLES / "models")], capsys)
    assert code == 2
    assert err.strip() == (f"recipe-check: --root {root}: "
                           + ("no such folder" if name == "missing" else "not a folder"))
