"""REF014 for a value the site iterates but cannot (a mapping or a scalar where a list
belongs: the PR 811 head's ``hardware_overrides.xpu.extra_args: {enforce_eager: true}``)
is reported at the line of that node, never at 1:1 with an empty pointer, and its hint
fits the node's kind (no "quote the value" for a mapping). Faults injected into the real
GLM-5.2 recipe of corpus ``main``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once

GLM = "models/zai-org/GLM-5.2.yaml"

CASES = [
    ('  amd:\n    extra_args:\n      - "--linear-backend"\n      - "aiter"\n'
     '      - "--moe-backend"\n      - "aiter"\n',
     "  amd:\n    extra_args: {enforce_eager: true}\n", "    extra_args: {enforce_eager",
     "not a mapping"),
    ("opt_in_features:\n  - spec_decoding\n", "opt_in_features:\n  spec_decoding: true\n",
     "  spec_decoding: true", "not a mapping"),
    ("opt_in_features:\n  - spec_decoding\n", "opt_in_features: 7\n",
     "opt_in_features: 7", "YAML list"),
]


@pytest.mark.corpus
@pytest.mark.parametrize(("old", "new", "at", "hint"), CASES)
def test_a_value_the_site_cannot_iterate_is_reported_at_its_node(
        corpus_copy: Path, old: str, new: str, at: str, hint: str) -> None:
    text = replace_once(corpus_copy / GLM, old, new)
    found = [f for f in check_tree(corpus_copy, GLM)
             if f.rule == "REF014" and "not iterable" in f.message]
    assert found, "no REF014"
    for finding in found:
        assert finding.pointer != ""
        assert finding.line == line_of(text, at)
        assert finding.hint and hint in finding.hint
        assert "quote the value" not in finding.hint
