"""Every input file a user names (``--config``, ``record --manifest``, a store's lock file,
the event file of ``pr``) is read by one reader: a regular file (through a link), of
bounded size, its type judged before it is opened. ``/dev/zero`` or a FIFO is a usage
error naming the file (exit 2), never a MemoryError or a run waiting for ever (trial 8
#5: ``--config /dev/zero`` read without end, ``--config FIFO`` hung)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from validator import atomic
from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def _limited_memory() -> None:  # in the child: 1 GiB of address space
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60,
                          preexec_fn=_limited_memory,
                          env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin",
                               "RECIPE_CHECK_PROGRESS": "off"})


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_config_naming_a_device_or_a_fifo_is_a_usage_error_not_a_hang(
        examples_tree: Path, tmp_path: Path, kind: str) -> None:
    if kind == "device":
        config, says = "/dev/zero", "not a regular file (a character device); not read"
    else:
        os.mkfifo(tmp_path / "fifo.toml")
        config, says = str(tmp_path / "fifo.toml"), "not a regular file (a FIFO); not read"
    run = _cli(examples_tree, "check", "--no-cache", "--config", config, RECIPE)
    assert run.returncode == 2, run.stderr  # was: MemoryError traceback; a hang
    assert f"{config}: {says}" in run.stderr and "Traceback" not in run.stderr


def test_manifest_naming_a_device_is_a_usage_error(examples_tree: Path) -> None:
    run = _cli(examples_tree, "record", "--manifest", "/dev/zero",
               f"vllm-project/recipes@{'0' * 40}:{RECIPE}")
    assert run.returncode == 2, run.stderr
    assert "/dev/zero" in run.stderr and "not a regular file" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_config_larger_than_the_limit_is_not_read(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic, "INPUT_LIMIT", 1000, raising=False)
    config = tmp_path / "big.toml"
    config.write_text("# padding\n" * 200, "utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(config)
    monkeypatch.chdir(examples_tree)
    for named in (config, link):  # a link the user names is followed
        assert main(["check", "--no-cache", "--config", str(named), RECIPE]) == 2
        assert f"{named}: larger than 1000 bytes; not read" in capsys.readouterr().err
    config.write_text("# small\n", "utf-8")
    assert main(["check", "--no-cache", "--config", str(link), RECIPE]) == 0


def test_the_reader_never_opens_a_fifo_and_reads_at_most_one_byte_past_the_limit(
        tmp_path: Path) -> None:
    from validator.atomic import NotAFileError, read_input_file

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotAFileError, match="a FIFO"):
        read_input_file(tmp_path / "fifo")  # no writer: opening it would block
    with pytest.raises(NotAFileError, match="a folder"):
        read_input_file(tmp_path)
    with pytest.raises(NotAFileError, match="larger than 10 bytes"):
        read_input_file(_big(tmp_path), limit=10)
    assert read_input_file(_big(tmp_path), limit=11) == b"x" * 11
    with pytest.raises(FileNotFoundError):
        read_input_file(tmp_path / "missing")


def _big(folder: Path) -> Path:
    """A file of eleven bytes in ``folder``."""
    path = folder / "eleven"
    path.write_bytes(b"x" * 11)
    return path


def test_an_event_file_that_is_a_fifo_is_an_event_error_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "event.json")
    code = ("from validator.pr.event import EventError, read_event\n"
            "try:\n"
            f"    read_event({{'GITHUB_EVENT_PATH': {str(tmp_path / 'event.json')!r}}})\n"
            "except EventError as exc:\n"
            "    print(exc)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env={"PYTHONPATH": str(PROJECT)})  # was: no end
    assert "not a regular file (a FIFO); not read" in run.stdout, run.stderr
