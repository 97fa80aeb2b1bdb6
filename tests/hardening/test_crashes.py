"""Inputs that crashed the checker (issue 16, item 10): each is now a finding or a usage
error naming the file, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from validator.analysis.arg_items import parse_int
from validator.analysis.versions import parse_min_version
from validator.cli import main
from validator.load import load_yaml
from validator.rules.hw.facts import amount
from validator.rules.hw.vram_formula import formula_vram_gb

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
HUGE = "9" * 5000


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    return root


def _check(args: list[str], capsys: pytest.CaptureFixture[str]
           ) -> tuple[int, dict[str, Any], str]:
    code = main([*args, "--format", "json"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err, out.err
    return code, (json.loads(out.out) if out.out.strip() else {}), out.err


def _rules(report: dict[str, Any], path: str) -> set[str]:
    return {f["rule"] for d in report["documents"] if d["path"] == path for f in d["findings"]}


def test_big_numbers_in_the_helpers() -> None:
    assert parse_int("1" * 400 + "k") is None and parse_int(HUGE) is None
    assert parse_int("128k") == 128000 and parse_int("2K") == 2048
    assert parse_int("12345678901234567891") == 12345678901234567891
    assert amount(10 ** 400) is None and amount(3) == 3.0
    assert formula_vram_gb(float("inf"), "bf16") is None
    assert formula_vram_gb(float("nan"), "bf16") is None
    assert formula_vram_gb(8.0, "bf16") == 20
    assert parse_min_version(HUGE) is None and parse_min_version("1." + HUGE) is None
    assert str(parse_min_version("0.11.0")) == "0.11.0"


def test_integer_over_4300_digits_loads() -> None:
    doc = load_yaml(f"a: {HUGE}\nb: -{HUGE}\nc: 0x{'f' * 5000}\n".encode(), "x.yaml")
    assert doc.ok
    assert doc.data["a"] == float("inf") and doc.data["b"] == float("-inf")
    assert doc.data["c"] == int("f" * 5000, 16)


@pytest.mark.parametrize("edit", [
    ("min_vllm_version: ", f"min_vllm_version: {HUGE} #"),
    ("parameter_count: ", f"parameter_count: {HUGE} #"),
    ("parameter_count: ", f"parameter_count: 1{'0' * 400}.0 #"),
    ("meta:\n", "omni: {tasks: -1}\nmeta:\n"),
    ("meta:\n", "omni: {tasks: {a: 1}}\nmeta:\n"),
    ("meta:\n", "omni: {tasks: [-1, null, {model_id: 5}]}\nmeta:\n"),
])
def test_hostile_values_become_findings(tree: Path, edit: tuple[str, str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    file = tree / RECIPE
    text = file.read_text()
    assert edit[0] in text
    file.write_text(text.replace(edit[0], edit[1], 1))
    code, report, _ = _check([str(file)], capsys)
    assert code in (0, 1)
    assert not report.get("internal_errors"), report.get("internal_errors")
    assert report["documents"][0]["path"] == RECIPE


def test_huge_vram_and_max_model_len(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tax = tree / "taxonomy.yaml"
    text = tax.read_text()
    assert "vram_gb:" in text
    tax.write_text(text.replace("vram_gb:", f"vram_gb: {HUGE} #", 1))
    recipe = tree / RECIPE
    rtext = recipe.read_text()
    recipe.write_text(rtext.replace("--max-model-len", f"--max-model-len {'9' * 400}k "
                                    "--ignored", 1) if "--max-model-len" in rtext else rtext)
    code, report, _ = _check([str(recipe)], capsys)
    assert code in (0, 1) and not report.get("internal_errors")


def test_symlink_loops_and_dangling_links(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tree / "models"
    (models / "loop1").symlink_to("loop2")
    (models / "loop2").symlink_to("loop1")
    (models / "self").symlink_to("self")
    (models / "example-org" / "loop.yaml").symlink_to("loop.yaml")
    (models / "example-org" / "dangling.yaml").symlink_to("nowhere.yaml")
    code, report, _ = _check([str(models)], capsys)
    assert code == 1
    paths = {d["path"] for d in report["documents"]}
    assert RECIPE in paths  # the rest of the tree is still checked
    assert _rules(report, "models/example-org/loop.yaml") == {"PROV005"}
    assert _rules(report, "models/example-org/dangling.yaml") == {"PROV005"}
    code, report, _ = _check([str(tree / RECIPE)], capsys)  # a loop elsewhere: no harm
    assert code == 0 and report["documents"][0]["path"] == RECIPE
    for link in ("loop.yaml", "dangling.yaml"):  # named explicitly: the same PROV005
        code, report, _ = _check([str(models / "example-org" / link)], capsys)
        assert code == 1 and _rules(report, f"models/example-org/{link}") == {"PROV005"}


def test_unreadable_folder_is_a_finding(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A folder the walk cannot list becomes a PROV005 error (root reads any folder, so
    the denial is made by ``os.scandir``, as the kernel would answer a non-root user)."""
    secret = tree / "models" / "secret-org"
    secret.mkdir()
    (secret / "Hidden.yaml").write_text("model: {}\n")
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == secret:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != secret)
    code, report, _ = _check([str(tree / "models")], capsys)
    assert code == 1
    assert _rules(report, "models/secret-org") == {"PROV005"}
    doc = next(d for d in report["documents"] if d["path"] == "models/secret-org")
    assert "folder cannot be read" in doc["findings"][0]["message"]


@pytest.mark.parametrize("url", ["ext::sh -c touch% /tmp/x", "ext::sh -c true%20://x",
                                 "fd::0", "fd::0://", "gopher://h/r", "--upload-pack=touch"])
def test_git_url_transports_are_usage_errors(url: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main([f"--git-url={url}", "--cache-dir", str(tmp_path),
                 "vllm-project/recipes@main:models/"])
    err = capsys.readouterr().err
    assert code == 2 and "--git-url" in err and "Traceback" not in err
