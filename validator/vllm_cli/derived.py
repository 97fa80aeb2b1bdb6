"""Reading the per-release files derived from vLLM's release artifacts by the
``scripts/derive_*.py`` scripts (``snapshots/vllm-speculative-config.json``,
``vllm-kv-transfer-config.json``, ``vllm-env-kinds.json``): one JSON object with its
``format`` and a ``releases`` map of version -> what that release's sources say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator.state_json import parse_json


def derived_releases(path: Path, fmt: str) -> dict[str, Any]:
    """The ``releases`` map (version -> entry) of the derived file ``path``, whose
    ``format`` must be ``fmt``.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not JSON, or of another format.
    """
    doc: Any = parse_json(path.read_bytes(), fast=True)
    if doc.get("format") != fmt:
        raise ValueError(f"{path}: format {doc.get('format')!r}, expected {fmt!r}")
    releases: dict[str, Any] = doc["releases"]
    return releases
