"""Two ``platforms.yaml`` entries with one ``id`` are ``REF026`` at the later entry's
``id`` line (``check`` of the file, ``pr`` of a change adding it, on a real git
repository); ``VER004``'s hint names the image a value holds, never an option's value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import check_tree, line_of
from tests.pr.conftest import commit_all, example_repo, git  # noqa: F401  (fixture)
from tests.rules.ref.test_platforms_file import PLATFORMS
from validator.cli import main

SECOND = """  - id: modal
    name: Modal again
    url: https://example.com/modal
    blurb: A second entry of one id
"""
CHAT = "models/example-org/Example-Chat-8B.yaml"


def platform_findings(data: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(f["rule"], f["line"], f.get("baseline", "")) for d in data["documents"]
            if d["path"] == "platforms.yaml" for f in d["findings"]]


def test_check_reports_a_duplicate_platform_id_at_the_later_entry(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PLATFORMS + SECOND
    (examples_tree / "platforms.yaml").write_text(text, encoding="utf-8")
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 str(examples_tree / "platforms.yaml")])
    found = platform_findings(json.loads(capsys.readouterr().out))
    later = line_of(text, "  - id: modal", line_of(text, "  - id: modal") + 1)
    assert [(r, n) for r, n, _ in found] == [("REF026", later)]
    assert code == 1


def test_pr_blocks_a_change_adding_a_second_entry_of_one_id(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    (example_repo / "platforms.yaml").write_text(PLATFORMS, encoding="utf-8")
    commit_all(example_repo, "platforms")
    git(example_repo, "branch", "base")
    (example_repo / "platforms.yaml").write_text(PLATFORMS + SECOND, encoding="utf-8")
    commit_all(example_repo, "a second modal")
    code = main(["pr", "--offline", "--repo", str(example_repo), "--base", "base", "--head",
                 "HEAD", "--no-summary", "--format", "json"])
    found = platform_findings(json.loads(capsys.readouterr().out))
    assert [(r, b) for r, _, b in found] == [("REF026", "new")]
    assert code == 1


@pytest.mark.parametrize(("value", "hint"), [
    ("vllm/vllm-openai:v0.12.0 -p 1:1", "write only the image: 'vllm/vllm-openai:v0.12.0'"),
    ("docker run -p 8000:8000 vllm/vllm-openai:v0.12.0",
     "write only the image: 'vllm/vllm-openai:v0.12.0'"),
    ("-v a:b", "write an image reference such as vllm/vllm-openai:v0.23.0"),
])
def test_ver004s_hint_names_the_image_not_an_options_value(
        examples_tree: Path, value: str, hint: str) -> None:
    path = examples_tree / CHAT
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('  min_vllm_version:', f'  docker_image: "{value}"\n'
                                 '  min_vllm_version:', 1), encoding="utf-8")
    hints = [f.hint for f in check_tree(examples_tree, CHAT) if f.rule == "VER004"]
    assert hints == [hint]
