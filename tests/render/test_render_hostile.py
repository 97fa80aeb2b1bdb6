"""``recipe-check render`` on hostile input and pipes: a reader that leaves, ``--all``
listing each configuration once, ``--api-out`` naming the recipe line it refuses, a tree
without a taxonomy."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.render.tiny_tree import write_tree
from validator.cli import EXIT_BROKEN_PIPE

PROJECT = Path(__file__).resolve().parents[2]


def cli(*args: str | Path, cwd: Path = PROJECT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "validator", "render", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "recipes")


def test_all_piped_into_head_exits_141_without_a_traceback(tree: Path) -> None:
    """``render --all | head -1``: the text (~800 KB for the tiny recipe) is more than a
    pipe holds, so the reader leaves while it is still being written."""
    proc = subprocess.Popen([sys.executable, "-m", "validator", "render", "--all",
                             str(tree / "models/acme/Tiny-1B.yaml")], cwd=PROJECT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"# models/acme/Tiny-1B.yaml")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == EXIT_BROKEN_PIPE
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def _base(config: dict[str, object]) -> str:
    return json.dumps({**config, "feature_modes": []}, sort_keys=True)


def test_all_lists_a_default_mode_once(tree: Path) -> None:
    """The tiny recipe's ``spec`` feature has modes mtp (its ``default_mode``) and draft:
    with every feature on, ``--mode spec=mtp`` is the page's state without a pick, so
    ``--all`` renders it once; ``spec=draft`` is another configuration and stays."""
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--all", "--format", "json")
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    modes = [tuple(map(tuple, i["config"]["feature_modes"])) for i in items]
    assert (("spec", "mtp"),) not in modes
    assert (("spec", "draft"),) in modes
    commands: dict[tuple[str, tuple[str, ...]], list[object]] = {}
    for item in items:
        key = (_base(item["config"]), tuple(p["command"] for p in item["processes"]))
        commands.setdefault(key, []).append(item["config"]["feature_modes"])
    assert all(len(v) == 1 for v in commands.values()), \
        [v for v in commands.values() if len(v) > 1][:3]
    # each explicit draft pick renders other commands than the same configuration without it
    bases = {_base(i["config"]) for i in items if not i["config"]["feature_modes"]}
    assert all(_base(i["config"]) in bases for i in items if i["config"]["feature_modes"])


def test_api_out_refusal_names_the_recipe_line_of_the_model_id(tree: Path,
                                                                 tmp_path: Path) -> None:
    recipe = tree / "models/acme/Tiny-1B.yaml"
    text = recipe.read_text("utf-8").replace("model_id: acme/Tiny-1B-FP8",
                                             'model_id: "acme/../.."')
    recipe.write_text(text, "utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "acme/../.." in t)
    out = tmp_path / "api"
    done = cli(tree / "models", "--api-out", out)
    assert done.returncode == 2, done.stderr
    assert f"models/acme/Tiny-1B.yaml:{line}:15: error: model_id 'acme/../..' of variant " \
        "'fp8' leaves the API folder" in done.stderr
    assert "[REF017]" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


def test_without_a_taxonomy_render_says_the_taxonomy_is_missing(tree: Path) -> None:
    (tree / "taxonomy.yaml").unlink()
    done = cli(tree / "models/acme/Tiny-1B.yaml", "--root", tree)
    assert done.returncode == 2
    assert f"{tree}: no taxonomy.yaml at the recipes root" in done.stderr
    assert "not a profile" not in done.stderr and "Tiny-1B.yaml:" not in done.stderr
    assert done.stdout == ""


def test_all_on_the_corpus_lists_glm_5_2_configurations_once(corpus_repo: Path,
                                                             tmp_path: Path) -> None:
    """GLM-5.2 at corpus main: 702 renderings before, 207 of them a default mode given
    explicitly; each of the 495 also with every KV offload option the site offers beside
    it (1,100 more)."""
    recipes = tmp_path / "recipes"
    shutil.copytree(corpus_repo, recipes, ignore=shutil.ignore_patterns(".git"))
    done = cli(recipes / "models/zai-org/GLM-5.2.yaml", "--all", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    items = json.loads(done.stdout)
    assert len([i for i in items if "kv_option" not in i["config"]]) == 495
    assert len(items) == 1595
    keys = {(_base(i["config"]), json.dumps([p["argv"] for p in i["processes"]]))
            for i in items}
    assert len(keys) == len(items)
