"""``recipe-check diff``: what a change to a recipe changes for its users, on copies of the
shipped example tree (two folders, and two revisions of a git repository of our own)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from validator.cli import main
from validator.recipe_diff import options

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
CHAT = "models/example-org/Example-Chat-8B.yaml"


def copy_tree(dest: Path) -> Path:
    shutil.copytree(EXAMPLES, dest)
    return dest


def edit(root: Path, old: str, new: str) -> None:
    file = root / CHAT
    text = file.read_text(encoding="utf-8")
    assert old in text, old
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def change_recipe(root: Path) -> None:
    """A variant gains a flag, the minimum version moves, a claim and a variant are added,
    a feature becomes opt-in."""
    edit(root, '    description: "BF16 weights"\n',
         '    description: "BF16 weights"\n    extra_args:\n      - "--max-num-seqs"\n'
         '      - "32"\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n'
         '    description: "FP8 weights"\n')
    edit(root, 'min_vllm_version: "0.12.0"', 'min_vllm_version: "0.13.0"')
    edit(root, "    b200: verified\n", "    b200: verified\n    h200: experimental\n")
    edit(root, "opt_in_features: []", "opt_in_features: [tool_calling]")


def test_diff_of_two_paths_names_each_change(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    change_recipe(new)
    assert main(["diff", str(old / CHAT), str(new / CHAT), "--no-feature-sets"]) == 1
    lines = [ln.strip() for ln in capsys.readouterr().out.splitlines()]
    assert "minimum vLLM: 0.12.0 → 0.13.0" in lines
    assert "variants: default → default, fp8" in lines
    assert "hardware claim h200: + experimental" in lines
    assert "features on by default: tool_calling → (none)" in lines
    # every default-variant configuration gains the flag and loses the tool-calling flags
    changed = [ln for ln in lines if "· default · single_node_tp" in ln]
    assert changed, lines
    assert all("+ --max-num-seqs 32" in ln and "- --enable-auto-tool-choice" in ln
               and "- --tool-call-parser hermes" in ln for ln in changed)
    assert any(ln.startswith("h100 · default · single_node_tp") or "h100 · default" in ln
               for ln in changed)
    assert any(" · fp8 · single_node_tp" in ln and ln.endswith(": added") for ln in lines)


def test_identical_recipes_change_nothing(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    edit(new, "  ## Overview\n", "  ## Overview\n\n  A sentence of prose only.\n")  # guide only
    assert main(["diff", str(old / CHAT), str(new / CHAT)]) == 0
    out = capsys.readouterr().out
    assert "nothing changes for users (" in out and "configurations rendered the same" in out


def test_diff_json_and_a_strategy_change_of_the_context(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe is the same; its revision's strategy gains an argument: each side is
    rendered with its own strategies, so the commands differ."""
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    strategy = new / "strategies" / "single_node_tp.yaml"
    text = strategy.read_text(encoding="utf-8")
    strategy.write_text(text.replace("vllm_args: []", 'vllm_args: ["--enable-prefix-caching"]'),
                        encoding="utf-8")
    out = tmp_path / "diff.json"
    assert main(["diff", str(old / CHAT), str(new / CHAT), "--json", str(out), "--format",
                 "text"]) == 1
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["facts"] == [] and data["compared"] == len(data["configurations"]) > 0
    assert all(lines == ["+ --enable-prefix-caching"]
               for lines in data["configurations"].values())
    assert "+ --enable-prefix-caching" in capsys.readouterr().out


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t",
                           *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_two_revisions_of_one_recipe(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo = copy_tree(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    change_recipe(repo)
    git(repo, "commit", "-qam", "two")
    assert main(["diff", "--repo", str(repo), "main~1", "main", CHAT, "--no-feature-sets",
                 "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"#### main\\~1:{CHAT} → main:{CHAT}\n\n```text\n")
    assert "minimum vLLM: 0.12.0 → 0.13.0" in out
    # the same two revisions as pinned specs, fetched over git and verified
    monkeypatch.setenv("RECIPE_CHECK_GIT_URL", str(repo))
    old_sha, new_sha = git(repo, "rev-parse", "main~1"), git(repo, "rev-parse", "main")
    assert main(["diff", "--no-feature-sets", "--cache-dir", str(tmp_path / "cache"),
                 f"example/recipes@{old_sha}:{CHAT}", f"example/recipes@{new_sha}:{CHAT}"]) == 1
    assert "  minimum vLLM: 0.12.0 → 0.13.0\n" in capsys.readouterr().out
    assert main(["diff", "--repo", str(repo), "nope", "main", CHAT]) == 2
    assert "'nope' is not a revision" in capsys.readouterr().err
    assert main(["diff", "--repo", str(repo), "main~1", "main", "models/missing.yaml"]) == 2
    assert "models/missing.yaml: not found" in capsys.readouterr().err
    for folder in ("models/", "models/example-org"):  # a folder: one message, pointing at pr
        assert main(["diff", "--repo", str(repo), "main~1", "main", folder]) == 2
        assert f"{folder}: a folder (at main~1); diff compares one recipe file" in \
            capsys.readouterr().err


def test_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = copy_tree(tmp_path / "old")
    assert main(["diff", str(old / "models"), str(old / CHAT)]) == 2
    assert "diff compares one recipe" in capsys.readouterr().err


def test_options_group_flags_with_their_values() -> None:
    assert options(["vllm", "serve", "m", "--a", "1", "--b", "--c", "x y"]) == [
        "vllm serve m", "--a 1", "--b", "--c 'x y'"]


def test_a_side_that_does_not_load_is_said_so(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    edit(new, "variants:\n", "variants: [\n")
    assert main(["diff", str(old / CHAT), str(new / CHAT)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "cannot be loaded (YAML001 at line" in lines[1]
    assert lines[1].endswith("; nothing is compared")


def test_a_changed_item_is_shown_as_the_site_and_render_print_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A flag item and an item no flag takes are printed unquoted by the site and by
    ``render``; only the value after a flag is quoted: diff shows each item so."""
    old, new = copy_tree(tmp_path / "old"), copy_tree(tmp_path / "new")
    strategy = new / "strategies/single_node_tp.yaml"
    strategy.write_text(strategy.read_text().replace(
        'parallel_flag: "--tensor-parallel-size"', 'parallel_flag: "--tensor-parallel-size;id"'))
    edit(new, '    description: "BF16 weights"\n', '    description: "BF16 weights"\n'
         '    extra_args:\n      - "--served-model-name"\n      - "a b"\n      - "x;y"\n')
    assert main(["diff", str(old / CHAT), str(new / CHAT), "--no-feature-sets"]) == 1
    shown = capsys.readouterr().out
    assert main(["render", str(new / CHAT)]) == 0
    rendered = [ln.strip().removesuffix(" \\") for ln in capsys.readouterr().out.splitlines()]
    assert "+ --tensor-parallel-size;id 1" in shown
    assert "+ --served-model-name 'a b' x;y" in shown
    assert "--tensor-parallel-size;id 1" in rendered
    assert {"--served-model-name 'a b'", "x;y"} <= set(rendered)
