"""A hardware profile's ``gpu_count`` is a whole number of at least 1: the site renders it
as the tensor-parallel size of ``single_node_tp`` (``--tensor-parallel-size 0`` for 0).
``pr`` on a real git repository (our example tree) blocks a taxonomy change to 0, a
negative or a fractional count at the taxonomy's line, and re-checks the recipes
rendering that profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import line_of

from .conftest import commit_all, git
from .test_context_attribution import pr


@pytest.mark.parametrize("count", ["0", "-2", "1.5"])
def test_a_gpu_count_below_one_or_fractional_is_an_error_on_the_taxonomy_line(
        example_repo: Path, capsys: pytest.CaptureFixture[str], count: str) -> None:
    git(example_repo, "branch", "base")
    taxonomy = example_repo / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8").replace("    gpu_count: 8\n",
                                                        f"    gpu_count: {count}\n", 1)
    taxonomy.write_text(text, encoding="utf-8")
    commit_all(example_repo, f"gpu_count {count}")
    code, data = pr(example_repo, capsys)
    errors = {(doc["path"], f["line"]) for doc in data["documents"] for f in doc["findings"]
              if f["severity"] == "error" and f["baseline"] == "new"
              and f["rule"].startswith("SCHEMA")}
    assert errors == {("taxonomy.yaml", line_of(text, f"gpu_count: {count}"))}
    assert code == 1
    # the recipes rendering that profile were checked again
    assert any(doc["path"].startswith("models/") for doc in data["documents"])


def test_a_gpu_count_of_one_passes(example_repo: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    taxonomy = example_repo / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text(encoding="utf-8").replace(
        "    gpu_count: 8\n", "    gpu_count: 1\n", 1), encoding="utf-8")
    commit_all(example_repo, "gpu_count 1")
    _code, data = pr(example_repo, capsys)
    assert not [f for doc in data["documents"] if doc["path"] == "taxonomy.yaml"
                for f in doc["findings"] if f["rule"].startswith("SCHEMA")]


def test_a_halved_gpu_count_with_the_old_vram_gb_is_a_new_error(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Trial 11 #18: four 80 GB H100s are not 640 GB; the fit rules would judge every
    recipe's h100 claims against it (``HW012`` at the profile's ``vram_gb``)."""
    git(example_repo, "branch", "base")
    taxonomy = example_repo / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8").replace(
        "    gpu_count: 8\n    vram_gb: 640\n", "    gpu_count: 4\n    vram_gb: 640\n", 1)
    taxonomy.write_text(text, encoding="utf-8")
    commit_all(example_repo, "h100: 4 GPUs")
    code, data = pr(example_repo, capsys)
    new = [(doc["path"], f["rule"], f["line"]) for doc in data["documents"]
           for f in doc["findings"] if f["baseline"] == "new"]
    assert new == [("taxonomy.yaml", "HW012", line_of(text, "vram_gb: 640"))]
    assert code == 1
