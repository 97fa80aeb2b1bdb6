"""The configurations' table (``<page>.configs.js``) is laid out the same by the page
script (run by Node) and by :func:`validator.evidence.site.config_json.layout`, as
``json.dumps(value, indent=2)`` writes each value: commands stored as shared lines, objects
by shape, long arrays and commands as shared chunks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from validator.evidence.site.config_json import (
    ARRAY_CHUNKS,
    EDIT_DEPTH,
    LINES,
    LINES_CHUNKS,
    OBJECT,
    OBJECT_EDIT,
    JsonTable,
    document,
)
from validator.evidence.site.picker_script import PICKER_JS

COMMAND = "vllm serve acme/Mini \\\n  " + " \\\n  ".join(
    f"--option-{i} {i}" for i in range(40))

VALUES: list[Any] = [
    [{"a": [], "b": {}, "c": [1, 2.5, 60.0, 1e-05, -0.0, True, None],
      "é\u202e😀": "line\nbreak \"quoted\" </script> \u2028 \x01\n\n",
      "nested": {"x": [[{}], [[]]]}}], [], {}, "plain", 3, "\n", "a\\\nb\\n\r\n",
    [{"a": [], "b": {}}, {"a": [], "b": {}}], list(range(100)), COMMAND,
    {"command": COMMAND + " \\\n  --extra 1", "argv": COMMAND.split() * 2},
    *({"config": {"hardware": "h200", "variant": "default", "nodes": n, "features": ["a"],
                  "strategy": "single_node_tp", "kv": None, "extra": [n, n + 1]},
       "ok": True, "env": {}} for n in range(12)),
]


def _table() -> dict[str, Any]:
    table = JsonTable()
    return table.data([table.add(v) for v in VALUES])


def test_python_layout_is_json_dumps_and_long_values_are_shared_chunks() -> None:
    data = _table()
    for k, value in enumerate(VALUES):
        assert document(data, k) == json.dumps(value, indent=2) + "\n"
    kinds = {node[0] for node in data["nodes"]}
    assert {OBJECT, OBJECT_EDIT, LINES, ARRAY_CHUNKS, LINES_CHUNKS} <= kinds
    nodes = data["nodes"]
    for node in nodes:  # an edit's chain of bases is short
        depth = 0
        while node[0] == OBJECT_EDIT:
            node, depth = nodes[node[1]], depth + 1
        assert depth <= EDIT_DEPTH
    assert len(data["nodes"]) == len({tuple(n) for n in data["nodes"]})  # stored once
    assert max(len(t) for t in data["texts"]) < 100  # no whole command stored as one text
    assert not any('"--option-1 1' in t for t in data["texts"])


def test_the_page_script_lays_every_value_out_as_python_does() -> None:
    if shutil.which("node") is None:
        pytest.skip("node not found on PATH")
    start = PICKER_JS.index("  function object(n)")
    end = PICKER_JS.index("  function withJson")
    script = ("var J = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
              + PICKER_JS[start:end]
              + "process.stdout.write(JSON.stringify(J.roots.map(function (r) {"
              " return layout(r, '') + '\\n'; })));\n")
    data = _table()
    done = subprocess.run(["node", "-e", script], input=json.dumps(data),
                          capture_output=True, text=True, timeout=120, check=True)
    laid = json.loads(done.stdout)
    assert laid == [document(data, k) for k in range(len(VALUES))]
    assert re.search(r"function layout\(r, ind\)", PICKER_JS)
