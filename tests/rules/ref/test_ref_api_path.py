"""REF017: ``check`` reports every variant ``model_id`` that ``render --api-out`` refuses
to write, with the same predicate, and accepts every one it writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from validator.cli import main
from validator.render.api_paths import api_path_problem, promoted_id_problem

PROJECT = Path(__file__).resolve().parents[3]
RECIPE = "models/example-org/Example-Chat-8B.yaml"


def tree_with_variant_id(corpus_repo: Path, tmp_path: Path, model_id: str) -> tuple[Path, str]:
    """The corpus's context files with our own small recipe whose fp8 variant has
    ``model_id`` (written as a YAML single-quoted scalar)."""
    root = tmp_path / "recipes"
    root.mkdir()
    for name in ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store"):
        src = corpus_repo / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, root / name)
    text = (PROJECT / "examples" / "recipes" / RECIPE).read_text()
    needle = '    description: "BF16 weights"\n'
    assert needle in text
    quoted = model_id.replace("'", "''")
    text = text.replace(needle, f"{needle}  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
                        f"    model_id: '{quoted}'\n", 1)
    (root / RECIPE).parent.mkdir(parents=True)
    (root / RECIPE).write_text(text)
    return root, text


@pytest.mark.parametrize("model_id", ["../..", "org/..", "org/../../etc", "..\\..\\x/y",
                                      "org\\sub/name", "/etc/passwd", "org/x/../.."])
def test_an_id_that_api_out_refuses_is_ref017_at_its_line(
        corpus_repo: Path, tmp_path: Path, model_id: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    root, text = tree_with_variant_id(corpus_repo, tmp_path, model_id)
    found = [(f.rule, f.line, f.pointer) for f in check_tree(root, RECIPE)
             if f.rule == "REF017"]
    assert found == [("REF017", line_of(text, "    model_id: '"), "/variants/fp8/model_id")]
    out = tmp_path / "api"
    assert main(["render", "--api-out", str(out), str(root / RECIPE)]) == 2
    err = capsys.readouterr().err
    assert "refused" in err and not out.exists()


@pytest.mark.parametrize("model_id", ["example-org/Example-Chat-8B-FP8", "org/name.v2",
                                      "org/..name", "not-promoted"])
def test_an_id_that_api_out_writes_is_no_finding(corpus_repo: Path, tmp_path: Path,
                                                 model_id: str) -> None:
    root, _ = tree_with_variant_id(corpus_repo, tmp_path, model_id)
    assert [f for f in check_tree(root, RECIPE) if f.rule == "REF017"] == []
    assert main(["render", "--api-out", str(tmp_path / "api"), str(root / RECIPE)]) == 0


def test_the_predicate() -> None:
    assert api_path_problem("") is None  # the folder itself, on purpose (clear it)
    assert api_path_problem("org/name/hw/h200.json") is None
    assert api_path_problem("org/..") == "names the API folder itself ('..' segments)"
    assert api_path_problem("../x.json") == "leaves the API folder ('..' segments)"
    assert promoted_id_problem("org/name") is None
    assert promoted_id_problem("..") is not None
