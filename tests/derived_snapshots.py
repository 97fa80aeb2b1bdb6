"""What the per-release files derived from vLLM's artifacts (``scripts/derive_*.py``)
must describe: the releases of the vendored CLI snapshots (``snapshots/vllm-cli``) that
have what the file is about, each from the same artifact (name and SHA-256)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from validator.paths import SNAPSHOTS_DIR
from validator.state_json import parse_json

Artifacts = dict[str, tuple[str, str]]
"""Release version -> (artifact file name, its SHA-256)."""


def described_artifacts(path: Path) -> Artifacts:
    """The artifact each release of the derived file at ``path`` was read from."""
    entries = parse_json(path.read_bytes())["releases"]
    return {v: (e["artifact"], e["sha256"]) for v, e in entries.items()}


def snapshot_artifacts(selected: Callable[[dict[str, Any]], bool]) -> Artifacts:
    """The artifact of each vendored CLI snapshot ``selected`` keeps."""
    found = {}
    for path in (SNAPSHOTS_DIR / "vllm-cli").glob("*.json"):
        doc = parse_json(path.read_bytes())
        if selected(doc):
            found[doc["version"]] = (doc["provenance"]["artifact"],
                                     doc["provenance"]["sha256"])
    return found


def registers(option: str) -> Callable[[dict[str, Any]], bool]:
    """Keeps a snapshot whose release registers ``option``."""
    return lambda doc: "options" in doc and any(option in o["strings"]
                                                for o in doc["options"])
