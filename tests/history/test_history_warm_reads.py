"""What a warm history audit reads: its cache entries and the revisions' trees, never a
recipe's bytes (a blob is keyed by the id git gives its bytes, not by a digest the audit
would compute by reading it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.history.test_history_audit import audit, changes, own_repo  # noqa: F401
from validator.history.gitdata import GitObjects


def test_a_warm_audit_reads_no_recipe_blob(own_repo: Path, tmp_path: Path,  # noqa: F811
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cold = audit(own_repo, cache_dir=cache)
    kinds: list[str] = []
    real = GitObjects.read_many

    def recorded(self: GitObjects, oids: list[str]) -> list[tuple[str, bytes]]:
        found = real(self, oids)
        kinds.extend(kind for kind, _data in found)
        return found

    monkeypatch.setattr(GitObjects, "read_many", recorded)
    warm = audit(own_repo, cache_dir=cache)
    assert warm.checked == 0 and warm.cached == cold.units > 0
    assert changes(warm) == changes(cold)
    assert "tree" in kinds and "blob" not in kinds


def test_one_blob_at_two_paths_is_checked_at_each(own_repo: Path, tmp_path: Path) -> None:  # noqa: F811
    """Keyed by blob id, a copy of a recipe under another name is still its own unit (the
    path is in the key: rules compare it with the content)."""
    import subprocess

    source = own_repo / "models" / "org" / "a.yaml"
    (own_repo / "models" / "org" / "b.yaml").write_bytes(source.read_bytes())
    subprocess.run(["git", "-C", str(own_repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(own_repo), "commit", "-q", "-m", "copy"], check=True)
    cached = audit(own_repo, cache_dir=tmp_path / "cache")
    plain = audit(own_repo)
    assert changes(cached) == changes(plain)
    copy = cached.revisions[-1]
    assert {c.path for c in copy.introduced} == {"models/org/b.yaml"}
    assert all(c.note == "file added" for c in copy.introduced)


def test_a_tree_is_parsed_entry_by_entry_and_a_cut_tree_is_a_git_error(
        own_repo: Path) -> None:  # noqa: F811
    """Tree objects are parsed with one pattern; the entries equal ``git ls-tree``'s, and
    a tree object cut short is a :class:`GitError` naming the repository (not a
    traceback)."""
    import subprocess

    from validator.history.gitdata import GitError

    tree = subprocess.run(["git", "-C", str(own_repo), "rev-parse", "HEAD^{tree}"],
                          check=True, capture_output=True, text=True).stdout.strip()
    listed = subprocess.run(["git", "-C", str(own_repo), "ls-tree", tree], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    with GitObjects(own_repo) as objects:
        entries = objects.tree_entries(tree)
        kind, data = objects.read(tree)
        with pytest.raises(GitError, match=str(own_repo)):
            objects._tree("0" * 40, kind, data[:-5])
    assert [f"{m.decode().zfill(6)} {n}" for m, n, _o in entries] == \
        [f"{line.split()[0]} {line.split(chr(9))[1]}" for line in listed]
    assert [o for _m, _n, o in entries] == [line.split()[2] for line in listed]


def test_the_audits_entries_are_checked_in_c_and_an_edit_is_refused(tmp_path: Path) -> None:
    """The history audit's store parses and checksums its entries with orjson
    (``"canon": "orjson"``); a check's store as before, and each reads the other's. An
    entry edited without the secret is not trusted; without its ``canon`` it is checked
    over the standard library's text, the same text for these values."""
    import json

    from validator.cache import FAST, ResultCache

    rows = {f"label{i}": {"rows": [["YAML003", "warning", f"/a/{i}", i, 1, "é ✓ \u2028"]]}
            for i in range(50)}
    ResultCache(tmp_path / "c", fast=True).put("k" * 64, rows)
    ResultCache(tmp_path / "c").put("s" * 64, rows)
    (fast,) = (tmp_path / "c").glob("kk/*.json")
    (plain,) = (tmp_path / "c").glob("ss/*.json")
    assert json.loads(fast.read_text())["canon"] == FAST
    assert "canon" not in json.loads(plain.read_text())
    for reader in (ResultCache(tmp_path / "c"), ResultCache(tmp_path / "c", fast=True)):
        assert reader.get("k" * 64) == reader.get("s" * 64) == rows
    for edit in ("rows", "canon"):
        entry = json.loads(fast.read_text())
        if edit == "rows":
            entry["results"]["label1"]["rows"] = []
        else:
            del entry["canon"]
        fast.write_text(json.dumps(entry))
        reader = ResultCache(tmp_path / "c", fast=True)
        if edit == "rows":
            assert reader.get("k" * 64) == {} and reader.corrupt == 1
        else:
            assert reader.get("k" * 64) == rows and reader.corrupt == 0
        ResultCache(tmp_path / "c", fast=True).put("k" * 64, rows, replace=True)
