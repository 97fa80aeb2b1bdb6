"""REF017 and ``render --api-out`` refuse a variant ``model_id`` that names no file of its
own on every system the API is copied to: a Windows device name (``con/aux``), a ``.``
segment (``x/.`` is the folder ``x``), a trailing dot, a character Windows refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.rules.ref.test_ref_api_path import RECIPE, tree_with_variant_id
from validator.cli import main
from validator.render.api_paths import promoted_id_problem


@pytest.mark.parametrize(("model_id", "named"), [
    ("con/aux", "'con'"), ("x/.", "'.'"), ("org/Aux.v2", "'Aux.v2'"), ("org/name.", "'name.'"),
    ("org/a:b", "'a:b'"), ("org//name", "''"), ("lpt1/name", "'lpt1'")])
def test_an_id_no_windows_file_can_have_is_refused_with_its_line(
        corpus_repo: Path, tmp_path: Path, model_id: str, named: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    root, text = tree_with_variant_id(corpus_repo, tmp_path, model_id)
    (finding,) = [f for f in check_tree(root, RECIPE) if f.rule == "REF017"]
    assert finding.line == line_of(text, "    model_id: '")
    assert f"has the segment {named}" in finding.message
    out = tmp_path / "api"
    assert main(["render", "--api-out", str(out), str(root / RECIPE)]) == 2
    err = capsys.readouterr().err
    assert f"{RECIPE}:{finding.line}: model_id {model_id!r}" in err
    assert "refused" in err and not out.exists()


def test_ordinary_ids_stay_portable() -> None:
    for model_id in ("zai-org/GLM-5.2-FP8", "org/name.v2", "org/..name", "Qwen/Qwen3.5-397B",
                     "org/console", "org/auxiliary"):
        assert promoted_id_problem(model_id) is None, model_id
