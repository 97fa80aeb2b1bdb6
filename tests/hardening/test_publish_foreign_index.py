"""``publish --out-dir`` never replaces an ``index.json`` or ``schemas/*.json`` it did not write (as
``--site``/``--api-out`` never replace a folder they did not make): a foreign one is
refused with exit 2 before anything is written; publish's own index is rebuilt on the
next run. Real processes, a real git repository and snapshot store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening.test_publish_links import publish, store

__all__ = ["store"]  # the module fixture, shared


@pytest.mark.parametrize("foreign", ['{"mine": 1}\n', "not json\n",
                                     '{"format": "other/index", "records": []}\n'])
def test_a_foreign_index_is_refused_and_nothing_is_written(
        store: tuple[Path, str], tmp_path: Path, foreign: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.json").write_text(foreign)
    done = publish(store[0], out)
    assert done.returncode == 2, done.stderr
    assert "index.json is not an index publish wrote" in done.stderr
    assert "Traceback" not in done.stderr
    assert (out / "index.json").read_text() == foreign
    assert sorted(p.name for p in out.iterdir()) == ["index.json"]


def test_publishs_own_index_is_rebuilt_on_the_next_run(store: tuple[Path, str],
                                                       tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = publish(store[0], out)
    assert first.returncode == 0, first.stderr
    again = publish(store[0], out)
    assert again.returncode == 0, again.stderr
    assert len(json.loads((out / "index.json").read_text())["records"]) == 1


@pytest.mark.parametrize("foreign", ['{"$id": "https://example.org/mine.json"}\n', "notes\n"])
def test_a_foreign_schema_file_is_refused_and_nothing_is_written(
        store: tuple[Path, str], tmp_path: Path, foreign: str) -> None:
    out = tmp_path / "out"
    (out / "schemas").mkdir(parents=True)
    (out / "schemas" / "record.schema.json").write_text(foreign)
    done = publish(store[0], out)
    assert done.returncode == 2, done.stderr
    assert "record.schema.json is not a schema publish wrote" in done.stderr
    assert "Traceback" not in done.stderr
    assert (out / "schemas" / "record.schema.json").read_text() == foreign
    assert sorted(p.name for p in out.rglob("*")) == ["record.schema.json", "schemas"]


def test_publishs_own_schema_copy_is_replaced_on_the_next_run(store: tuple[Path, str],
                                                              tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert publish(store[0], out).returncode == 0
    copy = out / "schemas" / "record.schema.json"
    older = json.loads(copy.read_text())
    older["title"] = "an older version of the record schema"
    copy.write_text(json.dumps(older))
    again = publish(store[0], out)
    assert again.returncode == 0, again.stderr
    assert json.loads(copy.read_text())["title"] != older["title"]
