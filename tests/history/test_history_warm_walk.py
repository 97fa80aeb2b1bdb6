"""What a warm audit's walk over the revisions does once, not per revision: the paths of a
folder met before are not named again, and REF025's index is keyed on the code digest
read back from the cache (no source file hashed for it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import validator.cache
from tests.history.test_history_audit import audit, changes, own_repo  # noqa: F401
from validator.file_digests import FileDigests
from validator.history.gitdata import GitObjects


def test_the_files_of_a_folder_met_before_are_the_same_paths_not_named_again(
        own_repo: Path) -> None:  # noqa: F811
    """A commit's files equal ``git ls-tree -r``'s, in its order; a second listing of a
    tree (or of another commit sharing its folders) hands back the path strings made the
    first time, rather than joining each folder's names again."""
    ls = subprocess.run(["git", "-C", str(own_repo), "ls-tree", "-r", "HEAD"],
                        capture_output=True, text=True, check=True).stdout
    listed = {line.split("\t")[1]: line.split()[2] for line in ls.splitlines()}
    tree, parent = (subprocess.run(
        ["git", "-C", str(own_repo), "rev-parse", f"{rev}^{{tree}}"],
        capture_output=True, text=True, check=True).stdout.strip() for rev in ("HEAD", "HEAD~1"))
    with GitObjects(own_repo) as objects:
        first = objects.files(tree)
        again = objects.files(tree)
        before = objects.files(parent)  # another models/org, the same strategies folder
    assert first == listed and list(first) == list(listed)
    assert again == first and again is not first  # a dict of the caller's own
    for path in (p for p in first if "/" in p):  # the folders of files only
        made = next(p for p in again if p == path)
        assert made is path, path
    shared = "strategies/single_node_tp.yaml"
    assert next(p for p in before if p == shared) is next(p for p in first if p == shared)


def test_a_warm_audit_hashes_no_source_file_for_the_claims_index(
        own_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The warm run reads the code digest back with the tool facts
    (:mod:`validator.history.tool`) before it opens REF025's index, which is keyed on it:
    no deciding source is hashed, and the report is the cold one."""
    cache = tmp_path / "cache" / "history"
    cold = audit(own_repo, cache_dir=cache)
    hashed: list[str | None] = []
    real = validator.cache._code_text

    def recorded(vendored: str | None, digests: FileDigests) -> bytes:
        hashed.append(vendored)
        return real(vendored, digests)

    monkeypatch.setattr(validator.cache, "_code_text", recorded)
    warm = audit(own_repo, cache_dir=cache)
    assert warm.checked == 0 and warm.cached == cold.units > 0
    assert changes(warm) == changes(cold)
    assert hashed == []
