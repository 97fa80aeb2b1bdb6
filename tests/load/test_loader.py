"""The YAML 1.2 loader and its source map."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.load import LoadedDocument, load_yaml, resolve_plain
from validator.sourcemap import join_pointer, split_pointer


def rules(doc: LoadedDocument) -> list[tuple[str, int, int, str]]:
    return [(f.rule, f.line, f.column, f.pointer) for f in doc.findings]


def test_core_schema_resolution() -> None:
    assert resolve_plain("true") is True and resolve_plain("False") is False
    assert resolve_plain("yes") == "yes" and resolve_plain("off") == "off"
    assert resolve_plain("0777") == 777 and resolve_plain("0o17") == 15
    assert resolve_plain("0x1f") == 31 and resolve_plain("1.5e3") == 1500.0
    assert resolve_plain("~") is None and resolve_plain("") is None
    assert resolve_plain("1:20") == "1:20"


def test_source_map_positions_every_key_value_and_item() -> None:
    text = b"meta:\n  title: \"A\"\n  tasks:\n    - text\n    - vision\nmodel:\n  id: x\n"
    doc = load_yaml(text, "t.yaml")
    smap = doc.source_map
    assert smap.position("/meta/title") == (2, 10)
    assert smap.key_position("/meta/title") == (2, 3)
    assert smap.position("/meta/tasks/1") == (5, 7)
    assert smap.position("/model/id") == (7, 7)
    # a missing node falls back to its nearest mapped ancestor
    assert smap.position("/model/missing") == (6, 1)


def test_block_scalar_lines_map_to_file_lines() -> None:
    text = "a: 1\nguide: |\n  ## Title\n\n  line three\n    indented\nb: 2\n"
    doc = load_yaml(text.encode(), "t.yaml")
    assert doc.data["guide"].splitlines()[2] == "line three"
    assert doc.source_map.block_line("/guide", 0) == (3, 3)
    assert doc.source_map.block_line("/guide", 2) == (5, 3)
    assert text.splitlines()[doc.source_map.block_line("/guide", 3)[0] - 1].strip() == "indented"


def test_crlf_and_bom_keep_line_numbers() -> None:
    text = "\ufeffa: 1\r\nb:\r\n  c: yes\r\nguide: |\r\n  one\r\n  two\r\n"
    doc = load_yaml(text.encode("utf-8"), "t.yaml")
    assert doc.data["b"] == {"c": "yes"}
    assert rules(doc) == [("YAML003", 3, 6, "/b/c")]
    assert doc.source_map.block_line("/guide", 1) == (6, 3)


def test_duplicate_key_is_an_error_at_the_second_key() -> None:
    doc = load_yaml(b"model:\n  id: a\n  name: m\n  id: b\n", "t.yaml")
    assert rules(doc) == [("YAML002", 4, 3, "/model/id")]
    assert "first defined on line 2" in doc.findings[0].message
    assert doc.data == {"model": {"id": "a", "name": "m"}}


@pytest.mark.parametrize(
    ("source", "rule", "quoted"),
    [
        ("flag: yes", "YAML003", "yes"),
        ("flag: Off", "YAML003", "Off"),
        ("mode: 0777", "YAML003", "0777"),
        ("time: 1:20", "YAML003", "1:20"),
        ("min_vllm_version: 0.10", "YAML004", "0.10"),
        ("min_vllm_version: 0.9", "YAML004", "0.9"),
        ("ratio: 1.50", "YAML004", "1.50"),
    ],
)
def test_type_ambiguity_findings_quote_the_source(source: str, rule: str, quoted: str) -> None:
    doc = load_yaml(source.encode() + b"\n", "t.yaml")
    assert [f.rule for f in doc.findings] == [rule]
    assert f"`{quoted}`" in doc.findings[0].message


@pytest.mark.parametrize("source", ["ratio: 0.9", 'min_vllm_version: "0.10"', "n: 12", "b: true",
                                    "count: 1_000", "mask: 0b101"])  # numbers in both
def test_unambiguous_scalars_raise_nothing(source: str) -> None:
    assert load_yaml(source.encode(), "t.yaml").findings == []


def test_invalid_yaml_is_a_finding_with_position() -> None:
    doc = load_yaml(b"a: 1\nb: [1, 2\nc: 3\n", "t.yaml")
    assert doc.data is None
    assert [f.rule for f in doc.findings] == ["YAML001"]
    assert doc.findings[0].line == 3


@pytest.mark.parametrize(
    ("raw", "rule"),
    [(b"", "YAML005"), (b"# only a comment\n", "YAML005"), (b"- a\n- b\n", "YAML005"),
     (b"just text\n", "YAML005"), (b"- a\n---\nb: 2\n", "YAML005"),
     (b"a: \xff\xfe\n", "YAML006"), (b"a: 1\x00\n", "YAML006")],
)
def test_documents_that_are_not_one_mapping(raw: bytes, rule: str) -> None:
    doc = load_yaml(raw, "t.yaml")
    assert doc.data is None and [f.rule for f in doc.findings] == [rule]


def test_the_first_of_several_documents_is_loaded_beside_yaml005() -> None:
    doc = load_yaml(b"a: 1\n---\nb: 2\n", "t.yaml")
    assert doc.data == {"a": 1} and [f.rule for f in doc.findings] == ["YAML005"]


def test_size_limit() -> None:
    doc = load_yaml(b"a: " + b"x" * 100 + b"\n", "t.yaml", max_bytes=50)
    assert [f.rule for f in doc.findings] == ["YAML007"]


def test_alias_bomb_is_bounded() -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    doc = load_yaml("\n".join(lines).encode(), "bomb.yaml")
    assert doc.data is None and [f.rule for f in doc.findings] == ["YAML007"]


def test_merge_keys_and_explicit_tags() -> None:
    doc = load_yaml(b"base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\nt: !!str 0777\n", "t.yaml")
    assert doc.data["c"] == {"y": 2, "x": 1}
    assert doc.data["t"] == "0777"
    assert doc.findings == []


def test_pointer_escaping_round_trip() -> None:
    pointer = join_pointer(join_pointer("", "a/b"), "c~d")
    assert pointer == "/a~1b/c~0d"
    assert split_pointer(pointer) == ["a/b", "c~d"]
    doc = load_yaml(b'"a/b":\n  "c~d": 1\n', "t.yaml")
    assert doc.source_map.position(pointer) == (2, 10)


def test_loads_every_recipe_at_corpus_main(corpus_repo: Path) -> None:
    files = sorted((corpus_repo / "models").rglob("*.yaml"))
    assert len(files) == 173
    for path in files:
        doc = load_yaml(path.read_bytes(), str(path))
        assert doc.ok, (path, doc.findings)
        guide = doc.data.get("guide")
        if isinstance(guide, str) and "/guide" in doc.source_map.blocks:
            # every guide line maps onto the file line holding the same text
            lines = path.read_text("utf-8").splitlines()
            for index, text in enumerate(guide.splitlines()):
                line, col = doc.source_map.block_line("/guide", index)
                assert lines[line - 1][col - 1:] == text, (path, index)


def test_key_overriding_a_merge_points_at_its_own_line() -> None:
    doc = load_yaml(b"base: &b\n  x: 1\n  y: 2\nother:\n  <<: *b\n  x: 5\n", "t.yaml")
    assert doc.data["other"] == {"x": 5, "y": 2}
    assert doc.source_map.position("/other/x") == (6, 6)
    assert doc.source_map.position("/other/y") == (3, 6)
