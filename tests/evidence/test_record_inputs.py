"""A record cites the data the run's checks read: the CLI registries and release list of
the settings' vendored data folder (a ``data`` command's ``--vendored-dir``), not the
project's ``snapshots/`` whenever the run pointed elsewhere."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from tests.evidence.test_facts import RECIPE
from validator.context import Settings
from validator.evidence.record import build_record, record_bytes
from validator.paths import CHECKOUT_DIR
from validator.source.git import GitTree

SNAPSHOTS = CHECKOUT_DIR / "snapshots"


def _inputs(tree: GitTree, settings: Settings | None) -> dict[str, dict[str, Any]]:
    record = json.loads(record_bytes(build_record(tree, "models/acme/Tiny.yaml",
                                                  checked_on="2026-01-02",
                                                  settings=settings)))
    return {i["name"]: i for i in record["validation"]["inputs"]}


def _data_folder(tmp_path: Path) -> Path:
    """A vendored data folder of our own: the project's release list, and CLI registries
    whose index pins only the releases from 0.20.0 on."""
    data = tmp_path / "data"
    shutil.copytree(SNAPSHOTS / "vllm-cli", data / "vllm-cli")
    for name in ("vllm-releases.json", "vllm-releases.sha256"):
        shutil.copy(SNAPSHOTS / name, data / name)
    index = data / "vllm-cli" / "index.json"
    pins = json.loads(index.read_text("utf-8"))
    kept = {v: d for v, d in pins.items() if tuple(map(int, v.split(".")[:2])) >= (0, 20)}
    assert 2 < len(kept) < len(pins)
    index.write_text(json.dumps(kept, indent=1) + "\n", "utf-8")
    return data


def test_a_record_cites_the_registries_of_the_run_not_the_projects(tmp_path: Path) -> None:
    tree = make_repo(tmp_path / "repo", {
        "models/acme/Tiny.yaml": RECIPE, "taxonomy.yaml": MINI_TAXONOMY,
        "strategies/single_node_tp.yaml": MINI_STRATEGY})
    data = _data_folder(tmp_path)
    ours = _inputs(tree, Settings(offline=True, vendored_dir=data))
    index = data / "vllm-cli" / "index.json"
    entry = ours["vllm-cli-registry-index"]
    assert entry["path"] == str(index)
    assert entry["sha256"] == hashlib.sha256(index.read_bytes()).hexdigest()
    pinned = len(json.loads(index.read_text("utf-8")))
    assert entry["note"] == f"{pinned} vendored vLLM versions"
    registry = ours["vllm-cli-registry"]
    assert registry["status"] == "used" and registry["version"] == "0.20.0"
    assert registry["path"] == str(data / "vllm-cli" / "0.20.0.json")
    assert ours["vllm-release-list"]["path"] == str(data / "vllm-releases.json")

    default = _inputs(tree, None)  # the project's data, cited by project path
    assert default["vllm-cli-registry-index"]["path"] == "snapshots/vllm-cli/index.json"
    assert default["vllm-cli-registry-index"]["sha256"] != entry["sha256"]
    assert default["vllm-cli-registry"]["path"] == "snapshots/vllm-cli/0.20.0.json"
    assert default["vllm-release-list"]["path"] == "snapshots/vllm-releases.json"
