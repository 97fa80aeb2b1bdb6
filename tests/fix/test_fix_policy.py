"""``--fix`` and ``--diff`` judge a recipe exactly as ``check`` does: a finding that the
document's suppression comments, the recipes root's ``.recipe-check.toml`` or ``--ignore``
remove is not reported by ``check``, so it is never rewritten either."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fix.test_fixes import PATH, RECIPE, make_tree

PROJECT = Path(__file__).resolve().parents[2]
BROKEN = RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"\n')
"""The example recipe with one FLAG013 finding (an option spelt with underscores)."""


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", "--offline", *args, PATH],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"})


def test_diff_rewrites_the_finding_check_reports(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN)
    assert "FLAG013" in run(root).stdout
    proc = run(root, "--diff")
    assert proc.returncode == 1, proc.stderr
    assert '+      - "--max-model-len"' in proc.stdout


def test_diff_and_fix_leave_an_inline_suppressed_finding_alone(tmp_path: Path) -> None:
    text = BROKEN.replace('      - "--max_model_len"\n',
                          '      - "--max_model_len"  # recipe-check: ignore[FLAG013]\n')
    root = make_tree(tmp_path, text)
    assert "FLAG013" not in run(root).stdout
    proc = run(root, "--diff")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert run(root, "--fix").returncode in (0, 1)
    assert (root / PATH).read_text() == text


def test_diff_and_fix_leave_a_finding_the_configuration_ignores(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN)
    (root / ".recipe-check.toml").write_text('ignore = ["FLAG013"]\n')
    assert "FLAG013" not in run(root).stdout
    proc = run(root, "--diff")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    run(root, "--fix")
    assert (root / PATH).read_text() == BROKEN


def test_diff_leaves_a_finding_the_command_line_ignores(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN)
    proc = run(root, "--diff", "--ignore", "FLAG013")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    per_file = run(root, "--diff", "--config", str(_per_file_config(tmp_path)))
    assert (per_file.returncode, per_file.stdout) == (0, ""), per_file.stderr


def _per_file_config(tmp_path: Path) -> Path:
    config = tmp_path / "per-file.toml"
    config.write_text('[per-file-ignores]\n"models/acme/*.yaml" = ["FLAG013"]\n')
    return config
