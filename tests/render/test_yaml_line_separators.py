"""U+0085, U+2028 and U+2029 in a YAML text: js-yaml (the site's reader) reads them as
ordinary characters in any scalar, key or comment; libyaml breaks lines at them. The
loader must read each file as js-yaml does (the same data, no false ``YAML001``) and
name each such character as ``YAML010`` at its real (GitHub) line."""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.render.js_yaml_oracle import js_yaml_load
from validator.load import load_yaml

SEPARATORS = ["\x85", "\u2028", "\u2029"]
PLACES = ["a: Fits a{c}single GPU\n", "a: x{c}\n", "a: {c}x\n", "a{c}b: 1\n",
          "a: |\n  ## Over{c}view\n  more\n", "a: >\n  one{c}two\n  three\n",
          'a: "x{c}y"\n', "a: 'x{c}y'\n", "a: 1 # c{c}omment\n", "a:\n  - x{c}y\n",
          "a: [x{c}y, z]\n", "a: x\n  y{c}z\n"]
AFTER = ["", "b: 2\n"]


def test_each_libyaml_only_break_is_read_as_js_yaml_reads_it(site_dir: Path,
                                                            tmp_path: Path) -> None:
    cases = [place.format(c=c) + after
             for place, c, after in itertools.product(PLACES, SEPARATORS, AFTER)]
    theirs = js_yaml_load(site_dir, tmp_path, cases)
    differ = []
    for case, their in zip(cases, theirs, strict=True):
        doc = load_yaml(case.encode(), "t.yaml")
        rules = [f.rule for f in doc.findings if f.severity == "error" or f.rule == "YAML010"]
        errors = [r for r in rules if r != "YAML010"]
        if "data" not in their or errors or doc.data != their["data"] or not rules:
            differ.append((case, their, doc.data, errors))
    assert not differ, differ


def test_a_line_separator_in_the_example_recipes_guide_is_yaml010_at_its_line() -> None:
    text = (EXAMPLES / "models/example-org/Example-Chat-8B.yaml").read_text("utf-8")
    text = text.replace("## Overview", "## Over\u2028view", 1).replace(
        '"Fits a single GPU in BF16"', "Fits a\u2028single GPU in BF16", 1)
    doc = load_yaml(text.encode(), "models/example-org/Example-Chat-8B.yaml")
    lines = text.split("\n")
    expected = sorted((n, line.index("\u2028") + 1) for n, line in enumerate(lines, 1)
                      if "\u2028" in line)
    assert len(expected) == 2
    assert sorted((f.rule, f.line, f.column) for f in doc.findings) == [
        ("YAML010", n, col) for n, col in expected]
    assert "U+2028" in doc.findings[0].message
    assert doc.data["meta"]["performance_headline"] == "Fits a\u2028single GPU in BF16"
    assert "## Over\u2028view\n" in doc.data["guide"]
