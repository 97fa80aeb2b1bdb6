"""The compiled schema check (``validator.schema.surely_valid``) never accepts what the
general validator rejects: on every distinct version of every data file in the corpus
history, and on generated strings at the pattern- and format-constrained fields of a
recipe of our own. A valid document is checked without importing ``jsonschema``."""

from __future__ import annotations

import copy
import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import BUNDLE
from validator.load import load_yaml
from validator.schema import SchemaValidator, _validator, compiled, surely_valid

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "examples" / "recipes" / "models" / "example-org" / "Example-Chat-8B.yaml"


def _schema_of(path: str) -> str | None:
    if path.startswith("models/") and path.endswith((".yaml", ".yml")):
        return "recipe"
    if path == "taxonomy.yaml":
        return "taxonomy"
    if path.startswith("strategies/") and path.endswith(".yaml"):
        return "strategy"
    if path.startswith("kv_store/") and path.endswith(".yaml"):
        return "kv_store"
    return None


def _history_blobs(tmp: Path) -> list[tuple[str, bytes]]:
    """``(path, bytes)`` of every distinct blob of a data file on any ref of the bundle."""
    repo = tmp / "recipes"
    subprocess.run(["git", "clone", "-q", "--mirror", str(BUNDLE), str(repo)], check=True)
    raw = subprocess.run(["git", "-C", str(repo), "log", "--all", "--format=", "--raw",
                          "--no-abbrev", "--no-renames"], check=True, capture_output=True,
                         text=True).stdout
    blobs: dict[str, str] = {}
    for line in raw.splitlines():
        meta, _, path = line.partition("\t")
        fields = meta.split()
        if len(fields) >= 4 and set(fields[3]) != {"0"} and _schema_of(path):
            blobs.setdefault(fields[3], path)
    batch = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"],
                           input="".join(f"{b}\n" for b in blobs).encode(),
                           check=True, capture_output=True).stdout
    out: list[tuple[str, bytes]] = []
    pos = 0
    for blob, path in blobs.items():
        header_end = batch.index(b"\n", pos)
        name, _, size = batch[pos:header_end].split()
        assert name.decode() == blob
        start = header_end + 1
        out.append((path, batch[start:start + int(size)]))
        pos = start + int(size) + 1
    return out


@pytest.mark.corpus
@pytest.mark.slow
def test_compiled_check_agrees_with_general_validator_on_corpus_history(
        tmp_path: Path) -> None:
    if not BUNDLE.is_file():
        pytest.fail(f"corpus bundle missing: {BUNDLE}")
    blobs = _history_blobs(tmp_path)
    assert len(blobs) > 800  # every version of every recipe, taxonomy, strategy, kv store
    checked = rejected = 0
    for path, data in blobs:
        doc = load_yaml(data, path)
        if not doc.ok:
            continue
        name = _schema_of(path)
        assert name is not None
        fast = surely_valid(doc.data, name)
        general = next(iter(_validator(name).iter_errors(doc.data)), None) is None
        # never accepts what the general validator rejects ...
        assert general or not fast, (path, name)
        # ... and on these files rejects nothing it accepts (else every run pays twice)
        assert fast == general, (path, name)
        checked += 1
        rejected += not general
    assert checked > 800 and rejected > 10  # the history has invalid versions too


@functools.cache
def _example() -> dict[str, Any]:
    """The example recipe's data, which the compiled check accepts. Read when a test asks
    (never at import: without ``jsonschema_rs`` only this module's tests fail, each with
    the reason, and the rest of the suite still runs)."""
    if compiled("recipe") is None:
        pytest.fail("no compiled schema check: jsonschema_rs (a dependency, "
                    "pyproject.toml) is not importable or cannot compile the recipe "
                    "schema", pytrace=False)
    doc = load_yaml(EXAMPLE.read_bytes(), "models/example-org/Example-Chat-8B.yaml")
    assert doc.ok and isinstance(doc.data, dict)
    assert surely_valid(doc.data, "recipe")
    return doc.data


FIELDS = [  # (path into the recipe, constraint there)
    (("model", "min_vllm_version"), "version pattern"),
    (("model", "parameter_count"), "count pattern"),
    (("meta", "date_added"), "date pattern and format"),
    (("meta", "slug"), "slug pattern"),
    (("model", "model_id"), "org/name pattern"),
    (("model", "base_args", 0), "--flag pattern"),
    (("model", "context_length"), "integer, minimum"),
    (("variants", "default", "vram_minimum_gb"), "number, minimum"),
]

TRICKY = st.sampled_from(["0.12.0\n", "2026-02-30", "2026-13-01", "８B", "8B\n", "a\ufeffb/c",
                          "a/b\n", "--x\n", "0.12.0rc1", "nightly", "١٢.٣", "2026-03-02",
                          "x/\u2028y", "slug-ok", "Slug", "--"])


VALUES = st.one_of(st.text(max_size=12), TRICKY, st.integers(), st.floats(), st.booleans(),
                   st.none(), st.lists(st.integers(), max_size=2))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS), text=VALUES)
def test_compiled_check_never_accepts_a_bad_value(field: tuple[tuple[Any, ...], str],
                                                  text: object) -> None:
    data = copy.deepcopy(_example())
    node: Any = data
    *parents, last = field[0]
    for key in parents:
        node = node[key]
    node[last] = text
    if surely_valid(data, "recipe"):
        assert list(_validator("recipe").iter_errors(data)) == [], (field, text)



def test_rejected_document_still_gets_every_finding() -> None:
    data = copy.deepcopy(_example())
    data["model"]["min_vllm_version"] = "v0.12"
    data["meta"]["difficulty"] = "legendary"
    assert not surely_valid(data, "recipe")
    text = EXAMPLE.read_text("utf-8").replace('min_vllm_version: "0.12.0"',
                                              'min_vllm_version: "v0.12"')
    text = text.replace("difficulty: beginner", "difficulty: legendary")
    doc = load_yaml(text.encode(), "models/example-org/Example-Chat-8B.yaml")
    found = {(f.rule, f.pointer) for f in SchemaValidator().validate(doc, "recipe")}
    assert found == {("SCHEMA005", "/model/min_vllm_version"),
                     ("SCHEMA002", "/meta/difficulty")}


def test_value_it_cannot_convert_goes_to_the_general_validator() -> None:
    data = copy.deepcopy(_example())
    data["meta"]["title"] = object()
    assert compiled("recipe") is not None
    assert not surely_valid(data, "recipe")
    assert list(_validator("recipe").iter_errors(data))


def test_valid_file_is_checked_without_importing_jsonschema() -> None:
    code = ("import sys; from validator.cli import main; rc = main([sys.argv[1]]); "
            "print(rc, 'jsonschema' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    out = subprocess.run([sys.executable, "-c", code, str(EXAMPLE)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[-2:] == ["0", "False"], out
