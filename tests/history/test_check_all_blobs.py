"""scripts/check_all_blobs.py: every distinct recipe blob of every ref, checked once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SCRIPT = PROJECT / "scripts" / "check_all_blobs.py"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def test_every_distinct_blob_of_every_ref_once(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "strategies").mkdir(parents=True)
    (repo / "models" / "org").mkdir(parents=True)
    (repo / "taxonomy.yaml").write_text("hardware_profiles: {}\n")
    (repo / "strategies" / "single_node_tp.yaml").write_text("name: single_node_tp\n")
    _git(tmp_path, "init", "-q", "-b", "main", str(repo))
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    recipe = repo / "models" / "org" / "a.yaml"
    for i, text in enumerate(["model:\n  model_id: org/a\n",        # blob 1
                              "model: [unclosed\n",                   # blob 2: YAML001
                              "model:\n  model_id: org/a\n"]):        # blob 1 again
        recipe.write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"c{i}")
    _git(repo, "checkout", "-q", "-b", "pr")                          # a PR-like branch
    (repo / "models" / "org" / "b.yaml").write_bytes(b"\x00binary")   # blob 3: YAML006
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pr")
    out_json = tmp_path / "counts.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), str(repo), "--jobs", "1",
                           "--json", str(out_json)], capture_output=True, text=True,
                          cwd=PROJECT)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    counts = json.loads(out_json.read_text())
    expected = {line.split()[0] for line in _git(repo, "rev-list", "--all", "--objects")
                .splitlines() if line.endswith(".yaml") and " models/" in line}
    assert counts["blobs"] == len(expected) == 3
    assert counts["blobs_by_rule"]["YAML001"] == 1
    assert counts["blobs_by_rule"]["YAML006"] == 1
    assert "3 distinct models/**/*.yaml blobs" in proc.stdout
    main_only = subprocess.run([sys.executable, str(SCRIPT), str(repo), "--rev", "main",
                                "--jobs", "1"], capture_output=True, text=True, cwd=PROJECT)
    assert "2 distinct" in main_only.stdout


def test_not_a_repository_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                          text=True, cwd=PROJECT)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
