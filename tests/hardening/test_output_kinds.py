"""Every report and record file of every command is written one way
(:func:`validator.atomic.write_output`): a link is written through to the file it names (a
dangling link creates that file), a FIFO is written into, a folder or a socket is a usage
error. ``record --output`` used to replace a FIFO or a link by a regular file (and, as
root, ``/dev/full``); ``check --output`` wrote a regular file in place, not atomically."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXTRA
from tests.evidence.conftest import EXTRA_GLM53, REPO
from validator.cli import main

RECIPE = "models/example-org/Example-Chat-8B.yaml"


class _Reader(threading.Thread):
    """Reads a FIFO to its end (the writer blocks in open(2) until it is opened)."""

    def __init__(self, fifo: Path) -> None:
        super().__init__(daemon=True)
        self.fifo = fifo
        self.data = b""

    def run(self) -> None:
        with self.fifo.open("rb") as stream:
            self.data = stream.read()


@pytest.fixture()
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    yield path
    assert path.is_fifo()  # still the FIFO: never replaced by a regular file


@pytest.fixture()
def tree(examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(examples_tree)  # the example recipes root (tests/conftest.py)
    return examples_tree


def _record(output: Path) -> int:
    commit, path = EXTRA_GLM53[0]
    return main(["record", f"{REPO}@{commit}:{path}", "--manifest",
                 str(EXTRA / "MANIFEST.json"), "--checked-on", "2026-11-29",
                 "--output", str(output)])


def _check(output: Path) -> int:
    return main([RECIPE, "--format", "json", "--output", str(output)])


COMMANDS = [pytest.param(_record, id="record"), pytest.param(_check, id="check")]


def test_write_output_into_a_fifo_link_and_dangling_link(tmp_path: Path, fifo: Path) -> None:
    from validator.atomic import write_output

    reader = _Reader(fifo)
    reader.start()
    write_output(fifo, b"report\n")
    reader.join(10)
    assert reader.data == b"report\n"
    target = tmp_path / "target.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    write_output(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640  # the file's own mode is kept
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to("reports/new.json")
    write_output(dangling, b"made")  # the file the link names is created
    assert dangling.is_symlink() and (tmp_path / "reports/new.json").read_bytes() == b"made"


def test_write_output_refuses_a_folder_and_a_socket(tmp_path: Path) -> None:
    from validator.atomic import NotAFileError, write_output

    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep.txt").write_text("kept")
    link = tmp_path / "to-folder"
    link.symlink_to(folder)
    for path in (folder, link):
        with pytest.raises(NotAFileError, match="is a folder"):
            write_output(path, b"x")
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]
    sock = socket.socket(socket.AF_UNIX)
    path = tmp_path / "s"
    try:
        sock.bind(str(path))
        with pytest.raises(NotAFileError, match="is a socket"):
            write_output(path, b"x")
    finally:
        sock.close()
    assert path.is_socket()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_output_is_written_into_not_replaced(
        tree: Path, fifo: Path, command: object) -> None:
    reader = _Reader(fifo)
    reader.start()
    assert command(fifo) == 0  # type: ignore[operator]
    reader.join(30)
    assert reader.data.startswith(b"{")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_link_output_is_written_through(tree: Path, tmp_path: Path, command: object) -> None:
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert command(link) == 0  # type: ignore[operator]
    assert link.is_symlink() and target.read_text("utf-8").startswith("{")
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "made.json")
    assert command(dangling) == 0  # type: ignore[operator]
    assert dangling.is_symlink() and (tmp_path / "made.json").read_text("utf-8").startswith("{")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_output_is_a_usage_error(tree: Path, tmp_path: Path, command: object,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    with pytest.raises(SystemExit) as exc:  # the option's value: refused before the run
        command(folder)  # type: ignore[operator]
    assert exc.value.code == 2
    assert "is a folder, not a file a report can be written to" in capsys.readouterr().err
    assert list(folder.iterdir()) == []
