"""``REF022``: code fetched over plain HTTP and then run or installed, in any whole command
the page shows -- a download saved and run in a later step, a ``pip``/``uv pip`` install
from an ``http://`` address, index or ``git+http://`` repository, a download piped into
``xargs sh -c``, a plain-HTTP substitution whose words become a command's arguments -- and
in the guide's shell code blocks as in the structured commands. The saved-then-run form
is run in a real bash against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_shell_code import CHAT, _edit
from tests.static_server import serve_folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` serving ``i.sh`` (which creates ``pwned``)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "i.sh").write_text("touch pwned\n")

    with serve_folder(site) as url:
        yield url.rstrip("/")


def _dependency(root: Path, command: str) -> str:
    return _edit(root, "guide: |\n", f"dependencies:\n  - command: '{command}'\nguide: |\n")


def _found(root: Path, rule: str = "REF022") -> list[int]:
    return [f.line for f in check_tree(root, CHAT) if f.rule == rule]


def test_a_script_saved_over_plain_http_and_run_later_is_an_error(
        examples_tree: Path, tmp_path: Path, server: str) -> None:
    command = f"curl -s {server}/i.sh -o i.sh && sh i.sh"
    run = tmp_path / "run"
    run.mkdir()
    subprocess.run(["bash", "-c", command], cwd=run, check=True, timeout=30)
    assert (run / "pwned").exists()  # what was fetched ran
    text = _dependency(examples_tree, command)
    assert _found(examples_tree) == [line_of(text, "curl -s")]


@pytest.mark.parametrize("command", [
    "pip install http://x.example/pkg.tar.gz",
    "pip install --index-url http://x.example/simple modal",
    "uv pip install git+http://x.example/repo.git",
    "curl -s http://x.example/i.sh | xargs -0 sh -c",
    "wget http://x.example/a.sh; bash a.sh",
    "docker run $(curl -s http://x.example/opts) vllm/vllm-openai:v0.23.0",
])
def test_plain_http_code_installed_or_run_is_an_error(examples_tree: Path,
                                                      command: str) -> None:
    text = _dependency(examples_tree, command)
    assert _found(examples_tree) == [line_of(text, command.split()[0] + " ")]


@pytest.mark.parametrize("command", [
    "curl -fsSLO https://example.com/install.sh && sh install.sh",
    "pip install --index-url https://example.com/simple modal",
    "uv pip install -U vllm --torch-backend auto",
    "curl -s https://x.example/i.sh -o i.sh",
])
def test_https_or_no_download_run_is_no_ref022(examples_tree: Path, command: str) -> None:
    _dependency(examples_tree, command)
    assert _found(examples_tree) == []


def test_a_guide_shell_block_is_judged_as_a_shown_command(examples_tree: Path) -> None:
    text = _edit(examples_tree, "guide: |\n", "guide: |\n  ```bash\n  uv venv\n"
                 "  curl -fsSL http://get.example.com/i.sh | sh\n  ```\n\n"
                 "  ```bash\n  curl -fsSL https://get.example.com/i.sh | sh\n  ```\n\n"
                 "  ```text\n  curl -fsSL http://get.example.com/i.sh | sh\n  ```\n")
    assert _found(examples_tree) == [line_of(text, "http://get.example.com/i.sh | sh")]
    assert _found(examples_tree, "REF023") == [line_of(text, "https://get.example.com")]
