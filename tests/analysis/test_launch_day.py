"""Launch-day recipes: a minimum no release has yet, with an install path that pulls
unreleased vLLM (``nightly_required``'s nightly wheel and image, a launch image), is
judged by one decision of the version plan (:func:`validator.analysis.cli_plan.launch_day`):
what no vendored release has cannot be verified, so it is one info per recipe
(``FLAG019``, at ``min_vllm_version``, naming the ``nightly_required`` line), never an
error. A recipe that claims a released minimum, or installs only releases, still gets
the errors; what a release can tell (a typo of a released flag, JSON) is still checked.

The recipes are real: Tencent's Hy3-preview as its launch pull request (#363 of the
corpus, 2026-04-23) added it, checked as of that day, when vLLM 0.20.1 was unreleased.
"""

from __future__ import annotations

import json
import subprocess
from datetime import date
from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of
from validator.cli import main
from validator.context import Settings
from validator.findings import Finding

HY3 = "models/tencent/Hy3-preview.yaml"
LAUNCH_PR = 363
LAUNCH_DAY = date(2026, 4, 23)
UNVERIFIABLE = "cannot be verified against a released vLLM yet"


def launch_recipe(corpus_repo: Path, root: Path) -> str:
    """Hy3-preview as PR #363's head has it, written into ``root``."""
    text = subprocess.run(["git", "show", f"refs/pull/{LAUNCH_PR}/head:{HY3}"],
                          cwd=corpus_repo, check=True, capture_output=True,
                          text=True).stdout
    (root / HY3).parent.mkdir(parents=True, exist_ok=True)
    (root / HY3).write_text(text, "utf-8")
    return text


def check_file(root: Path, path: str, text: str, settings: Settings) -> list[Finding]:
    """Every finding of ``text`` written as ``path`` of the tree ``root``."""
    from validator.checker import Checker, RunResult
    from validator.context import local_context
    from validator.rule_index import check_rules
    from validator.schema import SchemaValidator

    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, "utf-8")
    ctx = local_context(root, settings)
    result = RunResult()
    data = text.encode()
    Checker(ctx, check_rules(), SchemaValidator()).check_recipe(
        path, data, ctx.tree.provenance(path, data), result)
    assert not result.internal_errors, result.internal_errors
    return result.all_findings()


def check_hy3(root: Path, text: str) -> list[Finding]:
    """Every finding of ``text`` as Hy3-preview, judged as of its launch day."""
    return check_file(root, HY3, text, Settings(as_of=LAUNCH_DAY, rendered=True))


@pytest.mark.corpus
def test_launch_day_parsers_are_one_info_not_errors(corpus_repo: Path,
                                                   corpus_copy: Path) -> None:
    """`hy_v3` parsers, unknown to vLLM 0.19.1 (the newest release on 2026-04-23), are
    not errors in the structured args nor in the guide; one info says why."""
    text = launch_recipe(corpus_repo, corpus_copy)
    found = check_hy3(corpus_copy, text)
    assert not [f for f in found if f.severity.value == "error"
                and f.rule.startswith(("FLAG", "GUIDE"))]
    (info,) = [f for f in found if UNVERIFIABLE in f.message]
    assert (info.rule, info.severity.value) == ("FLAG019", "info")
    assert info.line == line_of(text, "min_vllm_version:")
    assert [r.line for r in info.related] == [line_of(text, "nightly_required: true")]


@pytest.mark.corpus
def test_a_released_minimum_installed_as_nightly_reports_launch_values_as_unreleased(
        corpus_repo: Path, corpus_copy: Path) -> None:
    """The same recipe with min_vllm_version 0.19.1 (released by then) is no launch-day
    recipe (no FLAG019), but it still installs the nightly and a launch image: `hy_v3`,
    a value no release has, is what that code may have (FLAG024 / GUIDE018 infos, as an
    unreleased flag is), not a FLAG006 / GUIDE006 error."""
    text = launch_recipe(corpus_repo, corpus_copy).replace(
        'min_vllm_version: "0.20.1"', 'min_vllm_version: "0.19.1"')
    found = check_hy3(corpus_copy, text)
    assert not of(found, "FLAG006") and not of(found, "GUIDE006")
    assert len(of(found, "FLAG024")) == 2 and of(found, "GUIDE018")
    assert not [f for f in found if UNVERIFIABLE in f.message]


