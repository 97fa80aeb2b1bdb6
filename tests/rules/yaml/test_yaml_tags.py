"""Explicit core tags are read as js-yaml reads them (the tag types the text, quoted or
not), and a tag whose type cannot take the text is YAML008."""

from __future__ import annotations

from validator.load import load_yaml


def test_tagged_quoted_scalars_take_the_tag_type() -> None:
    doc = load_yaml(b'model:\n  context_length: !!int "131072"\n  ratio: !!float "1"\n'
                    b'  flag: !!bool "true"\n  name: !!str 5\n  size: !!int 1_000\n', "r.yaml")
    assert doc.findings == []
    assert doc.data == {"model": {"context_length": 131072, "ratio": 1.0, "flag": True,
                                  "name": "5", "size": 1000}}


def test_tag_that_cannot_type_its_text_is_reported_at_its_line() -> None:
    doc = load_yaml(b'variants:\n  default:\n    vram_minimum_gb: !!int "80GB"\n', "r.yaml")
    (finding,) = doc.findings
    assert (finding.rule, finding.line, finding.pointer) == (
        "YAML008", 3, "/variants/default/vram_minimum_gb")
    assert "not an integer" in finding.message
    assert doc.data["variants"]["default"]["vram_minimum_gb"] == "80GB"


def test_untagged_quoted_scalar_stays_a_string() -> None:
    doc = load_yaml(b'model:\n  context_length: "131072"\n', "r.yaml")
    assert doc.data == {"model": {"context_length": "131072"}} and doc.findings == []


def test_tags_js_yaml_does_not_know_are_yaml009_at_the_tag() -> None:
    doc = load_yaml(b"meta:\n  title: !draft Qwen3\n  tasks: !!python/tuple [text]\n"
                    b"  equals: !!value =\n", "r.yaml")
    assert [(f.rule, f.line, f.column, f.pointer) for f in doc.findings] == [
        ("YAML009", 2, 10, "/meta/title"), ("YAML009", 3, 10, "/meta/tasks"),
        ("YAML009", 4, 11, "/meta/equals")]
    assert "unknown tag '!draft'" in doc.findings[0].message
    assert "'!!python/tuple'" in doc.findings[1].message
    assert doc.data == {"meta": {"title": "Qwen3", "tasks": ["text"], "equals": "="}}


def test_tags_of_the_js_yaml_default_schema_are_not_reported() -> None:
    doc = load_yaml(b"a: =\nb: ! x\nc: !!set {x}\nd: !!omap [{x: 1}]\ne: 2001-12-14\n"
                    b"f: !<tag:yaml.org,2002:str> y\ng: !!map {k: v}\nh: !!seq [1]\n", "r.yaml")
    assert [f.rule for f in doc.findings if f.rule == "YAML009"] == []
