"""js-yaml (the site's YAML reader) under Node, as an oracle for the loader's tests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

_SCRIPT = """const y = require(%s);
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function typed(key, value) {
  const raw = this[key];
  if (raw instanceof Date) return {date: raw.toISOString()};
  if (raw instanceof Uint8Array) return {bytes: Array.from(raw)};
  return value;
}
process.stdout.write(JSON.stringify(docs.map((doc) => {
  try { return {data: y.load(doc)}; } catch (e) { return {error: e.message}; }
}), typed));
"""


def js_yaml_load(site_dir: Path, tmp_path: Path, docs: list[str]) -> list[dict[str, Any]]:
    """What js-yaml makes of each document: ``{"data": ...}`` (a Date as ``{"date": ISO}``,
    a byte array as ``{"bytes": [...]}``) or ``{"error": message}`` when it refuses it."""
    script = tmp_path / "js_yaml_load.cjs"
    script.write_text(_SCRIPT % json.dumps(str(site_dir / "node_modules" / "js-yaml")))
    done = subprocess.run(["node", str(script)], input=json.dumps(docs), capture_output=True,
                          text=True, timeout=120, check=True)
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result
