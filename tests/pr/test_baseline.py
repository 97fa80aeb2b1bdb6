"""PR mode's new / existing / fixed split against ``check`` run at the merge base and at
the head, on real pull requests of the corpus bundle."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.context_findings import SELECTORS
from validator.findings import Finding, Severity
from validator.identity import Identity, identity, rule_group
from validator.load import load_yaml
from validator.pr.baseline import (
    EDITED_AT_HEAD,
    NEVER_EXISTING,
    NOT_JUDGED_AT_BASE,
    UNLOADED,
)

from .conftest import git, sarif_errors

pytestmark = pytest.mark.corpus

PR_COUNT = 30
"""Pull requests compared by the full sweep of the split test (``-m full_sweep``): the
newest thirty that touch a recipe (834 ... 801). Each costs three checks of its recipes
(``pr`` at base and head, the oracle's two folders), so the cost is that of the recipes:
828 changes a strategy and brings 41 recipes (about half of the sweep's time)."""

SAMPLED_PRS = (834, 827, 812, 803, 804, 801)
"""The pull requests the split test compares by default. Chosen with coverage.py (branch
coverage, one coverage context per pull request, a greedy cover weighted by each one's
``pr`` time) over the code ``pr`` runs to split findings: ``validator/pr/``,
``validator/identity.py`` and ``validator/context_findings.py``. Together they take the
1,003 arcs of it that the thirty of :data:`PR_COUNT` take, in about a quarter of their
``pr`` time (11 s of 59 s of CPU), but 45 arcs of ``validator/pr/select.py`` that only
828 takes (a strategy file changed: which recipes use it), which
``tests/pr/test_select.py`` and ``tests/pr/test_context_changes.py`` take too. 834 has
all three states (new, unchanged, fixed); 827 adds five recipes, 804 four."""


NOT_JUDGED = tuple(f" [{note}]" for note in (NOT_JUDGED_AT_BASE, EDITED_AT_HEAD,
                                             NEVER_EXISTING))
"""What ``pr`` appends to a finding of a file that did not load at the merge base (existing,
new on an edited line, new as a rule no comment silences)."""


def _bare(message: str) -> str:
    """``message`` without a :data:`NOT_JUDGED` note."""
    for note in NOT_JUDGED:
        message = message.removesuffix(note)
    return message
UNLOADED_GROUPS = {rule_group(r) for r in UNLOADED}


def export(repo: Path, rev: str, dest: Path) -> Path:
    """The tree of ``rev`` written to ``dest`` (``git archive``)."""
    data = subprocess.run(["git", "archive", rev], cwd=repo, check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def units(items: list[dict[str, Any]], file: Path) -> Counter[Identity]:
    """The identities of JSON findings of ``file`` as ``pr`` counts them: each identity
    once per line it is at (:func:`validator.identity.match`)."""
    data = load_yaml(file.read_bytes(), file.name).data if file.is_file() else None
    seen = {(identity(Finding(f["rule"], Severity(f["severity"]), "", f["pointer"],
                              f["line"], f["column"], f["message"]), data), f["line"])
            for f in items}
    return Counter(i for i, _ in seen)


def check_units(root: Path, paths: list[str], capsys: pytest.CaptureFixture[str]
                ) -> dict[str, Counter[Identity]]:
    """Finding identities per path of plain ``recipe-check check`` on a tree on disk
    (every rendered command checked, as ``pr`` checks both revisions), counted as ``pr``
    compares them (:func:`units`)."""
    present = [p for p in paths if (root / p).is_file()]
    if not present:
        return {}
    main(["check", "--format", "json", "--root", str(root),
          *(str(root / p) for p in present)])
    data = json.loads(capsys.readouterr().out)
    return {d["path"]: units(d["findings"], root / d["path"]) for d in data["documents"]}


def pr_json(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str],
            *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["pr", "--repo", str(repo), "--base", base, "--head", head,
                 "--format", "json", "--no-summary", *extra])
    return code, json.loads(capsys.readouterr().out)


def _context_caused(finding: dict[str, Any], path: str, changed: set[str]) -> bool:
    """Whether ``pr`` counts ``finding`` of ``path`` as caused by an unchanged context file
    (:func:`validator.pr.baseline.context_caused`): on a line selecting one or on the whole
    recipe, every related location in such a file -- but not a finding about the recipe's
    minimum (a new one of those is a pair the change made)."""
    if "but the recipe's minimum is" in finding["message"]:
        return False
    if finding["pointer"] and not finding["pointer"].startswith(SELECTORS):
        return False
    others = [r["path"] for r in finding.get("related", []) if r.get("path", path) != path]
    return bool(others) and all(p.startswith(("strategies/", "kv_store/", "taxonomy.yaml"))
                                and p not in changed for p in others)


def candidate_prs(repo: Path) -> list[int]:
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pull/").split()
    numbers = sorted({int(r.split("/")[2]) for r in refs if r.endswith("/head")})
    return numbers[::-1]  # newest first: closest to main, most likely to touch recipes


def compare_split(repo: Path, number: int, tmp_path: Path,
                  capsys: pytest.CaptureFixture[str]) -> tuple[bool, bool] | None:
    """``pr`` on pull request ``number`` against ``main``, its split of each recipe's
    findings compared with plain ``check`` at the merge base and at the head; ``None``
    when it checks no recipe, else whether some recipe has (existing findings, new or
    fixed ones)."""
    head = git(repo, "rev-parse", f"refs/pull/{number}/head")
    mb = git(repo, "merge-base", "main", head)
    _, data = pr_json(repo, "main", head, capsys)
    changed = set(git(repo, "diff", "--name-only", mb, head).split())
    renamed = {c["path"]: c["reasons"][0].removeprefix("renamed from ")
               for c in data["context"]["pr"]["files"]
               if c["reasons"][0].startswith("renamed from ")}
    recipes = [d["path"] for d in data["documents"] if d["path"].startswith("models/")]
    if not recipes:
        return None
    with_existing = with_new_or_fixed = False
    removed_inputs = [d["path"] for d in data["documents"]
                      if any(f["rule"] == "REF030" for f in d["findings"])]
    head_tree = export(repo, head, tmp_path / f"{number}-head")
    # one folder per merge base: pull requests on the same base check it once (the unit
    # cache answers the second; its key holds the folder and every input)
    base_tree = tmp_path / f"base-{mb}"
    if not base_tree.is_dir():
        export(repo, mb, base_tree)
    at_head = check_units(head_tree, recipes, capsys)
    at_base = check_units(base_tree, [renamed.get(p, p) for p in recipes], capsys)
    for doc in data["documents"]:
        path = doc["path"]
        if path not in recipes:
            continue
        head_keys = at_head.get(path, Counter())
        base_file = base_tree / renamed.get(path, path)
        base_keys = at_base.get(renamed.get(path, path), Counter())

        def keys(state: str, items: list[dict[str, Any]], file: Path) -> Counter[Identity]:
            return units([{**f, "message": _bare(f["message"])}
                          for f in items if f["baseline"] == state], file)

        where = f"PR {number} {path}"
        found = doc["findings"]
        # a context file the change leaves alone causes it: existing, whatever the base
        caused = units([f for f in found if _context_caused(f, path, changed)],
                       head_tree / path)
        added = head_keys - base_keys
        # a file that did not load at the base was not judged there: each head finding
        # is new or existing by the lines the change edits (each saying which)
        judged = not any(k.rule in UNLOADED_GROUPS for k in base_keys)
        if judged:
            assert keys("new", found, head_tree / path) == added - caused, where
            assert keys("unchanged", found, head_tree / path) == \
                (head_keys & base_keys) + (added & caused), where
        else:
            assert keys("new", found, head_tree / path) + \
                keys("unchanged", found, head_tree / path) == head_keys, where
            assert all(f["message"].endswith(NOT_JUDGED) for f in found), where
        if removed_inputs:  # hidden, not fixed: what the removed context judged
            assert not keys("absent", doc["fixed"], base_file) - (base_keys - head_keys)
        else:
            assert keys("absent", doc["fixed"], base_file) == base_keys - head_keys, where
        with_existing |= bool(head_keys & base_keys)
        with_new_or_fixed |= bool(head_keys - base_keys or base_keys - head_keys)
    summary = data["summary"]
    assert summary["new"] + summary["existing"] == sum(len(d["findings"])
                                                      for d in data["documents"])
    return with_existing, with_new_or_fixed


def test_split_equals_check_at_base_and_head(corpus_repo: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The pull requests of :data:`SAMPLED_PRS`."""
    splits = [compare_split(corpus_repo, n, tmp_path, capsys) for n in SAMPLED_PRS]
    compared = [s for s in splits if s is not None]
    assert len(compared) == len(SAMPLED_PRS)  # each checks a recipe
    # the sample exercises all three states
    assert any(e for e, _ in compared) and any(n for _, n in compared)


@pytest.mark.full_sweep
def test_split_equals_check_at_base_and_head_full_sweep(
        corpus_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The full sweep (``-m full_sweep``): the newest :data:`PR_COUNT` pull requests that
    touch a recipe."""
    splits: list[tuple[bool, bool]] = []
    for number in candidate_prs(corpus_repo):
        if len(splits) == PR_COUNT:
            break
        split = compare_split(corpus_repo, number, tmp_path, capsys)
        if split is not None:
            splits.append(split)
    assert len(splits) == PR_COUNT
    assert any(e for e, _ in splits) and any(n for _, n in splits)


def test_pr_touching_only_a_file_with_old_errors_passes(
        corpus_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PR #830 edits DeepSeek-V4-Flash, whose errors (SCHEMA002 ``difficulty: hard`` at
    line 8 and others) are all at its merge base already.

    Its only new findings are 3 FLAG012 infos: the PR adds ``mi300x`` overrides of
    ``--gpu-memory-utilization`` to three strategies, and the rendered commands (checked by
    default since ``pr`` judges as ``check`` does) show they replace the ``amd`` value on
    MI300X. FLAG012 reads the rendered commands with ``--as-written`` too, so the old
    render-order guess, which missed these three (0 new), is gone."""
    head = git(corpus_repo, "rev-parse", "refs/pull/830/head")
    code, data = pr_json(corpus_repo, "main", head, capsys)
    assert code == 0
    new = [f for d in data["documents"] for f in d["findings"] if f["baseline"] == "new"]
    assert data["summary"]["errors"] > 0 and data["summary"]["new"] == len(new) == 3
    assert {(f["rule"], f["severity"]) for f in new} == {("FLAG012", "info")}
    assert all(".hardware_overrides.mi300x.extra_args overrides `--gpu-memory-utilization"
               in f["message"] and "(on mi300x" in f["message"] for f in new)
    (doc,) = data["documents"]
    schema002 = [f for f in doc["findings"] if f["rule"] == "SCHEMA002"]
    assert schema002 and schema002[0]["line"] == 8 and schema002[0]["baseline"] == "unchanged"
    code, _ = pr_json(corpus_repo, "main", head, capsys, "--fail-on", "all")
    assert code == 1


def test_new_and_fixed_findings_annotations_and_sarif(
        scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A commit that fixes one error of a recipe, adds another and moves every line: the
    moved findings stay existing, the two changes are fixed and new; only the new one is
    annotated; the SARIF carries baselineState and is valid."""
    path = "models/deepseek-ai/DeepSeek-V4-Flash.yaml"
    file = scratch_repo / path
    text = file.read_text(encoding="utf-8")
    assert "  difficulty: hard\n" in text and "\nmodel:\n" in text
    text = "# two lines added above\n# every finding\n" + text.replace(
        "  difficulty: hard\n", "  difficulty: advanced\n", 1).replace(
        "\nmodel:\n", "\nmodel:\n  min_vllm_version: 7\n", 1)
    file.write_text(text, encoding="utf-8")
    git(scratch_repo, "commit", "-qam", "fix difficulty, break min_vllm_version")
    sarif = tmp_path / "out.sarif"
    code = main(["pr", "--repo", str(scratch_repo), "--base", "main", "--head", "work",
                 "--format", "github", "--sarif", str(sarif), "--no-summary"])
    out = capsys.readouterr().out
    assert code == 1
    annotations = [ln for ln in out.splitlines() if ln.startswith(("::error ", "::warning "))]
    assert annotations and all("line=" in a for a in annotations)
    assert not any("SCHEMA002" in a and "hard" in a for a in annotations)
    assert "(existing at the base)" in out
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    states = Counter(r["baselineState"] for r in results)
    assert states["new"] >= 1 and states["unchanged"] > 10 and states["absent"] >= 1
    (fixed,) = [r for r in results if r["baselineState"] == "absent"
                and r["ruleId"] == "SCHEMA002"]
    assert fixed["kind"] == "pass" and fixed["level"] == "none"
    assert all(r["level"] != "none" for r in results if r["baselineState"] != "absent")


def test_configuration_is_read_at_the_merge_base(scratch_repo: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A pull request that switches every rule off in its own configuration file is still
    checked with the base's configuration."""
    (scratch_repo / ".recipe-check.toml").write_text('ignore = ["REF013"]\n', encoding="utf-8")
    git(scratch_repo, "add", ".recipe-check.toml")
    git(scratch_repo, "commit", "-qm", "configuration")
    git(scratch_repo, "branch", "base")
    (scratch_repo / ".recipe-check.toml").write_text('ignore = ["ALL"]\n', encoding="utf-8")
    gemma = scratch_repo / "models/Google/gemma-4-12B-it.yaml"
    gemma.write_text(gemma.read_text(encoding="utf-8").replace(
        "compatible_strategies:\n", "compatible_strategies:\n  - no_such_strategy\n", 1),
        encoding="utf-8")
    git(scratch_repo, "commit", "-qam", "silence everything, add an error")
    code, data = pr_json(scratch_repo, "base", "work", capsys)
    assert code == 1
    assert data["context"]["config"].endswith(":.recipe-check.toml")
    rules = {f["rule"]: f["baseline"] for d in data["documents"] for f in d["findings"]}
    assert rules["REF002"] == "new" and "REF013" not in rules
    # --config naming the file inside the repository reads it at the merge base too
    # (the work tree holds the head's); a copy outside the repository is read from disk
    code, data = pr_json(scratch_repo, "base", "work", capsys, "--config",
                         str(scratch_repo / ".recipe-check.toml"))
    assert code == 1 and data["context"]["config"].endswith(":.recipe-check.toml")
    outside = scratch_repo.parent / "maintainer.toml"
    outside.write_bytes((scratch_repo / ".recipe-check.toml").read_bytes())
    code, data = pr_json(scratch_repo, "base", "work", capsys, "--config", str(outside))
    assert code == 0 and data["summary"]["errors"] == 0
