"""``pr`` takes the run options of ``check`` from one place (``commands/options.py``) and
judges both revisions as ``check`` does: every rendered command by default."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.commands import check, pr
from validator.commands.options import settings_from
from validator.context import Settings
from validator.findings import Finding, Severity
from validator.identity import identity
from validator.pr.baseline import compare

from .conftest import git

RUN_OPTIONS = ("strict", "offline", "online_releases", "max_bytes", "as_of", "vllm",
               "rendered", "select", "extend_select", "ignore", "config", "format", "output")


def parsed(module: Any, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(argv)


def test_check_and_pr_share_options_and_defaults() -> None:
    at_check, at_pr = parsed(check, ["x.yaml"]), parsed(pr, [])
    assert {o: getattr(at_check, o) for o in RUN_OPTIONS} == \
        {o: getattr(at_pr, o) for o in RUN_OPTIONS}
    assert settings_from(at_check) == settings_from(at_pr) == Settings(rendered=True)
    assert not parsed(pr, ["--as-written"]).rendered
    assert parsed(pr, ["--as-written", "--rendered"]).rendered


@pytest.mark.parametrize("module", [check, pr], ids=["check", "pr"])
@pytest.mark.parametrize("old", ["--layers-only", "--no-rendered"])
def test_as_written_old_spellings_still_work_with_a_warning_naming_as_written(
        module: Any, old: str, capsys: pytest.CaptureFixture[str]) -> None:
    paths = ["x.yaml"] if module is check else []
    assert not parsed(module, ["--as-written", *paths]).rendered
    assert capsys.readouterr().err == ""
    assert not parsed(module, [old, *paths]).rendered
    assert capsys.readouterr().err == (
        f"recipe-check: warning: {old} is deprecated; use --as-written\n")


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "lots"])
def test_pr_max_bytes_takes_a_positive_integer_only(value: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["pr", "--max-bytes", value])
    assert exc.value.code == 2
    assert "--max-bytes" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["check", "x.yaml"], ["pr"]])
def test_offline_contradicts_online_releases(command: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--offline", "--online-releases"]) == 2
    assert "--online-releases contradicts --offline" in capsys.readouterr().err


def finding(message: str) -> Finding:
    return Finding(rule="FLAG002", severity=Severity.ERROR, path="models/a/b.yaml",
                   pointer="/model/base_args/3", line=12, column=5, message=message)


def test_configurations_a_finding_names_do_not_make_it_new() -> None:
    """A change that adds hardware makes an existing problem reach more configurations:
    still the same finding. A different problem at the same place is new."""
    base = [finding("`--x` exists only from vLLM 0.8.2 (on h200 · default · tp and 103 more)"),
            finding("`--y` is gone in vLLM 0.20 (in no command the site renders)")]
    head = [finding("`--x` exists only from vLLM 0.8.2 (on h200 · default · tp and 191 more)"),
            finding("`--y` is gone in vLLM 0.20 (on b200 · fp8 · tp)"),
            finding("`--z` exists only from vLLM 0.9.0 (on h200 · default · tp)")]
    marked, fixed = compare(base, head)
    assert [f.baseline for f in marked] == ["unchanged", "unchanged", "new"]
    assert fixed == []
    assert identity(finding("m (on a and 1 more)")) == identity(finding("m"))
    assert identity(finding("m (see line 3)")) != identity(finding("m"))


def pr_json(repo: Path, number: int, capsys: pytest.CaptureFixture[str],
            *extra: str) -> dict[str, Any]:
    head = git(repo, "rev-parse", f"refs/pull/{number}/head")
    main(["pr", "--repo", str(repo), "--base", "main", "--head", head, "--format", "json",
          "--no-summary", *extra])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.corpus
def test_pr_checks_rendered_commands_unless_as_written(
        corpus_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PR #821 adds configurations to Llama-3.1-8B-Instruct, whose FLAG016 warning on
    ``VLLM_USE_FLASHINFER_MOE_FP8`` of the Blackwell override exists at the base. Checked
    on rendered commands (the default) the findings name the configurations they reach;
    the split stays that of the argument layers (10 new, 11 existing, 0 fixed): reaching
    more configurations does not make the finding new. (The EAGLE3 feature's
    ``--speculative-config`` is no FLAG002: the feature states it needs vLLM 0.9.0. Eight
    of the new are the taxonomy's: its ``simple``/``lmcache`` KV offload options'
    ``--kv-transfer-config`` on the four Llama recipes the PR adds below 0.6.5, warnings
    since no recipe lists the options: the PR made those pairs.)"""
    rendered = pr_json(corpus_repo, 821, capsys)
    layers = pr_json(corpus_repo, 821, capsys, "--as-written")
    messages = [f["message"] for d in rendered["documents"] for f in d["findings"]]
    assert any("(on " in m and "more)" in m for m in messages)
    assert not any("(on " in f["message"] for d in layers["documents"] for f in d["findings"])
    for data in (rendered, layers):
        assert {k: data["summary"][k] for k in ("new", "existing", "fixed")} == \
            {"new": 10, "existing": 11, "fixed": 0}
    moe = [f for d in rendered["documents"] for f in d["findings"]
           if f["rule"] == "FLAG016" and "VLLM_USE_FLASHINFER_MOE_FP8" in f["message"]]
    assert moe and all(f["baseline"] == "unchanged" and "more)" in f["message"] for f in moe)
    assert not [f for d in rendered["documents"] for f in d["findings"]
                if "--speculative-config" in f["message"]]
