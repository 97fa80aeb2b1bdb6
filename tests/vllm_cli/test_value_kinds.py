"""The value kinds of a release's options: found by running each option's own argparse
``type`` callable on probe strings in the extraction subprocess (a fake release with the
type helpers vLLM uses: ``int``, ``float``, ``optional_type(int)``, a human-readable int
that also takes ``auto``), written to a separate pinned ``types/<version>.json`` beside
the registry (the registry's bytes unchanged), and read back by
:mod:`validator.vllm_cli.value_kinds`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.vllm_cli.test_extract_fixture import FIXTURE, VERSION, _extract
from validator.vllm_cli.extract import dumps_snapshot
from validator.vllm_cli.extract_types import TYPES_DIR, build_types, write_types
from validator.vllm_cli.registry import RegistryError
from validator.vllm_cli.value_kinds import ValueKind, load_kinds

TYPED_OPTIONS = '''
import re as _re


def _optional_type(return_type):
    def _optional(val):
        if val == "" or val == "None":
            return None
        return return_type(val)
    return _optional


def _human_int_or_auto(value):
    value = value.strip()
    if value == "-1" or value.lower() == "auto":
        return -1
    m = _re.fullmatch(r"(\\d+(?:\\.\\d+)?)([kKmMgGtT])", value)
    if m:
        return int(float(m.group(1)) * 1000)
    return int(value)


def add_typed(group):
    group.add_argument("--max-model-len", type=_human_int_or_auto, default=None, help="x")
    group.add_argument("--gpu-memory-utilization", type=float, default=0.9, help="x")
    group.add_argument("--max-num-seqs", type=_optional_type(int), default=None, help="x")
'''


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    tree = tmp_path_factory.mktemp("typed") / "fake_vllm"
    shutil.copytree(FIXTURE, tree)
    utils = tree / "vllm" / "engine" / "arg_utils.py"
    text = utils.read_text("utf-8") + TYPED_OPTIONS
    utils.write_text(text.replace("    return parser\n", "    add_typed(group)\n"
                                  "    return parser\n"), "utf-8")
    return _extract(tree, tmp_path_factory.mktemp("typed-work"))


def test_each_type_callable_is_named_by_what_it_takes(
        extracted: tuple[dict[str, Any], dict[str, Any]]) -> None:
    raw, _ = extracted
    kinds = raw["value_kinds"]
    assert kinds["--max-model-len"] == {"kind": "human_int", "words": ["auto"]}
    assert kinds["--gpu-memory-utilization"] == {"kind": "float", "words": []}
    assert kinds["--max-num-seqs"] == {"kind": "int", "words": ["None", ""]}
    assert kinds["--tensor-parallel-size"] == {"kind": "int", "words": []}
    # strings, JSON, a list splitter, choices and switches have no kind
    for flag in ("--speculative-config", "--limit-mm-per-prompt", "--device-ids",
                 "--kv-cache-dtype", "--enforce-eager", "--internal-flag"):
        assert flag not in kinds, flag


def test_kinds_go_to_their_own_pinned_file_and_leave_the_registry_as_it_was(
        extracted: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path) -> None:
    raw, doc = extracted
    assert all("value_kinds" not in o and "kind" not in o for o in doc["options"])
    assert "value_kinds" not in dumps_snapshot(doc).decode()
    write_types(build_types(raw, doc), tmp_path)
    pins = json.loads((tmp_path / TYPES_DIR / "index.json").read_text())
    assert list(pins) == [VERSION]
    kinds = load_kinds(VERSION, tmp_path)
    assert kinds is not None and kinds["--max-model-len"] == ValueKind("human_int", ("auto",))
    assert load_kinds("0.0.2", tmp_path) is None  # no kinds file: nothing is known
    path = tmp_path / TYPES_DIR / f"{VERSION}.json"
    path.write_text(path.read_text().replace("float", "int"))
    with pytest.raises(RegistryError, match="does not match the pin"):
        load_kinds(VERSION, tmp_path)


@pytest.mark.parametrize(("kind", "value", "ok"), [
    (ValueKind("human_int", ("auto",)), "32768", True),
    (ValueKind("human_int", ("auto",)), "32k", True),
    (ValueKind("human_int", ("auto",)), "auto", True),
    (ValueKind("human_int", ("auto",)), "abc", False),
    (ValueKind("human_int", ("auto",)), "1.5", False),
    (ValueKind("int", ()), "32k", False),
    (ValueKind("int", ("None", "")), "None", True),
    (ValueKind("float", ()), "0.95", True),
    (ValueKind("float", ()), "1e-3", True),
    (ValueKind("float", ()), "1.5e", False),
    (ValueKind("bool", ("true", "false")), "yes", False),
])
def test_a_value_is_judged_as_the_release_type_would(kind: ValueKind, value: str,
                                                      ok: bool) -> None:
    assert kind.accepts(value) is ok
