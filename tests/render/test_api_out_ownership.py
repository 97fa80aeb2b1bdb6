"""``render --api-out DIR`` replaces ``DIR`` whole, so it replaces only what it wrote: an
empty folder, or an API an earlier run wrote (its marker lists every file) holding nothing
else. A folder that merely looks like an API (a ``models.json`` and a ``taxonomy.json``)
and a file added to a written API are refused and left as they were; a link is named as
a link -- run through the real CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from validator.render.api_out import MARKER

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(examples_tree: Path, corpus_main_tree: Path) -> Path:
    """The shipped example recipes with corpus main's kv-store deployments (the API of
    its clean recipe is written)."""
    shutil.copytree(corpus_main_tree / "kv_store", examples_tree / "kv_store")
    return examples_tree


def _api_out(tree: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("render", "--api-out", str(out),
                   str(tree / "models/example-org/Example-Chat-8B.yaml"), cwd=PROJECT)


def _files(folder: Path) -> set[str]:
    return {Path(top, name).relative_to(folder).as_posix()
            for top, _, names in os.walk(folder) for name in names}


def test_a_folder_that_only_looks_like_an_api_is_refused_and_kept(tree: Path,
                                                                  tmp_path: Path) -> None:
    out = tmp_path / "api"
    (out / "sub").mkdir(parents=True)
    for name in ("models.json", "taxonomy.json", "precious.txt", "sub/keep.txt"):
        (out / name).write_text("mine", "utf-8")
    done = _api_out(tree, out)
    assert done.returncode == 2, done.stderr
    assert MARKER in done.stderr and "would delete them" in done.stderr
    assert _files(out) == {"models.json", "taxonomy.json", "precious.txt", "sub/keep.txt"}


def test_an_api_written_before_is_replaced_but_a_file_added_to_it_is_not_deleted(
        tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "api"
    first = _api_out(tree, out)
    assert first.returncode == 0, first.stderr
    written = _files(out)
    assert MARKER in written and "models.json" in written
    again = _api_out(tree, out)
    assert again.returncode == 0, again.stderr  # our own API is ours to replace
    (out / "precious.txt").write_text("mine", "utf-8")
    refused = _api_out(tree, out)
    assert refused.returncode == 2
    assert "holds precious.txt, which no 'render --api-out' made" in refused.stderr
    assert (out / "precious.txt").read_text("utf-8") == "mine"


def test_a_link_to_a_folder_is_refused_as_a_link(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "api"
    link.symlink_to(target)
    done = _api_out(tree, link)
    assert done.returncode == 2
    assert "is a symbolic link" in done.stderr and "not a folder" not in done.stderr
    assert link.is_symlink() and not any(target.iterdir())


def test_a_marker_too_deep_to_decode_is_no_valid_marker(tree: Path, tmp_path: Path) -> None:
    """Was: ``[[[...]]]`` 200,000 deep in the marker gave a RecursionError traceback."""
    out = tmp_path / "api"
    assert _api_out(tree, out).returncode == 0
    (out / MARKER).write_bytes(b"[" * 200_000 + b"]" * 200_000)
    refused = _api_out(tree, out)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert f"no valid {MARKER}" in refused.stderr and "would delete them" in refused.stderr
    assert (out / "models.json").is_file()
