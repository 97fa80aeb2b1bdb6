"""``check`` of a recipes root, and of ``quickstart/``, holding a quickstart file whose
name is not valid UTF-8 (byte 0xFE): one PROV006 error as for such a recipe name, written
``q\\xfe.yaml``, and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ESCAPED = "quickstart/q\\xfe.yaml"


def _check(root: Path, target: str) -> tuple[int, list[dict[str, object]]]:
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--no-cache",
                          "--format", "json", target], cwd=root, capture_output=True,
                         check=False)
    assert b"Traceback" not in run.stderr, run.stderr.decode("utf-8", "replace")
    return run.returncode, json.loads(run.stdout.decode("utf-8"))["documents"]


def test_undecodable_quickstart_name_is_one_prov006_error(examples_tree: Path) -> None:
    folder = examples_tree / "quickstart"
    folder.mkdir(exist_ok=True)
    (folder / os.fsdecode(b"q\xfe.yaml")).write_text("hardware_profile: h100\n")
    for target in (".", "quickstart"):
        code, docs = _check(examples_tree, target)
        assert code == 1
        named = [d for d in docs if d["path"] == ESCAPED]
        assert len(named) == 1, target
        findings = named[0]["findings"]
        assert isinstance(findings, list)
        assert [f["rule"] for f in findings] == ["PROV006"]
        assert "not valid UTF-8" in findings[0]["message"]
        assert findings[0]["hint"] == "rename the file to a UTF-8 name in quickstart/"
