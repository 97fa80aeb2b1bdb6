"""``publish`` follows no link inside ``--out`` (issue 30, item 12): a folder or file link
planted there is refused by name, nothing lands outside the folder, nothing outside is
read or replaced, and the records already published are kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.render.tiny_tree import commit_tree, write_tree
from validator.source.snapshots import LOCK_NAME

HERE = Path(__file__).resolve().parent
"""Runs start here (the folder of runs in a process of their own before, where no
``validator`` package lies)."""
REPO = "acme/recipes"
RECIPE = "models/acme/Tiny-1B.yaml"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``recipe-check ARGS`` in this process (:mod:`tests.cli_in_process`): these tests
    pin what the command writes, prints and returns, not the process."""
    return run_cli(*args, cwd=HERE)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A snapshot store holding one recipe of a real git repository of our own."""
    repo = write_tree(tmp_path_factory.mktemp("repo") / "recipes")
    commit = commit_tree(repo)
    snapshots = tmp_path_factory.mktemp("store")
    done = run("fetch", f"{REPO}@{commit}:{RECIPE}", "--git-url", repo, "--cache-dir",
               tmp_path_factory.mktemp("cache"), "--snapshot-dir", snapshots)
    assert done.returncode == 0, done.stderr
    return snapshots / LOCK_NAME, commit


def publish(lock: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run("publish", "--lock", lock, "--out", out, "--checked-on", "2026-12-01",
               "--attestation")


def files_in(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def assert_link_refused(done: subprocess.CompletedProcess[str], link: Path, to: Path,
                        out: Path) -> None:
    """The run failed (exit 1) naming ``link`` and where it points, and indexed nothing."""
    assert done.returncode == 1, done.stderr
    assert f"{link}: is a symbolic link (to {to})" in done.stderr, done.stderr
    assert "remove it" in done.stderr and "Traceback" not in done.stderr
    # the closing line says nothing was published, and why (not "published N record(s)")
    assert "published 0 of " in done.stdout and "refused, each for the reason printed " \
        "above it" in done.stdout, done.stdout
    assert json.loads((out / "index.json").read_text())["records"] == []


@pytest.mark.parametrize("link_at", ["records", "records/acme", "records/acme/recipes/{c}"])
def test_a_folder_link_inside_out_is_refused_and_nothing_lands_outside(
        store: tuple[Path, str], tmp_path: Path, link_at: str) -> None:
    lock, commit = store
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    link = out / link_at.format(c=commit)
    link.parent.mkdir(parents=True)
    link.symlink_to(outside, target_is_directory=True)
    assert_link_refused(publish(lock, out), link, outside, out)
    assert files_in(outside) == []
    index = json.loads((out / "index.json").read_text())
    assert {e["file"] for e in index["not_verified"]} == {link.relative_to(out).as_posix()}


def test_a_record_file_that_is_a_link_is_neither_read_nor_replaced(
        store: tuple[Path, str], tmp_path: Path) -> None:
    lock, commit = store
    out = tmp_path / "out"
    assert publish(lock, out).returncode == 0
    target = out / "records" / REPO / commit / f"{RECIPE}.json"
    record = target.read_bytes()
    secret = tmp_path / "secret.json"
    secret.write_bytes(record)  # a valid record outside: still never taken as stored
    target.unlink()
    target.symlink_to(secret)
    assert_link_refused(publish(lock, out), target, secret, out)
    assert target.is_symlink() and secret.read_bytes() == record
    target.unlink()  # once the link is gone, publishing works again
    assert publish(lock, out).returncode == 0
    assert target.read_bytes() == record


@pytest.mark.parametrize("name", [".publish.lock", "schemas", "index.json"])
def test_a_link_at_a_file_publish_owns_is_refused_by_name(
        store: tuple[Path, str], tmp_path: Path, name: str) -> None:
    lock, _ = store
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    if name == "schemas":
        outside.mkdir()
    else:
        outside.write_text("keep me\n")
    (out / name).symlink_to(outside)
    done = publish(lock, out)
    assert done.returncode == 2, done.stderr
    assert f"{out / name}: is a symbolic link" in done.stderr and "remove it" in done.stderr
    assert "Traceback" not in done.stderr
    if name == "schemas":
        assert files_in(outside) == []
    else:
        assert outside.read_text() == "keep me\n"
