"""A ``<<`` merge key that merges a mapping it is itself inside (``meta: &a {<<: *a}``,
directly or through a list of sources) is one ``YAML007`` at the ``<<`` line, saying so
in plain words (never Python's "maximum recursion depth exceeded")."""

from __future__ import annotations

import pytest

from validator.load import load_yaml


@pytest.mark.parametrize(("source", "line", "anchor_line"), [
    (b"meta: &a\n  <<: *a\n", 2, 1),
    (b"meta: &a\n  title: x\nmodel:\n  <<: *a\n  m: &b\n    <<: [*a, *b]\n", 6, 5),
])
def test_a_mapping_merging_itself_is_yaml007_at_the_merge_key(source: bytes, line: int,
                                                               anchor_line: int) -> None:
    doc = load_yaml(source, "self.yaml")
    [finding] = doc.findings
    assert (finding.rule, finding.line, finding.column) == ("YAML007", line, 3 if line == 2 else 5)
    assert "recursion" not in finding.message
    assert f"merges a mapping it is itself inside (the anchor on line {anchor_line})" \
        in finding.message


def test_merging_an_enclosing_mappings_sibling_still_merges() -> None:
    doc = load_yaml(b"meta: &a\n  title: x\nmodel:\n  <<: *a\n  y: 2\n", "t.yaml")
    assert doc.findings == [] and doc.data["model"] == {"y": 2, "title": "x"}
