"""A record page's picker is made from hundreds of configurations that repeat most of
their parts; each repeated part is worked on once, and the table and page stay what they
were: the configurations' JSON table looks a flat array or object (an argv list, a token)
up whole when it was stored before and walks a process or token the renderings share
once; the strings table shows a string's hidden characters once per string; a new block
is indexed once for every earlier block it is compared with; a finding's pointer is
compared once per distinct set of pointers the renderings' commands use."""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.test_record_page_picker import MINI, PATH
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.context import build_context
from validator.evidence.site import configurations, verdicts
from validator.evidence.site.config_json import JsonTable, Shared, layout
from validator.evidence.site.configurations import _Blocks, _Table
from validator.evidence.site.html import shown
from validator.load import load_yaml
from validator.render.offered import offered_renderings, rendering_json

ALIKE: list[Any] = [[1], [True], [0], [False], [None], ["1"], [1.0], [-0.0], [0.0],
                    {"a": 1}, {"a": True}, {"a": "1"}, {"a": None}, [1, "x"], [True, "x"],
                    ["x", "y"], ("x", "y"), {"a": ["x"]}, {"a": [1]}, [[1]], [[True]]]
"""Values Python finds equal in pairs (``True == 1``, ``-0.0 == 0.0``, a tuple and a
list) whose JSON differs, or does not."""


def test_values_equal_in_python_but_not_in_json_stay_apart() -> None:
    table = JsonTable()
    refs = [table.add(v) for v in ALIKE]
    data = table.data(refs)
    for value, ref in zip(ALIKE, refs, strict=True):
        assert layout(data, ref) == json.dumps(value, indent=2)


def test_a_value_added_again_stores_nothing_and_gives_the_same_reference() -> None:
    table = JsonTable()
    refs = [table.add(v) for v in ALIKE]
    before = copy.deepcopy(table.data(refs))
    assert [table.add(copy.deepcopy(v)) for v in ALIKE] == refs
    assert table.data(refs) == before


def test_a_flat_array_or_object_added_again_is_not_walked_item_by_item(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = JsonTable()
    argv = ["vllm", "serve", "acme/Mini", "--max-model-len", "4096", "--flag", None, 8, True]
    token = {"text": "--flag", "layer": "model.base_args", "pointer": "/model/base_args/0",
             "document": "models/acme/Mini.yaml"}
    first = table.add([argv, token])
    scalars: list[Any] = []
    scalar = table._scalar

    def counted(value: Any) -> int:
        scalars.append(value)
        return scalar(value)

    monkeypatch.setattr(table, "_scalar", counted)
    assert table.add([list(argv), dict(token)]) == first
    assert scalars == []


def test_a_shared_process_or_token_is_walked_once(tmp_path: Path) -> None:
    tree = make_repo(tmp_path / "repo", {PATH: MINI, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    offered = offered_renderings(load_yaml(tree.read(PATH), PATH), build_context(tree))
    process = offered[0].rendered.processes[0]
    made: list[object] = []

    def shared(owner: object, make: Callable[[], Any]) -> Shared:
        def counted() -> Any:
            made.append(owner)
            return make()

        return Shared(owner, counted)

    table = JsonTable()
    refs = [table.add(rendering_json(o.rendered, [], shared)) for o in offered[:1] * 3]
    assert made[0] is process and len(set(refs)) == 1
    assert len({id(owner) for owner in made}) == len(made)  # each process or token once
    assert {id(t) for t in process.tokens} <= {id(owner) for owner in made}
    assert layout(table.data(refs), refs[0]) == json.dumps(
        rendering_json(offered[0].rendered, []), indent=2)


def test_a_string_s_hidden_characters_are_shown_once_per_string(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted(value: str) -> str:
        calls.append(value)
        return shown(value)

    monkeypatch.setattr(configurations, "shown", counted)
    strings = _Table()
    refs = [strings.add(text) for text in ["a\u202eb", "plain", "a\u202eb", "plain"] * 3]
    assert refs == [0, 1] * 6 and strings.items == ["a<U+202E>b", "plain"]
    assert calls == ["a\u202eb", "plain"]


def test_a_new_block_is_indexed_once_for_every_block_it_is_compared_with(
        monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []

    class Counted(difflib.SequenceMatcher[int]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(difflib, "SequenceMatcher", Counted)
    table = _Blocks()
    rows = [[0, 1, [1, 2, 3, n, 5, 6, 7, 8]] for n in range(10)]
    ids = [table.add(row) for row in rows]
    assert len(made) == len(rows)
    lines = configurations.block_lines(table.items)
    assert [lines[i] for i in ids] == [row[2] for row in rows]
    assert any(len(item) == 4 for item in table.items)  # stored as edits of another


def test_a_pointer_is_compared_once_per_distinct_set_of_used_pointers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = make_repo(tmp_path / "repo", {PATH: MINI, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    doc = load_yaml(tree.read(PATH), PATH)
    renderings = [o.rendered for o in offered_renderings(doc, build_context(tree))]
    used = {verdicts.used_pointers(r) for r in renderings}
    assert len(used) < len(renderings)  # configurations that use the same nodes
    pointers = ["/model/base_args", "/variants/mixed/extra_args/0", "/meta", ""]
    want = verdicts.scopes(pointers, doc.data, renderings)
    calls: list[tuple[str, str]] = []
    related = verdicts._related

    def counted(a: str, b: str) -> bool:
        calls.append((a, b))
        return related(a, b)

    monkeypatch.setattr(verdicts, "_related", counted)
    assert verdicts.scopes(pointers, doc.data, renderings) == want
    assert len(calls) <= sum(len(s) for s in used) * 3
