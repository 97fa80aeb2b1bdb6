"""A recipe file whose name is not valid UTF-8 (byte 0xFF, which Python gives as a lone
surrogate, ``surrogateescape``) anywhere in a checked tree: the cache keys, digests and
entries of a cached ``check`` take it (``PROV006`` on it, every other file checked as
``--no-cache`` does, no ``UnicodeEncodeError``), and a message quoting its name writes
it ``\\xff`` as PROV006 does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cache import ResultCache
from validator.cli import main
from validator.findings import printable
from validator.paths import name_bytes

RECIPE = "models/acme/Tiny-1B.yaml"
BAD = os.fsdecode(b"models/acme/bad\xff.yaml")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "tree")
    (root / BAD).write_bytes((root / RECIPE).read_bytes())
    return root


def _check(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["check", "--offline", "--root", str(root), "--format", "json", *argv])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("target", [RECIPE, "models/"])
def test_cached_check_of_a_tree_holding_an_undecodable_name_is_the_uncached_one(
        tree: Path, tmp_path: Path, target: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    plain = _check(capsys, tree, "--no-cache", target)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert _check(capsys, tree, *cache, target) == plain  # cold
    assert _check(capsys, tree, *cache, target) == plain  # warm
    if target == "models/":
        assert "bad\\\\xff.yaml" in plain[1] and "PROV006" in plain[1]


def test_a_cache_entry_holding_an_undecodable_name_reads_back(tmp_path: Path) -> None:
    store = ResultCache(tmp_path / "results")
    results = {"labels": [[BAD, "zai-org/x"]]}
    store.put("k" * 64, results)
    assert store.get("k" * 64) == results and store.corrupt == 0


def test_name_bytes_is_the_file_system_name() -> None:
    assert name_bytes(BAD) == b"models/acme/bad\xff.yaml"
    assert name_bytes(RECIPE) == RECIPE.encode()


def test_a_message_quoting_an_undecodable_name_writes_it_as_prov006_does() -> None:
    assert printable(f"of {BAD}: x") == "of models/acme/bad\\xff.yaml: x"
    assert printable("\ud800") == "\\ud800"
    printable(f"of {BAD}").encode("utf-8")
