"""The speculative ``method`` names each vendored vLLM release accepts in
``--speculative-config``, vendored as ``snapshots/vllm-speculative-config.json``.

The file is derived, by ``scripts/derive_speculative_config.py``, from the same release
artifacts as ``snapshots/vllm-cli/<version>.json`` (each entry records the artifact and its
sha256, which a test requires to be that file's provenance): the ``Literal`` of
``SpeculativeConfig.method`` in the release's source, where the class is a pydantic
dataclass, which checks the ``Literal`` when ``--speculative-config`` builds it (vLLM
0.9.1 on). An earlier release (a standard-library dataclass) takes any method string, and
replaces one it does not know by the method it detects from the draft model: ``None``
there, as for a release the file does not list. The file also gives the top-level keys
each release's ``SpeculativeConfig`` takes, and whether it refuses any other key
(a standard-library dataclass's ``TypeError``; a pydantic one declared with
``extra="forbid"``, 0.16.0 on) or ignores it (pydantic's default, 0.9.1 to 0.15.1), the
methods taken without a draft ``model`` and those refusing ``prompt_lookup_min`` above
``prompt_lookup_max`` (read from the release's ``__post_init__``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.derived import derived_releases

PATH = SNAPSHOTS_DIR / "vllm-speculative-config.json"
FORMAT = "recipe-check/vllm-speculative-config/v1"


@functools.cache
def _releases(path: Path = PATH) -> dict[str, dict[str, Any]]:
    releases = derived_releases(path, FORMAT)
    return {version: {"methods": None if entry["methods"] is None
                      else frozenset(entry["methods"]),
                      "keys": frozenset(entry["keys"]),
                      "strict": entry["unknown_keys"] == "rejected",
                      "without_model": None if entry.get("without_model") is None
                      else frozenset(entry["without_model"]),
                      "lookup_order": frozenset(entry.get("lookup_order") or ())}
            for version, entry in releases.items()}


def accepted_methods(version: str) -> frozenset[str] | None:
    """The methods vLLM ``version`` accepts, or ``None`` when it rejects none (it does not
    check them, or the vendored file does not describe it)."""
    entry = _releases().get(version)
    return None if entry is None else entry["methods"]


def known_keys(version: str) -> frozenset[str]:
    """The top-level keys ``SpeculativeConfig`` of vLLM ``version`` takes (none for a
    release the vendored file does not describe)."""
    entry = _releases().get(version)
    return frozenset() if entry is None else entry["keys"]


def strict_keys(version: str) -> frozenset[str] | None:
    """The keys vLLM ``version`` takes when it refuses every other key (startup fails),
    else ``None`` (it ignores unknown keys, or the vendored file does not describe it)."""
    entry = _releases().get(version)
    return entry["keys"] if entry is not None and entry["strict"] else None


def methods_without_model(version: str) -> frozenset[str] | None:
    """The methods vLLM ``version`` takes with ``num_speculative_tokens`` and no draft
    ``model`` (every other method is refused: "num_speculative_tokens was provided but
    without speculative model"), or ``None`` when that cannot be read per method (before
    vLLM 0.11.0 the test is of the target's model type) or the file does not describe it."""
    entry = _releases().get(version)
    return None if entry is None else entry["without_model"]


def lookup_order_methods(version: str) -> frozenset[str]:
    """The methods for which vLLM ``version`` refuses ``prompt_lookup_min`` above
    ``prompt_lookup_max`` (none for a release the file does not describe)."""
    entry = _releases().get(version)
    return frozenset() if entry is None else entry["lookup_order"]