@pytest.mark.corpus
def test_launch_pr_is_not_blocked_on_its_day(corpus_repo: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`recipe-check pr` replayed as of the PR's own day passes it (exit 0) with the one
    info; 8 FLAG006/GUIDE006 errors failed it before."""
    head = subprocess.run(["git", "rev-parse", f"refs/pull/{LAUNCH_PR}/head"],
                          cwd=corpus_repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    code = main(["pr", "--offline", "--repo", str(corpus_repo), "--base", "main", "--head",
                 head, "--format", "json", "--no-summary", "--as-of", LAUNCH_DAY.isoformat()])
    data = json.loads(capsys.readouterr().out)
    found = [f for d in data["documents"] for f in d["findings"]]
    assert code == 0 and data["summary"]["errors"] == 0
    assert [f["rule"] for f in found if UNVERIFIABLE in f["message"]] == ["FLAG019"]


NIGHTLY = "  nightly_required: true\n"
NEW_PARSER = '["--tool-call-parser", "brand_new_v9", "--enable-auto-tool-choice"]'


def test_unreleased_minimum_installed_from_releases_keeps_the_errors(
        corpus_copy: Path) -> None:
    """A minimum newer than every release, but only released vLLM installed (no
    nightly_required, `:latest`): the user runs the newest release, which refuses it."""
    found, _ = run(corpus_copy, recipe(NEW_PARSER, minimum="0.40.0"))
    (hit,) = of(found, "FLAG006")
    assert hit.severity.value == "error"
    assert not [f for f in found if UNVERIFIABLE in f.message]


def test_launch_day_unknown_flags_values_and_env_are_not_reported(corpus_copy: Path) -> None:
    args = ('["--tool-call-parser", "brand_new_v9", "--enable-auto-tool-choice", '
            '"--brand-new-serving-flag"]')
    env = "  base_env:\n    VLLM_BRAND_NEW_KNOB: \"1\"\n"
    text = recipe(args, minimum="0.40.0", model_extra=NIGHTLY).replace(
        "  base_env: {}\n", env)
    found, _ = run(corpus_copy, text)
    assert not [f for f in found if f.rule in ("FLAG001", "FLAG006", "FLAG016", "FLAG024")]
    (info,) = [f for f in found if UNVERIFIABLE in f.message]
    assert info.rule == "FLAG019"
    released, _ = run(corpus_copy, recipe(args, minimum="0.20.0", model_extra=NIGHTLY).replace(
        "  base_env: {}\n", env))
    # a released minimum installed as nightly: the unknown value, like the unknown flag,
    # is FLAG024's info (the nightly may have it); the environment variable stays FLAG016
    assert of(released, "FLAG016") and not of(released, "FLAG006")
    assert {f.message.split("`")[1] for f in of(released, "FLAG024")} == {
        "--tool-call-parser brand_new_v9", "--brand-new-serving-flag"}


def test_launch_day_still_reports_what_releases_can_tell(corpus_copy: Path) -> None:
    """A near-typo of a released flag and a malformed JSON value stay errors."""
    args = '["--max-model-lenn", "4096", "--speculative-config", "{method: mtp}"]'
    found, _ = run(corpus_copy, recipe(args, minimum="nightly", model_extra=NIGHTLY))
    assert of(found, "FLAG001") and of(found, "FLAG007")


QWEN38 = "models/Qwen/Qwen3.8-2.4T-A95B.yaml"


@pytest.mark.corpus
def test_nightly_minimum_with_nightly_required_is_not_an_error(corpus_copy: Path) -> None:
    """Qwen3.8-2.4T-A95B at corpus main: `min_vllm_version: "nightly"` with
    `nightly_required: true` (the site renders the nightly install) gets the launch-day
    info and its hint, not VER011's error; without nightly_required the error is back."""
    from tests.conftest import check_tree

    text = (corpus_copy / QWEN38).read_text("utf-8")
    found = check_tree(corpus_copy, QWEN38)
    assert not of(found, "VER011")
    (info,) = [f for f in found if UNVERIFIABLE in f.message]
    assert info.line == line_of(text, 'min_vllm_version: "nightly"')
    assert info.hint is not None and "expected to ship support" in info.hint
    (corpus_copy / QWEN38).write_text(text.replace("  nightly_required: true\n", "", 1),
                                      "utf-8")
    (error,) = of(check_tree(corpus_copy, QWEN38), "VER011")
    assert error.severity.value == "error"


KIMI = "models/moonshotai/Kimi-K2.5.yaml"


@pytest.mark.corpus
def test_hardware_override_spelled_apart_is_the_override_finding(
        corpus_repo: Path, corpus_copy: Path) -> None:
    """Kimi-K2.5 as PR #300's head has it: pd_cluster's prefill and decode lists set
    `--block-size 64`, the AMD hardware override `--block-size=1`. Spelled apart, the site
    keeps both in the command and vLLM takes the last: AMD's intended override, reported
    as FLAG012's info naming both lines, not as FLAG011's error."""
    text = subprocess.run(["git", "show", f"refs/pull/300/head:{KIMI}"], cwd=corpus_repo,
                          check=True, capture_output=True, text=True).stdout
    found = check_file(corpus_copy, KIMI, text, Settings(rendered=True))
    amd = line_of(text, '"--block-size=1"')
    assert not [f for f in found if f.rule == "FLAG011" and f.line == amd]
    overrides = [f for f in of(found, "FLAG012") if f.line == amd]
    assert len(overrides) == 2 and all(f.severity.value == "info" for f in overrides)
    assert all("overrides `--block-size 64` of strategy_overrides.pd_cluster." in f.message
               for f in overrides)
    assert sorted(r.line for f in overrides for r in f.related) == [
        line_of(text, '"--block-size"', start) + 0 for start in
        (line_of(text, "prefill:"), line_of(text, "decode:"))]
