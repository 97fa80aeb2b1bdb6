"""A warm history audit (every unit cached) imports and reads only what it needs: no rule
family, no checker, no renderer, no loader; what produced the results (the tool digest,
the rule groups, the code digest REF025's index is keyed on) is read back from the cache
under the package's tool stamp, and an entry that fails its MAC is computed again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.history.test_history_audit import own_repo  # noqa: F401
from validator.cache import ResultCache
from validator.history.tool import LABEL, computed, tool_facts
from validator.settings import Settings

PROJECT = Path(__file__).resolve().parents[2]

_RUN = """
import json, sys
from validator.cli import main
code = main(sys.argv[1:])
heavy = ("validator.rule_index", "validator.checker", "validator.context",
         "validator.render", "validator.load", "validator.history.worker",
         "validator.api_claims", "yaml")
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}),
      file=sys.stderr)
"""


def _history(repo: Path, cache: Path, out: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    proc = subprocess.run([sys.executable, "-c", _RUN, "history", "--repo", str(repo),
                           "--cache-dir", str(cache), "--jobs", "1", "--format", "json",
                           "--output", str(out)], capture_output=True, text=True, env=env,
                          cwd=PROJECT, check=False)
    status: dict[str, object] = json.loads(proc.stderr.strip().splitlines()[-1])
    return status


def test_a_warm_audit_imports_no_rule_checker_renderer_or_loader(
        own_repo: Path, tmp_path: Path) -> None:  # noqa: F811
    cache = tmp_path / "cache"
    cold = _history(own_repo, cache, tmp_path / "cold.json")
    warm = _history(own_repo, cache, tmp_path / "warm.json")
    assert cold["code"] == warm["code"] == 0
    assert "validator.rule_index" in cold["imported"]  # type: ignore[operator]
    assert warm["imported"] == []
    reports = [json.loads((tmp_path / f"{n}.json").read_text()) for n in ("cold", "warm")]
    assert reports[1]["summary"]["checked"] == 0
    assert reports[1]["summary"]["cached"] == reports[0]["summary"]["checked"] > 0
    for report in reports:
        del report["summary"]["checked"], report["summary"]["cached"]
    assert reports[0] == reports[1]


def test_the_tool_facts_read_back_are_the_computed_ones_and_a_forged_entry_is_not_trusted(
        tmp_path: Path) -> None:
    store = ResultCache(tmp_path / "runs", owner=tmp_path)
    settings = Settings()
    first = tool_facts(settings, store)
    assert first == computed(settings)
    (entry_file,) = [f for f in store.entries() if LABEL in f.read_text()]
    assert tool_facts(settings, store) == first  # read back: the same
    assert tool_facts(Settings(max_bytes=1000), store).digest != first.digest
    entry = json.loads(entry_file.read_text())
    entry["results"][LABEL]["digest"] = "0" * 64  # edited without the secret
    entry_file.write_text(json.dumps(entry))
    again = ResultCache(tmp_path / "runs", owner=tmp_path)
    assert tool_facts(settings, again) == first
    assert again.corrupt == 1
    assert tool_facts(settings, None) == first  # no cache: computed


def test_findings_at_states_equal_the_lookup_of_each_and_same_only_when_equal() -> None:
    """:class:`FindingsAt` gives ``lookup(entry, labels, stage) or []`` at every state,
    malformed and missing labels included, and calls two states the same only when those
    lists are equal (labels that differ but hold equal rows count as the same)."""
    from itertools import product

    from validator.history.findings_at import FindingsAt
    from validator.history.keys import lookup
    from validator.history.revisions import State

    row = ["YAML003", "warning", "/a", 3, 1, "m"]
    other = ["REF004", "error", "/b", 1, 2, "n"]
    results = {
        "ok": {"stage": {"rows": [], "ok": True}, "g:1": {"rows": [row]},
               "g:2": {"rows": [row]}, "g:3": {"rows": []}, "g:4": {"rows": [other, row]},
               "h:1": {"rows": []}, "h:2": {"rows": "bad"}, "h:3": {"nothing": 1},
               "stage:x": {"rows": [other]}},
        "unloaded": {"stage": {"rows": [other], "ok": False}, "g:1": {"rows": [row]}},
        "empty": {},
    }
    labels = [("g:1", "h:1"), ("g:2", "h:1"), ("g:3", "h:1"), ("g:4", "h:1"), ("g:1", "h:2"),
              ("g:1", "h:3"), ("g:1", "h:9")]
    states = {f"s{i}-{stage}": State(f"s{i}-{stage}", "c", {}, "", {},
                                     dict(zip("gh", ls, strict=True)), stage)
              for i, ls in enumerate(labels) for stage in ("stage", "stage:x")}
    found = FindingsAt(results, {"gone": ("PROV005", "error", "", 0, 0, "link")}, states)
    for blob, s in product(results, states):
        state = states[s]
        expected = lookup(results[blob], state.labels.values(), state.stage) or []
        assert found.at(blob, s) == expected
    assert found.at("gone", "s0-stage") == [("PROV005", "error", "", 0, 0, "link")]
    sames = 0
    for blob, a, b in product(results, states, states):
        if found.same(blob, a, b):
            sames += a != b
            assert found.at(blob, a) == found.at(blob, b)
    for a, b in product(states, states):  # a revision's paths at once: the same answers
        blobs = {f"p-{blob}": blob for blob in [*results, "gone"]}
        assert found.same_paths(blobs, blobs, a, b) == \
            {p for p, blob in blobs.items() if found.same(blob, a, b)}
    assert found.same("ok", "s0-stage", "s1-stage")  # g:1 and g:2 hold the same rows
    assert not found.same("ok", "s0-stage", "s2-stage")
    assert found.same("unloaded", "s0-stage", "s3-stage")  # did not load: stage rows only
    assert not found.same("ok", "s0-stage", "s4-stage")  # a malformed label: not known
    assert sames > 0
