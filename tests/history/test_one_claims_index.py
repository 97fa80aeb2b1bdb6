"""REF025's index of the recipes' variant ids is one, shared by ``check`` and the history
audit: keyed by path and git blob id (which ``check`` computes from the bytes it read),
in the ``claims`` folder of the cache folder, so what one command read the other does
not read again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.pr.test_variant_id_collisions import CHAT, MOE, _variant
from tests.test_api_claims import _check, forge_index, loads  # noqa: F401
from validator import api_claims
from validator.history.audit import AuditOptions, run_audit


def _commit(root: Path) -> None:
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q",
                  "-m", "recipes"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_a_check_after_an_audit_reads_the_ids_the_audit_read(
        examples_tree: Path, tmp_path: Path, loads: list[str]) -> None:  # noqa: F811
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _variant(examples_tree, MOE, "fp8", "example-org/Example-MoE-120B-FP8")
    _commit(examples_tree)
    cache = tmp_path / "cache"
    run_audit(AuditOptions(repo=examples_tree, cache_dir=cache / "history", jobs=1))
    assert sorted(loads) == [CHAT, MOE]  # the audit read each recipe's ids once
    loads.clear()
    report = _check(examples_tree, cache)
    assert loads == []  # every id from the audit's index: no recipe loaded for them
    assert report == _check(examples_tree, tmp_path / "fresh")


def test_the_index_labels_a_recipe_by_its_git_blob_id(examples_tree: Path,
                                                      tmp_path: Path) -> None:
    raw = (examples_tree / CHAT).read_bytes()
    (examples_tree / "blob").write_bytes(raw)
    hashed = subprocess.run(["git", "hash-object", str(examples_tree / "blob")], check=True,
                            capture_output=True, text=True).stdout.strip()
    assert api_claims.blob_id(raw) == hashed
    (examples_tree / "blob").unlink()
    _check(examples_tree, tmp_path / "cache")
    labels = api_claims.ClaimsStore.under(tmp_path / "cache").read()
    assert f"{CHAT}\0{hashed}" in labels


@pytest.mark.parametrize("damage", ["forged", "truncated"])
def test_a_damaged_index_is_not_trusted_by_the_audit(
        examples_tree: Path, tmp_path: Path, damage: str) -> None:
    """An index edited (checksum kept) or cut short gives the audit nothing: it reads
    the recipes again and reports what an audit without a cache reports."""
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _commit(examples_tree)
    cache = tmp_path / "cache"
    _check(examples_tree, cache)
    (entry,) = (cache / api_claims.FOLDER).glob("*/*.json")
    if damage == "forged":  # the chat recipe made to claim the MoE recipe's own id
        forge_index(entry, "example-org/Example-MoE-120B")
    else:
        entry.write_bytes(entry.read_bytes()[:40])
    api_claims._OF_BYTES.clear()
    cached = run_audit(AuditOptions(repo=examples_tree, cache_dir=cache / "history", jobs=1))
    api_claims._OF_BYTES.clear()
    plain = run_audit(AuditOptions(repo=examples_tree, jobs=1))
    assert [(c.path, c.row) for r in cached.revisions for c in r.introduced] == \
        [(c.path, c.row) for r in plain.revisions for c in r.introduced]
