"""A ``%`` in the name of a file of the tree is a character of that name: ``pr``,
``check`` and ``history`` read and judge the file alike (``pr`` judges files as ``check``
does); only a path typed in a spec (``OWNER/REPO@REV:PATH``) may not hold ``%XX``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"
ODD = "models/pct%2e/A%20B.yaml"


def _findings(doc: dict[str, Any], path: str) -> list[tuple[str, int, str]]:
    return [(f["rule"], f["line"], f["message"]) for d in doc["documents"]
            if d["path"] == path for f in d["findings"]]


def test_a_percent_in_a_file_name_is_judged_by_pr_as_check_judges_it(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = git(example_repo, "rev-parse", "HEAD")
    (example_repo / ODD).parent.mkdir(parents=True)
    shutil.copy(example_repo / CHAT, example_repo / ODD)
    head = commit_all(example_repo, "a recipe whose path holds %")
    main(["check", "--offline", "--no-cache", "--format", "json", str(example_repo / ODD)])
    checked = _findings(json.loads(capsys.readouterr().out), ODD)
    main(["pr", "--repo", str(example_repo), "--base", base, "--head", head, "--offline",
          "--format", "json", "--no-summary"])
    in_pr = _findings(json.loads(capsys.readouterr().out), ODD)
    assert not [f for f in in_pr if f[0] == "PROV005"], in_pr
    assert in_pr == checked
    assert checked  # the copy's model_id names another path: the file is judged


def test_a_percent_escape_typed_in_a_spec_is_still_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--offline", "vllm-project/recipes@main:models/%2e%2e/x.yaml"])
    assert code == 2
    assert "percent-encoded" in capsys.readouterr().err
