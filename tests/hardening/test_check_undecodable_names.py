"""``check`` on a recipe whose file name is not valid UTF-8 (byte 0xFF): every report
format says so as ``pr`` does (PROV006, the name written ``bad\\xff.yaml``), writes valid
UTF-8, and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.corpus

ESCAPED = "models/zz/bad\\xff.yaml"


@pytest.fixture()
def bad_name_tree(corpus_copy: Path) -> Path:
    folder = corpus_copy / "models" / "zz"
    folder.mkdir()
    name = os.fsdecode(b"bad\xff.yaml")
    (folder / name).write_bytes((corpus_copy / "models/pfnet/plamo-2-translate.yaml").read_bytes())
    return corpus_copy


def _check(root: Path, *args: str) -> tuple[int, str]:
    """``recipe-check check --offline --no-cache ARGS models/zz/`` in a child process:
    (exit code, stdout decoded strictly as UTF-8); stderr holds no traceback."""
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--no-cache",
                          *args, "models/zz/"], cwd=root, capture_output=True, check=False)
    assert b"Traceback" not in run.stderr, run.stderr.decode("utf-8", "replace")
    return run.returncode, run.stdout.decode("utf-8")


def test_every_report_of_an_undecodable_name_is_utf8_prov006(bad_name_tree: Path,
                                                            tmp_path: Path) -> None:
    code, out = _check(bad_name_tree, "--format", "json")
    assert code == 1
    [doc] = json.loads(out)["documents"]
    assert doc["path"] == ESCAPED
    assert [f["rule"] for f in doc["findings"]] == ["PROV006"]
    assert "not valid UTF-8" in doc["findings"][0]["message"]
    files = {k: tmp_path / f"report.{k}" for k in ("json", "sarif", "summary")}
    code, out = _check(bad_name_tree, "--format", "markdown",
                       *(x for k, p in files.items() for x in (f"--{k}", str(p))))
    assert code == 1 and ESCAPED in out.replace("\\\\", "\\")
    for path in files.values():
        assert "PROV006" in path.read_text(encoding="utf-8")
    assert json.loads(files["sarif"].read_text(encoding="utf-8"))["runs"]
    code, out = _check(bad_name_tree, "--format", "sarif")
    assert code == 1 and "PROV006" in json.loads(out)["runs"][0]["results"][0]["ruleId"]
