"""SCHEMA hints give the schema's description without repeating what the message says
(the enum's members are in the message already)."""

from __future__ import annotations

from pathlib import Path

from validator.load import load_yaml
from validator.schema import SchemaValidator

RECIPE = (Path(__file__).resolve().parents[3] / "examples" / "recipes" / "models"
          / "example-org" / "Example-Chat-8B.yaml")


def schema_findings(old: str, new: str) -> list[tuple[str, str, str | None]]:
    text = RECIPE.read_text()
    assert old in text
    doc = load_yaml(text.replace(old, new, 1).encode(), "models/example-org/Example-Chat-8B.yaml")
    return [(f.rule, f.message, f.hint) for f in SchemaValidator().validate(doc, "recipe")]


def test_an_enum_hint_does_not_list_the_members_again() -> None:
    [(rule, message, hint)] = schema_findings("precision: bf16", 'precision: "int2/4/8"')
    assert rule == "SCHEMA002" and "bf16, fp16, fp8" in message
    assert hint is not None and hint.strip()
    assert "bf16" not in hint and "fp16" not in hint  # said once, in the message
    assert "precision" in hint.lower()  # what the key means is kept


def test_a_hint_that_explains_the_members_is_kept() -> None:
    [(rule, message, hint)] = schema_findings("h100: verified", "h100: tested")
    assert rule == "SCHEMA002" and "verified, supported, unsupported" in message
    assert hint is not None and "tested end to end" in hint
