"""A tab that indents a comment or blank line: libyaml stops there, js-yaml (the site's
YAML reader) reads on. The loader must accept exactly what js-yaml accepts among such
files, give the same data, and say YAML012 (warning) instead of a false YAML001."""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.render.js_yaml_oracle import js_yaml_load
from validator.load import load_yaml

BEFORE = ["a: 1\n", 'a: "1"\n', "a: [1]\n", "a:\n", "a:\n  - x\n", "a:\n  b: 1\n",
          "a: |\n  x\n", "a: >\n  x\n", "a: 1 # c\n", "a: x\n", "a: [1,\n", "a: |-\n    x\n",
          "a:\n  b:\n    - x\n"]
TABBED = ["\t# c\n", "\t\n", "\t  # c\n", "\t\t# c\n", " \t# c\n", "  \t\n", "\t#\t c\n",
          "   \t# c\n"]
AFTER = ["c: 2\n", "  c: 2\n", "  - y\n", "  y\n", "  2]\n", "    - y\n", ""]


def _cases() -> list[str]:
    return [b + t + a for b, t, a in itertools.product(BEFORE, TABBED, AFTER)]


def test_tabbed_comment_lines_are_read_as_js_yaml_reads_them(site_dir: Path,
                                                             tmp_path: Path) -> None:
    cases = _cases()
    theirs = js_yaml_load(site_dir, tmp_path, cases)
    differ = []
    tolerated = 0
    for case, their in zip(cases, theirs, strict=True):
        doc = load_yaml(case.encode(), "t.yaml")
        rules = {f.rule for f in doc.findings}
        ours_ok = not [f for f in doc.findings if f.severity == "error"]
        if ours_ok != ("data" in their) or (ours_ok and doc.data != their["data"]):
            differ.append((case, their, doc.data, sorted(rules)))
        if ours_ok and "YAML012" in rules:
            tolerated += 1
    assert not differ, differ
    assert tolerated > 20  # the class is exercised, not only files libyaml reads anyway


def test_a_tab_before_a_comment_is_a_warning_at_the_tab() -> None:
    doc = load_yaml(b'model:\n  base_args:\n    - "--a"\n\t# later\n    - "--b"\n', "r.yaml")
    assert doc.data == {"model": {"base_args": ["--a", "--b"]}}
    (finding,) = doc.findings
    assert (finding.rule, finding.severity, finding.line, finding.column) == (
        "YAML012", "warning", 4, 1)
    assert "js-yaml (the recipes site) reads the file" in finding.message


def test_a_tab_that_indents_a_key_is_still_invalid() -> None:
    doc = load_yaml(b"model:\n\tbase_args: []\n", "r.yaml")
    assert doc.data is None and [f.rule for f in doc.findings] == ["YAML001"]
