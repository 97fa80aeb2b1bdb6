#!/usr/bin/env python3
"""Regenerate vendored vLLM CLI snapshots: ``scripts/refresh_vllm_cli.py VERSION...``.

``VERSION`` may be a release (``0.11.0``, ``0.8.5.post1``), ``all`` (every release on
PyPI from 0.4.2) or ``missing`` (releases not yet pinned in the index).  Snapshots are
written to ``snapshots/vllm-cli/`` (or ``--out DIR``) and pinned in its ``index.json``,
each with its option value kinds in ``types/`` (:mod:`validator.vllm_cli.extract_types`).
Downloads are cached in ``$RECIPE_CHECK_VLLM_CACHE`` (default: ``<tmp>/vllm-cli-cache``).
Written to the project's folder, the compact form shipped in the package is derived
again (``scripts/derive_vllm_cli.py``). Exit status: 0 all written, 1 some failed (or the
compact form could not be derived), 2 the package index could not be read.
See docs/vllm-cli-registry.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validator.vllm_cli.extract import main_vllm_cli
from validator.vllm_cli.extract_types import extract_release
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run :func:`validator.vllm_cli.extract.main_vllm_cli`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("versions", nargs="+", help="release versions, 'all' or 'missing'")
    ap.add_argument("--out", type=Path, default=DEFAULT_REGISTRY_DIR, help="snapshot dir")
    ns = ap.parse_args(argv)
    status = main_vllm_cli(list(ns.versions), ns.out, extract_release)
    if ns.out.resolve() == DEFAULT_REGISTRY_DIR.resolve():
        from scripts.derive_vllm_cli import main as derive

        status = max(status, derive([]))
    return status


if __name__ == "__main__":
    sys.exit(main())
