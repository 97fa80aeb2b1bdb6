#!/usr/bin/env python3
"""Derive the compact vLLM CLI data shipped in the package from the vendored registries:
``scripts/derive_vllm_cli.py [--check]``.

For ``snapshots/vllm-cli`` and the folder in it of each vendored platform plugin
(:data:`validator.vllm_cli.plugins.PLUGINS`), writes ``validator/data/vllm_cli[.<folder>].json``
(:mod:`validator.vllm_cli.compact`). Run it after changing the vendored registries
(``scripts/refresh_vllm_cli.py`` runs it when it writes the project's folder); the tests
fail while a shipped file differs from a fresh derivation. ``--check`` writes nothing and
says which files are stale. Exit status: 0 done (or up to date), 1 a pinned release fails
its pin or does not parse, or (``--check``) a file is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validator.vllm_cli.compact import data_file, derive, encode
from validator.vllm_cli.plugins import PLUGINS
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR, _index


def families() -> list[str]:
    """The vendored folders whose data is shipped: ``""`` (vLLM's own) and each plugin's
    folder name."""
    return ["", *sorted(p.registry_dir.name for p in PLUGINS.values())]


def derived(family: str, root: Path = DEFAULT_REGISTRY_DIR) -> tuple[bytes, list[str]]:
    """The bytes of ``family``'s shipped file, derived now, and the pinned releases left
    out of it (their file fails its pin or does not parse)."""
    folder = (root / family if family else root).resolve()
    pins = dict(_index(folder))
    data = derive(folder, pins)
    return encode(data), sorted(set(pins) - set(data["releases"]))


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) every shipped file; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when stale")
    ns = ap.parse_args(argv)
    status = 0
    for family in families():
        body, missing = derived(family)
        target = data_file(family)
        if missing:
            print(f"{target}: releases failing their pin or not parsing: "
                  f"{', '.join(missing)}; not written", file=sys.stderr)
            status = 1
        elif ns.check:
            if not target.is_file() or target.read_bytes() != body:
                print(f"{target}: stale (run scripts/derive_vllm_cli.py)", file=sys.stderr)
                status = 1
        elif not target.is_file() or target.read_bytes() != body:
            target.write_bytes(body)
            print(f"{target}: written ({len(body)} bytes)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
