"""The speculative ``method`` names each vendored vLLM release accepts in
``--speculative-config``, vendored as ``snapshots/vllm-speculative-config.json``.

The file is derived, by ``scripts/derive_speculative_config.py``, from the same release
artifacts as ``snapshots/vllm-cli/<version>.json`` (each entry records the artifact and its
sha256, which a test requires to be that file's provenance): the ``Literal`` of
``SpeculativeConfig.method`` in the release's source, where the class is a pydantic
dataclass, which checks the ``Literal`` when ``--speculative-config`` builds it (vLLM
0.9.1 on). An earlier release (a standard-library dataclass) takes any method string, and
replaces one it does not know by the method it detects from the draft model: ``None``
there, as for a release the file does not list.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from validator.paths import SNAPSHOTS_DIR

PATH = SNAPSHOTS_DIR / "vllm-speculative-config.json"
FORMAT = "recipe-check/vllm-speculative-config/v1"


@functools.cache
def _methods(path: Path = PATH) -> dict[str, frozenset[str] | None]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: format {doc.get('format')!r}, expected {FORMAT!r}")
    return {version: None if entry["methods"] is None else frozenset(entry["methods"])
            for version, entry in doc["releases"].items()}


def accepted_methods(version: str) -> frozenset[str] | None:
    """The methods vLLM ``version`` accepts, or ``None`` when it rejects none (it does not
    check them, or the vendored file does not describe it)."""
    return _methods().get(version)


def described() -> frozenset[str]:
    """The releases the vendored file describes."""
    return frozenset(_methods())
