"""``recipe-check render`` text: a command that holds shell code has a ``# warning:`` line
per hazard above it (``REF018``), and a comment line built from recipe text keeps that
text on the line, so a line break in it cannot start a command -- run in a real bash."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.cli_in_process import run_cli

PROJECT = Path(__file__).resolve().parents[2]
CHAT = "models/example-org/Example-Chat-8B.yaml"


def _render(root: Path) -> str:
    done = run_cli("render", str(root / CHAT), cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _run_all(text: str, cwd: Path) -> None:
    """The whole text pasted into ``env -i bash``, with ``uv``, ``docker`` and ``vllm``
    stubs that do nothing."""
    stubs = cwd / "stubs"
    stubs.mkdir()
    for name in ("uv", "docker", "vllm"):
        (stubs / name).write_text("#!/bin/sh\nexit 0\n")
        (stubs / name).chmod(0o755)
    subprocess.run(["env", "-i", f"PATH={stubs}:/usr/bin:/bin", "bash", "-c", text], cwd=cwd,
                   capture_output=True, text=True, timeout=60, check=False)


def test_a_note_with_a_line_break_stays_a_comment_and_shell_code_gets_a_warning(
        examples_tree: Path, tmp_path: Path) -> None:
    recipe = examples_tree / CHAT
    recipe.write_text(recipe.read_text().replace(
        "  base_env: {}",
        '  base_env:\n    VLLM_LOGGING_LEVEL: "$(touch from-env)"\n'
        '  install:\n    pip:\n      note: "read this\\ntouch from-note"'))
    text = _render(examples_tree)
    _run_all(text, tmp_path)
    assert not (tmp_path / "from-note").exists()  # the note stayed a comment
    assert (tmp_path / "from-env").exists()  # what the warning says the command does
    assert "# read this\\u000atouch from-note" in text
    lines = text.splitlines()
    docker = lines.index("docker run --gpus all \\")
    assert lines[docker - 1].startswith("# warning: REF018: bash would not run this command "
                                        "as shown: command substitution `$(touch from-env)`")
    assert "export VLLM_LOGGING_LEVEL='$(touch from-env)'" in lines


def test_a_clean_rendering_has_no_warning(examples_tree: Path) -> None:
    assert "# warning:" not in _render(examples_tree)


def test_every_comment_line_keeps_all_of_its_recipe_text_on_the_line(
        examples_tree: Path, tmp_path: Path) -> None:
    """A dependency's note is a block title: all of it is printed, each line break as
    ``\\u000a`` (as a pip note), nothing after the first break dropped or run."""
    recipe = examples_tree / CHAT
    recipe.write_text(recipe.read_text() + (
        'dependencies:\n  - note: "Pin vllm\\ntouch from-dependency"\n'
        '    command: "uv pip install vllm"\n'))
    text = _render(examples_tree)
    _run_all(text, tmp_path)
    assert not (tmp_path / "from-dependency").exists()
    assert "# --- dependency: Pin vllm\\u000atouch from-dependency ---" in text.splitlines()


def test_an_export_changing_the_download_source_has_a_note_and_stays_copyable(
        examples_tree: Path) -> None:
    """``HF_ENDPOINT`` (``check``: ENV002, a warning) gets a ``# note: ENV002`` line above
    its ``export`` and above the ``docker run`` that passes it with ``-e``; no
    ``# warning:`` (the block is still copyable); another env name gets no note."""
    recipe = examples_tree / CHAT
    recipe.write_text(recipe.read_text().replace(
        "  base_env: {}",
        '  base_env:\n    HF_ENDPOINT: "https://hf-mirror.example"\n    NCCL_DEBUG: "INFO"'))
    lines = _render(examples_tree).splitlines()
    note = ("# note: ENV002 HF_ENDPOINT=https://hf-mirror.example changes where code, "
            "weights or packages are fetched from: huggingface_hub")
    export = lines.index("export HF_ENDPOINT=https://hf-mirror.example")
    assert lines[export - 1].startswith(note)
    docker = lines.index("docker run --gpus all \\")
    assert lines[docker - 1].startswith(note)
    assert sum(line.startswith("# note: ENV002") for line in lines) == 2
    assert not any(line.startswith("# warning:") for line in lines)
