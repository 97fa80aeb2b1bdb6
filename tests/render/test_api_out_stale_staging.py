"""A killed ``render --api-out DIR`` leaves its staging folder (``.DIR.XXXXXXXX.staging``)
or the old API renamed aside (``.DIR.XXXXXXXX.old``); the next run of ``DIR`` removes
those it can prove its own -- that name, a folder holding a valid API marker, held by no
running run -- and leaves alone a running run's stage, a folder of that name without the
marker and a link (trial 9 #8: a partial API of up to 15,000 files stayed for good)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cli import main
from validator.owned_folder import marker_bytes
from validator.render.api_out import MADE_BY, MARKER, StagedApiFolder

RECIPE = "models/acme/Voice-1B.yaml"


def _left(parent: Path, name: str, marker: bool = True) -> Path:
    """A folder ``name`` beside the API as a killed run leaves it (a partial API)."""
    folder = parent / name
    (folder / "models").mkdir(parents=True)
    (folder / "models" / "partial.json").write_text("{}", "utf-8")
    if marker:
        (folder / MARKER).write_bytes(marker_bytes(MADE_BY, []))
    return folder


def test_the_next_run_removes_what_a_killed_run_left_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(write_tree(tmp_path / "tree"))
    out = tmp_path / "out"
    stale = [_left(out, ".api.k1ll3d0a.staging"), _left(out, ".api.k1ll3d0b.old")]
    kept = [_left(out, ".api.n0mark00.staging", marker=False),  # no marker: not provably ours
            _left(out, ".api.abc.staging"), _left(out, ".apx.k1ll3d0c.staging"),
            _left(out, ".other.k1ll3d0d.staging")]
    busy = _left(out, ".api.runn1ng0.staging")  # a running run holds its stage
    link = out / ".api.l1nk0000.staging"
    link.symlink_to(stale[0])
    fd = os.open(busy, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert main(["render", "--api-out", str(out / "api"), RECIPE]) == 0
    finally:
        os.close(fd)
    assert not any(p.exists() for p in stale)
    assert all(p.is_dir() for p in [*kept, busy]) and link.is_symlink()
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["api", *(p.name for p in [*kept, busy, link])])
    assert (out / "api" / MARKER).is_file()


def test_a_second_run_leaves_a_running_runs_stage_alone(tmp_path: Path) -> None:
    target = tmp_path / "api"
    with StagedApiFolder(target) as first:
        first.write_json("models.json", [])
        with StagedApiFolder(target) as second:
            assert first.stage.is_dir() and second.stage != first.stage
            second.write_json("models.json", [1])
            second.commit()
        first.commit()  # the first run still completes, over the second's API
    assert (target / "models.json").read_text("utf-8") == "[]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["api"]
