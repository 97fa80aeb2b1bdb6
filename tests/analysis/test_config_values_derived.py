"""The vendored per-release values of ``snapshots/vllm-config-values.json``: derived from
the same artifacts as the CLI snapshots, what the derivation reads of a release's source,
and the ``nullable_kvs`` and field judgements of :mod:`validator.analysis.config_values`."""

from __future__ import annotations

import ast

import pytest

from scripts.derive_config_values import config_class, field_values, kvs_options
from tests.derived_snapshots import described_artifacts, snapshot_artifacts
from validator.analysis.config_values import PATH, kvs_refuses, load, refusal


def test_every_release_is_described_from_its_snapshot_artifact() -> None:
    assert described_artifacts(PATH) == snapshot_artifacts(lambda doc: "options" in doc)


def test_the_values_follow_the_releases_sources() -> None:
    known = load()
    assert "--limit-mm-per-prompt" in known["0.8.4"].kvs_options
    assert not known["0.8.5"].kvs_options and not known["0.4.2"].kvs_options
    compile_33 = known["0.33.0"].configs["--compilation-config"]
    assert compile_33.strict and compile_33.fields["cudagraph_mode"] == ("enum_name", frozenset(
        {"NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"}))
    assert not known["0.12.0"].configs["--compilation-config"].strict
    assert known["0.13.0"].configs["--compilation-config"].strict
    assert not known["0.11.0"].configs["--eplb-config"].strict
    assert "--structured-outputs-config" not in known["0.10.2"].configs
    assert known["0.16.0"].configs["--structured-outputs-config"].fields["backend"][1] == {
        "auto", "xgrammar", "guidance", "outlines", "lm-format-enforcer"}
    assert known["0.8.0"].configs["--compilation-config"].fields == {}


ARG_UTILS = """
def nullable_kvs(val): ...
def add_cli_args(parser):
    parser.add_argument('--limit-mm-per-prompt', type=nullable_kvs, default=None)
    parser.add_argument('--max-model-len', type=int)
"""

CONFIG = """
import enum
from typing import Literal
from pydantic import field_validator
from pydantic.dataclasses import dataclass
Backend = Literal["auto", "xgrammar"]
class Mode(enum.Enum):
    NONE = 0
    FULL = 2
    def decode(self): ...
@dataclass(config=ConfigDict(extra="forbid"))
class Config:
    backend: Backend = "auto"
    mode: Mode = None
    level: int | None = None
    renamed: Literal["a"] = "a"
    @field_validator("mode", mode="before")
    @classmethod
    def _mode(cls, value):
        if isinstance(value, str):
            return Mode[value.upper()]
        return value
    @field_validator("mode", "level", mode="wrap")
    @classmethod
    def _skip_none(cls, value, handler):
        if value is None:
            return value
        return handler(value)
    @field_validator("renamed", mode="before")
    @classmethod
    def _renamed(cls, value):
        return value.lower()
"""


def test_the_derivation_reads_kvs_types_literals_enum_names_and_forbidden_extras() -> None:
    assert kvs_options(ARG_UTILS) == ["--limit-mm-per-prompt"]
    tree = ast.parse(CONFIG)
    cls = next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "Config")
    aliases = {t.id: s.value for s in tree.body if isinstance(s, ast.Assign)
               for t in s.targets if isinstance(t, ast.Name)}
    assert field_values(cls, tree, aliases) == {
        "backend": {"kind": "literal", "values": ["auto", "xgrammar"]},
        "mode": {"kind": "enum_name", "values": ["FULL", "NONE"]},
        "level": {"kind": "int"}}  # `renamed` is rewritten before its type sees it
    found = config_class({"vllm/config/x.py": CONFIG}, "Config", ("vllm/config/x.py",))
    assert (found["validated"], found["unknown_keys"]) == (True, "rejected")
    assert found["keys"] == ["backend", "level", "mode", "renamed"]


@pytest.mark.parametrize(("value", "refused"), [
    ("image=4,video=1", False), ("image=4", False), ("", False), (" image = 2 ", False),
    ('{"image":4,"video":1}', True), ("image=four", True), ("image", True),
    ("image=1=2", True)])
def test_nullable_kvs_refuses_what_vllms_type_refuses(value: str, refused: bool) -> None:
    assert kvs_refuses(value) is refused


@pytest.mark.parametrize(("kind", "item", "refused"), [
    ("literal", "xgrammar", False), ("literal", "xgrammer", True), ("literal", 1, True),
    ("enum_name", "full", False), ("enum_name", "FULL_DECODE_ONLI", True),
    ("enum_name", 2, False), ("int", "32", False), ("int", 32.0, False),
    ("int", "thirty-two", True), ("int", 1.5, True), ("int", [1], True), ("int", None, False),
    ("int", True, False), ("", "anything", False)])
def test_a_field_refuses_what_pydantic_refuses(kind: str, item: object, refused: bool) -> None:
    allowed = frozenset({"xgrammar", "auto", "FULL", "FULL_DECODE_ONLY"})
    assert (refusal(kind, allowed, item) is not None) is refused
