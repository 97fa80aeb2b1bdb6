"""A history worker loads each context file content once across the revision contexts it
builds (:meth:`~validator.history.worker.Worker.context_document`): a revision that
changes one strategy file shares the other loaded files with the revision before it, and
two files with the same bytes under different paths stay two documents."""

from __future__ import annotations

from pathlib import Path

from tests.history.fixed_date_git import git
from validator.context import Settings
from validator.history.keys import part_digests
from validator.history.revisions import State
from validator.history.worker import RENDER_INPUTS, Worker

TAXONOMY = "hardware_profiles:\n  hx8: {brand: NVIDIA, gpu_count: 8}\n"
FAST = "name: fast\ndeploy_type: single_node\n"


def _commit(repo: Path, files: dict[str, str]) -> State:
    """Commit ``files`` (path -> text) over the tree so far; the :class:`State` of that
    commit in the settings' own release window."""
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "edit")
    commit = git(repo, "rev-parse", "HEAD")
    listed = git(repo, "ls-tree", "-r", "HEAD").splitlines()
    blobs = {line.split("\t")[1]: line.split()[2] for line in listed}
    parts = part_digests(blobs, "")
    return State(id=commit, commit=commit, files=blobs, window="", parts=parts, labels={},
                 stage="stage")


def test_a_worker_loads_an_unchanged_context_file_once(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main", str(tmp_path))
    first = _commit(tmp_path, {"taxonomy.yaml": TAXONOMY, "strategies/fast.yaml": FAST,
                               "strategies/slow.yaml": FAST.replace("fast", "slow")})
    second = _commit(tmp_path, {"strategies/slow.yaml": "name: slow\ndeploy_type: multi\n"})
    worker = Worker(tmp_path, {}, Settings(), None)
    try:
        before, after = (worker.context(s, RENDER_INPUTS) for s in (first, second))
        assert after.taxonomy is before.taxonomy
        assert after.strategies["fast"] is before.strategies["fast"]
        assert after.strategies["slow"] is not before.strategies["slow"]
        assert after.strategies["slow"].data == {"name": "slow", "deploy_type": "multi"}
    finally:
        worker.objects.close()


def test_files_with_the_same_bytes_under_two_paths_are_two_documents(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main", str(tmp_path))
    state = _commit(tmp_path, {"taxonomy.yaml": TAXONOMY, "strategies/a.yaml": FAST,
                               "strategies/b.yaml": FAST})
    worker = Worker(tmp_path, {}, Settings(), None)
    try:
        ctx = worker.context(state, RENDER_INPUTS)
        assert ctx.strategies["a"].path == "strategies/a.yaml"
        assert ctx.strategies["b"].path == "strategies/b.yaml"
    finally:
        worker.objects.close()
