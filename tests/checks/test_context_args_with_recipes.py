"""A check of recipes (``check models/``, or one recipe) judges the ``vllm serve``
argument lists of the root's context files too, on their own lines: an unknown flag in a
kv-store deployment or in a taxonomy KV offload option is ``FLAG001`` there, as when the
file is named or changed in a pull request. (It was reported only then: a whole-folder
check passed the flag that every recipe rendering with it prints.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"


@pytest.mark.parametrize("target", ["models/", CHAT])
def test_unknown_flags_of_context_files_are_reported_when_recipes_are_checked(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    (examples_tree / "kv_store").mkdir()
    kv_text = kv_store_text(extra="--bogus-mooncake-flag")
    (examples_tree / KV_STORE).write_text(kv_text)
    taxonomy = examples_tree / "taxonomy.yaml"
    tax_text = taxonomy.read_text() + kv_offload_text("--bogus-offload-flag")
    taxonomy.write_text(tax_text)
    main(["check", "--offline", "--no-cache", "--format", "json", str(examples_tree / target)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    found = sorted((d["path"], f["rule"], f["line"]) for d in doc["documents"]
                   for f in d["findings"] if "bogus" in f["message"])
    assert found == [(KV_STORE, "FLAG001", line_of(kv_text, "--bogus-mooncake-flag")),
                     ("taxonomy.yaml", "FLAG001", line_of(tax_text, "--bogus-offload-flag"))]
