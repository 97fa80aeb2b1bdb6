"""The ``VLLM_*`` names of a kv-store deployment's ``vllm.env`` (and of a KV offload
option's ``env``) are judged as a strategy's are (``FLAG016``), on the file at the name's
line: by ``check`` of the file and by ``pr`` of a change that adds one (real git)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of
from tests.context_files import KV_STORE, kv_store_text
from validator.cli import main

from .conftest import commit_all

ENV = '  env:\n    VLLM_BOGUS_NOT_A_VAR: "1"\n    VLLM_LOGGING_LEVEL: "INFO"\n'


def _findings(out: str) -> list[tuple[str, str, int, str | None]]:
    doc: dict[str, Any] = json.loads(out)
    return [(d["path"], f["rule"], f["line"], f.get("baseline")) for d in doc["documents"]
            for f in d["findings"] if f["rule"] == "FLAG016"]


def test_an_unknown_vllm_name_in_a_kv_store_env_is_flag016_in_check_and_pr(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example_repo / "kv_store").mkdir()
    (example_repo / KV_STORE).write_text(kv_store_text())
    base = commit_all(example_repo, "kv store")
    text = kv_store_text() + ENV
    (example_repo / KV_STORE).write_text(text)
    head = commit_all(example_repo, "bogus env name")
    line = line_of(text, "VLLM_BOGUS_NOT_A_VAR")
    main(["check", "--offline", "--no-cache", "--format", "json", "--select", "FLAG016",
          str(example_repo / KV_STORE)])
    assert _findings(capsys.readouterr().out) == [(KV_STORE, "FLAG016", line, None)]
    main(["pr", "--offline", "--repo", str(example_repo), "--base", base, "--head", head,
          "--format", "json", "--no-summary"])
    assert (KV_STORE, "FLAG016", line, "new") in _findings(capsys.readouterr().out)
