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
