"""Add the value-type facts of a fresh extraction to the vendored vLLM CLI snapshots.

``python scripts/add_value_types.py FRESH_DIR [SNAPSHOT_DIR]``

``FRESH_DIR`` holds snapshots written by ``python -m validator.vllm_cli.extract VERSION...
--out FRESH_DIR`` with the current ``_introspect.py``, which records per option
``json_takes_string`` (a JSON option's type also takes a plain string: vLLM's
``union_dict_and_str``) and ``parses_json`` (the type decodes JSON, old custom types
included). Only those two fields are copied into the vendored snapshot of the same
release, matched by option strings and ``dest``: every other vendored fact stays as it was
(a fresh extraction can differ in facts that depend on the environment, such as which
optional backends a stubbed import offers). Each rewritten file is re-pinned in
``index.json``. Releases without a fresh snapshot are left untouched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's validator

from validator.vllm_cli.extract import write_snapshot
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR, INDEX_NAME

FIELDS = ("json_takes_string", "parses_json")


def merge(fresh_dir: Path, snapshot_dir: Path) -> list[str]:
    """Copy :data:`FIELDS` from ``fresh_dir`` into ``snapshot_dir``; the versions done."""
    done = []
    for path in sorted(snapshot_dir.glob("*.json")):
        if path.name == INDEX_NAME:
            continue
        fresh_path = fresh_dir / path.name
        if not fresh_path.is_file():
            continue
        vendored = json.loads(path.read_text("utf-8"))
        fresh = json.loads(fresh_path.read_text("utf-8"))
        facts = {(tuple(o["strings"]), o["dest"]): o for o in fresh["options"]}
        for option in vendored["options"]:
            found = facts.get((tuple(option["strings"]), option["dest"]))
            for name in FIELDS:
                if found is not None and name in found:
                    option[name] = found[name]
        write_snapshot(vendored, snapshot_dir)
        done.append(str(vendored["version"]))
    return done


def main(argv: list[str]) -> int:
    """Entry point; exit 2 on a usage error."""
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    snapshot_dir = Path(argv[1]) if len(argv) == 2 else DEFAULT_REGISTRY_DIR
    done = merge(Path(argv[0]), snapshot_dir)
    print(f"value types added to {len(done)} snapshot(s): {', '.join(done)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
