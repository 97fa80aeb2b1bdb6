"""Malformed recipes never crash record building: a real recipe with one node replaced by
a value of the wrong shape still gives a schema-valid record whose citations hold."""

from __future__ import annotations

import json
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXTRA
from tests.evidence.conftest import EXTRA_GLM53, verify_record
from validator.evidence.record import RecordError, build_record, record_bytes
from validator.load import load_yaml
from validator.source.provenance import Provenance

COMMIT, PATH = EXTRA_GLM53[0]
BASE = load_yaml((EXTRA / COMMIT / PATH).read_bytes(), PATH).data


class _MemoryTree:
    """A pinned tree holding one document (a test double of the RecipeTree protocol,
    with real digests)."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path, self.data = path, data

    revision = COMMIT
    label = "memory"

    def read(self, path: str) -> bytes:
        if path != self.path:
            raise FileNotFoundError(path)
        return self.data

    def exists(self, path: str) -> bool:
        return path == self.path

    def list(self, prefix: str) -> list[str]:
        return [self.path] if self.path.startswith(prefix.rstrip("/") + "/") else []

    def provenance(self, path: str, data: bytes) -> Provenance:
        return Provenance.of_bytes(path, data, repository="vllm-project/recipes",
                                   commit=COMMIT)


def _pointers(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _pointers(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _pointers(v, (*prefix, i))
    return out


POINTERS = [p for p in _pointers(BASE) if p[0] != "guide"]
JUNK = st.sampled_from([None, 0, 1.5, True, "x", "", [], {}, [None], {"a": [1]}, ["--x", 2]])


def _replace(data: Any, pointer: tuple[Any, ...], value: Any) -> Any:
    data = json.loads(json.dumps(data))
    node = data
    for token in pointer[:-1]:
        node = node[token]
    node[pointer[-1]] = value
    return data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(POINTERS), JUNK)
def test_wrong_shapes_give_valid_records(pointer: tuple[Any, ...], junk: Any) -> None:
    text = yaml.safe_dump(_replace(BASE, pointer, junk), sort_keys=False, allow_unicode=True,
                          width=120)
    tree = _MemoryTree(PATH, text.encode())
    try:
        record = build_record(tree, PATH, checked_on="2026-11-29")
    except RecordError:
        return
    data = json.loads(record_bytes(record))
    verify_record(data, lambda commit, path: text.splitlines())
