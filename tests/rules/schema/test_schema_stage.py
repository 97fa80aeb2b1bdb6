"""The schema stage: JSON Schema errors mapped to the node (and key) they concern."""

from __future__ import annotations

from validator.load import load_yaml
from validator.schema import SchemaValidator


def schema_findings(text: str) -> list[tuple[str, str, int, int]]:
    doc = load_yaml(text.encode(), "models/o/m.yaml")
    found = SchemaValidator().validate(doc, "recipe")
    return [(f.rule, f.pointer, f.line, f.column) for f in found]


def test_bad_key_name_points_at_that_key() -> None:
    found = schema_findings("variants:\n  ok: {}\n  'a/b~c': {}\n")
    assert ("SCHEMA005", "/variants/a~1b~0c", 3, 3) in found


def test_meta_of_the_wrong_type_is_one_type_error_not_a_missing_omni_block() -> None:
    found = schema_findings("meta: [1, 2]\n")
    assert ("SCHEMA001", "/meta", 1, 7) in found
    doc = load_yaml(b"meta: [1, 2]\n", "m.yaml")
    messages = [f.message for f in SchemaValidator().validate(doc, "recipe")]
    assert not any("'omni'" in m for m in messages)


def test_unknown_key_is_a_warning_and_strict_makes_it_an_error() -> None:
    doc = load_yaml(b"meta:\n  titel: x\n", "m.yaml")
    loose = [f for f in SchemaValidator().validate(doc, "recipe") if f.rule == "SCHEMA004"]
    strict = [f for f in SchemaValidator(strict=True).validate(doc, "recipe")
              if f.rule == "SCHEMA004"]
    assert [(f.pointer, f.line, f.column, f.severity.value) for f in loose] == [
        ("/meta/titel", 2, 3, "warning")]
    assert [f.severity.value for f in strict] == ["error"]
