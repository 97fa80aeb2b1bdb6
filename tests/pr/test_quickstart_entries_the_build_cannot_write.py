"""Quickstart entries the site's build cannot turn into a file of its API: a folder named
``quickstart/<name>.yaml`` (the build lists it and stops reading it, EISDIR), and a
``hardware_profile`` that is a mapping or a list (written as its JS text, or the build
throws) or too long for a file name (ENAMETOOLONG). ``check`` of the root and ``pr``
report ``REF028`` errors on them, and ``render --api-out`` refuses it with
the same predicate (real git)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.cli import main

from .conftest import commit_all, pr_json

RECIPE = "models/pfnet/plamo-2-translate.yaml"


def _folder_entry(root: Path) -> None:
    (root / "quickstart" / "h100.yaml").mkdir(parents=True)
    (root / "quickstart" / "h100.yaml" / "x.yaml").write_text("hardware_profile: h100\n")


def test_pr_adding_a_folder_named_as_a_quickstart_file_is_blocked(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = commit_all(example_repo, "base")
    _folder_entry(example_repo)
    head = commit_all(example_repo, "a folder named h100.yaml")
    code, doc = pr_json(example_repo, base, head, capsys)
    found = [(d["path"], f["rule"], f["severity"]) for d in doc["documents"]
             for f in d["findings"]]
    assert code == 1
    assert found == [("quickstart/h100.yaml", "REF028", "error")]
    assert "is a folder" in doc["documents"][0]["findings"][0]["message"]


@pytest.mark.corpus
def test_check_and_render_api_out_refuse_a_folder_named_as_a_quickstart_file(
        corpus_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _folder_entry(corpus_copy)
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 str(corpus_copy / RECIPE)])
    doc = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["rule"]) for d in doc["documents"] for f in d["findings"]
             if f["rule"] == "REF028"]
    assert code == 1 and found == [("quickstart/h100.yaml", "REF028")]
    code = main(["render", "--root", str(corpus_copy), "--api-out", str(tmp_path / "api"),
                 str(corpus_copy / RECIPE)])
    err = capsys.readouterr().err
    assert code == 2
    assert "quickstart/h100.yaml: REF028: is a folder" in err
    assert not (tmp_path / "api").exists()


@pytest.mark.parametrize(("value", "says"), [
    ("{toString: x}", "Cannot convert object to primitive value) and stops"),
    ("[a, {toString: 1}]", "Cannot convert object to primitive value) and stops"),
    ("{name: h100}", "is a mapping, not a name: the site writes this file to "
                     "quickstart/[object Object].json"),
    ("[h100, b]", "is a list, not a name: the site writes this file to quickstart/h100,b.json"),
    ("a" * 251, "is a file name of 256 bytes, longer than file systems allow (255)"),
])
def test_pr_adding_a_hardware_profile_the_build_cannot_name_a_file_by_is_blocked(
        example_repo: Path, capsys: pytest.CaptureFixture[str], value: str, says: str) -> None:
    base = commit_all(example_repo, "base")
    (example_repo / "quickstart").mkdir()
    (example_repo / "quickstart" / "h100.yaml").write_text(f"hardware_profile: {value}\n")
    head = commit_all(example_repo, "a quickstart")
    code, doc = pr_json(example_repo, base, head, capsys)
    found = [(d["path"], f["rule"], f["line"], f["message"]) for d in doc["documents"]
             for f in d["findings"] if f["rule"] == "REF028"]
    assert code == 1
    assert len(found) == 1 and found[0][:3] == ("quickstart/h100.yaml", "REF028", 1)
    assert says in found[0][3]


def test_a_hardware_profile_of_250_bytes_passes_the_length_check(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = commit_all(example_repo, "base")
    (example_repo / "quickstart").mkdir()
    (example_repo / "quickstart" / "h100.yaml").write_text(f"hardware_profile: {'a' * 250}\n")
    head = commit_all(example_repo, "a quickstart")
    code, doc = pr_json(example_repo, base, head, capsys)
    rules = [f["rule"] for d in doc["documents"] for f in d["findings"]]
    assert code == 0 and rules == ["REF029"]  # no hardware id, but a file name


@pytest.mark.corpus
@pytest.mark.parametrize(("value", "says"), [
    ("a" * 300, "longer than file systems allow (255): the site's build stops writing it "
                "(ENAMETOOLONG); refused"),
    ("{toString: x}", "Cannot convert object to primitive value"),
])
def test_render_api_out_refuses_a_hardware_profile_the_build_cannot_name_a_file_by(
        corpus_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str,
        says: str) -> None:
    (corpus_copy / "quickstart").mkdir(exist_ok=True)
    (corpus_copy / "quickstart" / "h100.yaml").write_text(f"hardware_profile: {value}\n")
    code = main(["render", "--root", str(corpus_copy), "--api-out", str(tmp_path / "api"),
                 str(corpus_copy / RECIPE)])
    err = capsys.readouterr().err
    assert code == 2
    assert "quickstart/h100.yaml: REF028: " in err and says in err
    assert "Errno" not in err
    assert not (tmp_path / "api").exists()
