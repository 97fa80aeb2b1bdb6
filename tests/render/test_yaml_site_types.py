"""The Dates and byte arrays YAML011 names are the ones js-yaml (the site's YAML reader)
builds under Node from the same scalars."""

from __future__ import annotations

import json
from pathlib import Path

from tests.render.js_yaml_oracle import js_yaml_load
from validator.load.scalars import js_binary_bytes, js_timestamp_iso

STAMPS = ["2024-01-01", "2024-02-30", "0050-01-01", "2024-1-1 1:02:03", "2024-01-01T10:00:00Z",
          "2024-01-01t10:00:00.123456-05:30", "2024-12-31 23:59:59.5 +2", "2024-13-01",
          "2024-1-1", "2024-01-01T10:00:00 Z", "2024-01-01T1:00"]
BLOBS = ["aGVsbG8=", "aGk=", "aG\nk=", "aG\n  k=", "", "AAEC/w==", "a=Gk", "aGk", "a#b", "QQ"]


def test_dates_and_bytes_are_the_ones_js_yaml_builds(site_dir: Path, tmp_path: Path) -> None:
    docs = [f"v: {s}\n" for s in STAMPS] + [f"v: !!binary {json.dumps(s)}\n" for s in BLOBS]
    theirs = [r["data"]["v"] if "data" in r else "refused"
              for r in js_yaml_load(site_dir, tmp_path, docs)]
    ours: list[object] = []
    for stamp in STAMPS:
        iso = js_timestamp_iso(stamp)
        ours.append(stamp if iso is None else {"date": iso})
    for blob in BLOBS:
        data = js_binary_bytes(blob)
        ours.append({"bytes": list(data)} if data is not None else "refused")
    assert ours == theirs
    assert "refused" in theirs and sum(isinstance(t, dict) for t in theirs) > 10
