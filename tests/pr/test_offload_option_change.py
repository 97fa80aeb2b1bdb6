"""A taxonomy KV offload option without ``requires_opt_in`` goes into the commands the
site shows for every recipe that does not opt out. A flag of it newer than a recipe's
minimum is a warning in ``check`` (no line of the recipe chose the option), but a pull
request that adds or changes the option chose it for every such recipe: ``pr`` reports
the finding on the taxonomy as an error, new, which blocks -- as it does a strategy or a
kv-store file gaining such a flag. An option the change leaves alone keeps the warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of

from .conftest import EXAMPLES, commit_all, git
from .test_context_attribution import pr

NEWER_FLAG = "--linear-backend"  # a vLLM option from 0.22.0, above both example minimums


def option(key: str, args: str) -> str:
    """A KV offload option of the taxonomy (no gate: offered to every recipe)."""
    return f'  {key}:\n    display_name: "{key}"\n    args: [{args}]\n'


def write_options(repo: Path, *options: str) -> str:
    """The example taxonomy with a ``kv_offload`` section of ``options``; its text."""
    taxonomy = repo / "taxonomy.yaml"
    text = (EXAMPLES / "taxonomy.yaml").read_text(encoding="utf-8") + "\nkv_offload:\n" \
        + "".join(options)
    taxonomy.write_text(text, encoding="utf-8")
    return text


def option_findings(data: dict[str, Any], key: str) -> list[tuple[str, int, str, str]]:
    """``(path, line, severity, baseline)`` of the FLAG002 findings naming option ``key``."""
    return sorted((doc["path"], f["line"], f["severity"], f["baseline"])
                  for doc in data["documents"] for f in doc["findings"]
                  if f["rule"] == "FLAG002" and f"kv_offload.{key}.args" in f["message"])


def test_an_added_unlisted_option_with_a_too_new_flag_is_a_new_error_on_the_taxonomy(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(example_repo, "branch", "base")
    text = write_options(example_repo, option("fancy", f'"{NEWER_FLAG}", "auto"'))
    commit_all(example_repo, "an option every recipe is offered")
    for _warm in (False, True):  # the second run answers its recipes from the unit cache
        code, data = pr(example_repo, capsys)
        line = line_of(text, NEWER_FLAG)
        assert option_findings(data, "fancy") == [("taxonomy.yaml", line, "error", "new")] * 2
        assert code == 1


def test_a_changed_option_reports_its_flag_as_an_error_an_unchanged_one_as_a_warning(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both options have the too-new flag at the base (warnings, existing: no change chose
    them); the change edits ``edited`` only: its flag is an error, existing (the base had
    it), and ``kept``'s stays a warning; nothing blocks."""
    write_options(example_repo, option("kept", f'"{NEWER_FLAG}", "auto"'),
                  option("edited", f'"{NEWER_FLAG}", "auto"'))
    commit_all(example_repo, "two options")
    git(example_repo, "branch", "base")
    write_options(example_repo, option("kept", f'"{NEWER_FLAG}", "auto"'),
                  option("edited", f'"{NEWER_FLAG}", "auto", "--max-num-seqs", "8"'))
    commit_all(example_repo, "edit one option")
    code, data = pr(example_repo, capsys)
    assert {(s, b) for _p, _l, s, b in option_findings(data, "edited")} == {
        ("error", "unchanged")}
    assert {(s, b) for _p, _l, s, b in option_findings(data, "kept")} == {
        ("warning", "unchanged")}
    assert code == 0
