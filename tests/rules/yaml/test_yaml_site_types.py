"""YAML011: timestamps and ``!!binary`` values where the site renders text (argument lists,
environment values) are reported at the value, with what js-yaml makes of them (the
Dates and bytes are checked against js-yaml under Node in
``tests/render/test_yaml_site_types.py``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, write_tiny
from validator.load import load_yaml


def test_timestamp_and_binary_in_a_command_are_reported_at_the_value() -> None:
    text = ('model:\n  date_added: 2024-01-01\n  base_args:\n    - "--served-model-name"\n'
            '    - 2024-01-01\n    - "--x"\n    - !!binary aGk=\n  base_env:\n'
            "    STAMP: 2024-01-01T10:00:00Z\n")
    doc = load_yaml(text.encode(), "r.yaml")
    found = [(f.rule, f.pointer, f.line, f.column) for f in doc.findings]
    assert found == [("YAML011", "/model/base_args/1", 5, 7),
                     ("YAML011", "/model/base_args/3", 7, 7),
                     ("YAML011", "/model/base_env/STAMP", 9, 12)]
    arg, blob, env = doc.findings
    assert "Date 2024-01-01T00:00:00.000Z" in arg.message and "throws" in arg.message
    assert arg.hint == 'quote it: "2024-01-01"'
    assert "2 bytes" in blob.message and "throws" in blob.message
    assert "Mon Jan 01 2024 10:00:00 GMT+0000" in env.message
    # the data keeps the text; a date outside a command (meta dates) is the site's own
    assert doc.data["model"]["base_args"][1] == "2024-01-01"


def test_quoted_values_and_dates_elsewhere_pass() -> None:
    text = ('meta:\n  date_added: 2024-01-01\nmodel:\n  base_args: ["--served-model-name", '
            '"2024-01-01", "--x", "2024-1-1"]\n  base_env: {STAMP: "2024-01-01T10:00:00Z"}\n')
    doc = load_yaml(text.encode(), "r.yaml")
    assert doc.findings == []


def test_binary_outside_a_command_is_reported_and_bad_base64_refused() -> None:
    doc = load_yaml(b"meta:\n  description: !!binary aGk=\n  title: !!binary '#'\n", "r.yaml")
    assert [(f.rule, f.line) for f in doc.findings] == [("YAML011", 2), ("YAML008", 3)]
    assert "throws" not in doc.findings[0].message


def test_the_whole_pipeline_reports_an_unquoted_date_in_the_args(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '    - "--served-model-name"\n    - 2026-01-01\n')
    found = [(f.rule, f.line) for f in check_tree(corpus_copy, PATH) if f.severity == "error"]
    assert found == [("YAML011", line_of(text, "2026-01-01"))]
    write_tiny(corpus_copy, '    - "--served-model-name"\n    - "2026-01-01"\n')
    assert [f for f in check_tree(corpus_copy, PATH) if f.severity == "error"] == []
