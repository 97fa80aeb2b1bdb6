"""Plain scalars are typed as js-yaml (the site's YAML reader) types them: every short
string over the characters numbers are made of, loaded by :func:`validator.load.load_yaml`
and by js-yaml under Node, must come out as the same JSON value."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
from pathlib import Path
from typing import Any

from validator.load import load_yaml

ALPHABET = "01_8bxoe.+-F"
EXTRA = ["2_0", "0b10100", "1_0_0", "0_20", "0o17", "0x_1F", "-0b11", "1_000.5", "1_0e2",
         "-.5", "+.5", ".5_", "-.Inf", ".NaN", "1.5e+3", "12345678901234567890", "0x1_F",
         "131_072", "0.9_5", "1__2", "_1", "1_"]


def _cases() -> list[str]:
    short = ("".join(t) for n in range(1, 4) for t in itertools.product(ALPHABET, repeat=n))
    return sorted({*short, *EXTRA} - {"-"})  # a lone "-" opens a block sequence


def _key(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return abs(float(value)) if value == 0 else float(value)  # JSON has no -0
    return repr(value)


def test_plain_numbers_are_typed_as_js_yaml_types_them(site_dir: Path, tmp_path: Path) -> None:
    cases = _cases()
    text = "".join(f"k{i}: {c}\n" for i, c in enumerate(cases))
    script = tmp_path / "load.cjs"
    script.write_text(
        f"const y = require({json.dumps(str(site_dir / 'node_modules' / 'js-yaml'))});\n"
        "const d = y.load(require('fs').readFileSync(0, 'utf8'));\n"
        "const out = {};\n"
        "for (const [k, v] of Object.entries(d)) out[k] = typeof v === 'number' ? "
        "(Number.isNaN(v) ? 'NaN' : (v === Infinity ? 'Inf' : (v === -Infinity ? '-Inf' : "
        "{n: v}))) : v;\n"
        "process.stdout.write(JSON.stringify(out));\n")
    done = subprocess.run(["node", str(script)], input=text, capture_output=True, text=True,
                          timeout=120, check=True)
    theirs = json.loads(done.stdout)
    doc = load_yaml(text.encode(), "numbers.yaml")
    assert doc.ok and isinstance(doc.data, dict)
    differ = []
    for i, case in enumerate(cases):
        want = theirs[f"k{i}"]
        want_key = {"Inf": math.inf, "-Inf": -math.inf}.get(want, want) \
            if isinstance(want, str) else want
        if isinstance(want_key, dict):
            want_key = abs(float(want_key["n"])) if want_key["n"] == 0 else float(want_key["n"])
        if _key(doc.data[f"k{i}"]) != (want_key if want_key != "NaN" else "NaN"):
            differ.append((case, want, doc.data[f"k{i}"]))
    assert len(cases) > 1500 and not differ, differ[:20]


def test_underscored_number_is_a_number_with_no_yaml_1_2_claim() -> None:
    doc = load_yaml(b"model:\n  vram_minimum_gb: 2_0\n  base_args: ['--x', 0b11]\n", "n.yaml")
    assert doc.data == {"model": {"vram_minimum_gb": 20, "base_args": ["--x", 3]}}
    assert not [f for f in doc.findings if f.rule == "YAML003" and "2_0" in f.message]
