"""``render`` warns above a command exactly where ``check`` reports ``FLAG027``: a flag
item bash changes (a glob ``--x*``, braces ``--y{a,b}``, a trailing backslash ``--x\\``)
gets a ``# warning:`` line in both the ``vllm serve`` and the ``docker run`` block -- the
same predicate (:func:`validator.analysis.shell_words.flag_item_change`) decides both.
The rendered command is run in a real bash to show what it passes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.conftest import check_tree
from tests.render.test_render_shell_warnings import CHAT, PROJECT

ITEMS = ["--x*", "--y{a,b}", "--x\\"]


def _with_items(root: Path, items: list[str]) -> None:
    recipe = root / CHAT
    quoted = "".join(f"\n    - '{item}'" for item in items)
    text = recipe.read_text()
    assert "  base_args:\n" in text
    recipe.write_text(text.replace("  base_args:", "  base_args:" + quoted, 1))


def _render_text(root: Path) -> str:
    done = run_cli("render", str(root / CHAT), cwd=PROJECT)
    return done.stdout


@pytest.mark.parametrize("item", ITEMS)
def test_a_flag_item_check_reports_gets_a_warning_line_in_render(
        examples_tree: Path, tmp_path: Path, item: str) -> None:
    _with_items(examples_tree, [item])
    assert "FLAG027" in {f.rule for f in check_tree(examples_tree, CHAT)}
    text = _render_text(examples_tree)
    lines = text.splitlines()
    warned = [line for line in lines if line.startswith("# warning:") and item in line]
    serve = next(i for i, line in enumerate(lines) if line.startswith("vllm serve"))
    docker = lines.index("docker run --gpus all \\")
    assert lines[serve - 1] in warned and lines[docker - 1] in warned
    # what the warning says: bash does not pass the item as written
    (tmp_path / "--xa").write_text("")
    command = next(line for line in lines if line.startswith("vllm serve"))
    passed = subprocess.run(["bash", "-c", f"printf '%s\\n' {command.split(' ', 2)[2]}"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=30,
                            check=False).stdout.splitlines()
    assert item not in passed


def test_items_check_passes_get_no_flag_item_warning(examples_tree: Path) -> None:
    _with_items(examples_tree, ["--enable-prefix-caching", "--max-num-seqs=$N"])
    assert "FLAG027" not in {f.rule for f in check_tree(examples_tree, CHAT)}
    assert "flag item" not in _render_text(examples_tree)
