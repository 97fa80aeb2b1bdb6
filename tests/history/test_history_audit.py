"""``recipe-check history``: the whole-history audit, its cache, sharding and progress.

Most tests run on a slice of the real corpus history (the recipes of one organisation, or
the last revisions of ``main``) to stay fast; one small git repository of our own pins the
"keyed by rule + pointer + message, not line" behaviour.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import tarfile
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.history_slice import SLICE, cold_slice_cache, cold_slice_result
from validator.cli import main
from validator.context import Settings
from validator.findings import normalise_message
from validator.history.audit import AuditOptions, AuditResult, run_audit, tool_digest
from validator.progress import Progress, progress_style

INKLING_RENAME = "35cf78a4945d810c7abc1cc345c81e862bf369f1"  # upstream commit ids
INKLING_NIGHTLY = "819817043a8bd606f6265a8a5cb2a9fa92fc279a"


def audit(repo: Path, **kw: Any) -> AuditResult:
    kw.setdefault("jobs", 1)
    return run_audit(AuditOptions(repo=repo, **kw))


def changes(result: AuditResult) -> list[tuple[str, str, str, str, str, str, int]]:
    """Every change as (commit, kind, path, rule, pointer, message, line), sorted."""
    out = []
    for rev in result.revisions:
        for kind, items in (("+", rev.introduced), ("-", rev.fixed)):
            out += [(rev.commit.id, kind, c.path, c.row[0], c.row[2], c.row[5], c.row[3])
                    for c in items]
    return sorted(out)


@pytest.fixture(scope="module")
def slice_result(corpus_repo: Path) -> AuditResult:
    return audit(corpus_repo, paths=[SLICE])


ZAI = "models/zai-org"  # 15 recipe paths: FLAG/GUIDE/HW/VER findings, taxonomy edits


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def _extract(repo: Path, rev: str, dest: Path) -> Path:
    data = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", rev],
                          check=True, capture_output=True).stdout
    dest.mkdir(parents=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(dest, filter="data")
    except tarfile.ReadError:  # some filtered commits have an empty tree: no members
        assert not _git(repo, "ls-tree", rev).strip()
    return dest


def _key(path: str, row: Any) -> tuple[str, str, str, str]:
    return (path, row[0], row[2], normalise_message(row[5]))


def _direct(tree: Path, folders: str | list[str], window: str
            ) -> Counter[tuple[str, str, str, str]]:
    """Findings of ``recipe-check check --as-of <window>`` on ``folders`` (recipe folders
    or files) of an extracted revision (history judges each revision with the releases
    published by its date), by normalised message: a finding that reaches more
    configurations later (``(on h200 ... and 35 more)``) is the one history introduced
    earlier, as in PR mode."""
    from validator.commands.check import check_targets
    from validator.source.local import local_targets

    wanted = [folders] if isinstance(folders, str) else folders
    present = [f for f in wanted if (tree / f).exists()]  # absent at this revision: none
    if not present:
        return Counter()
    trees: dict[Path, Any] = {}
    targets = [t for f in present for t in local_targets(str(tree / f), tree, trees)]
    result = check_targets(targets, Settings(as_of=date.fromisoformat(window)))
    return Counter((d.path, f.rule, f.pointer, normalise_message(f.message))
                   for d in result.documents
                   if d.path.startswith(tuple(present)) for f in d.findings)


def test_state_replayed_from_the_changes_equals_a_direct_check(
        corpus_repo: Path, slice_result: AuditResult, tmp_path: Path) -> None:
    """Summing introduced - fixed from the first revision gives, at every revision, what
    ``recipe-check check`` finds on that revision's files (cache reuse across contexts,
    the narrowed context key and the worker's load/schema sharing are all exercised)."""
    state: Counter[tuple[str, str, str, str]] = Counter()
    changed = [r for r in slice_result.revisions if r.introduced or r.fixed]
    probes = {changed[1].commit.id, changed[len(changed) // 2].commit.id,
              slice_result.revisions[-1].commit.id}
    compared = 0
    for rev in slice_result.revisions:
        state.update(_key(c.path, c.row) for c in rev.introduced)
        state.subtract(_key(c.path, c.row) for c in rev.fixed)
        assert min(state.values(), default=0) >= 0
        if rev.commit.id in probes:
            tree = _extract(corpus_repo, rev.commit.id, tmp_path / rev.commit.id[:12])
            assert +state == _direct(tree, SLICE, rev.window), rev.commit.id
            compared += 1
    assert compared == 3
    assert sum((+state).values()) > 0


ZAI_SAMPLE = [f"{ZAI}/GLM-5.yaml", f"{ZAI}/GLM-4.6V.yaml", f"{ZAI}/GLM-4.7.yaml"]
"""The recipe paths of ``models/zai-org`` the larger-slice replay audits by default. Chosen
with coverage.py (branch coverage of the audit): GLM-5 and GLM-4.6V take every arc of
``validator/history/`` that the audit of all 15 paths takes but one (``keys.py``'s loop
over a cached entry's rows, 192->192), in under a third of its CPU time (21.7 s of 72.9 s
under coverage); GLM-4.7 adds findings that depend on the release window (GUIDE017,
VER013), so the cache keying a rule's findings by that window is checked too (a window
digest made constant fails the sample and the full sweep alike). The whole folder
(``ZAI``) is the full sweep (``-m full_sweep``)."""


@pytest.mark.parametrize("paths", [
    pytest.param(ZAI_SAMPLE, id="sample"),
    pytest.param([ZAI], id="full-sweep", marks=pytest.mark.full_sweep),
])
def test_replayed_state_equals_direct_check_for_a_larger_slice(
        corpus_repo: Path, tmp_path: Path, paths: list[str]) -> None:
    """Same as above on recipe paths of ``models/zai-org`` (FLAG/GUIDE/HW/VER findings,
    taxonomy edits in between) at five revisions across the history: the one uncached
    audit of a larger part of the corpus in the suite (:data:`ZAI_SAMPLE` by default, the
    15 paths of the folder under ``-m full_sweep``)."""
    revs = audit(corpus_repo, paths=paths).revisions
    probes = {revs[len(revs) * k // 4 - 1].commit.id for k in (1, 2, 3, 4)}
    changed = [r for r in revs[len(revs) // 3:] if r.introduced or r.fixed]
    # a later revision that both introduces and fixes findings, else one that changes them
    probes.add(next((r for r in changed if r.introduced and r.fixed), changed[0]).commit.id)
    state: Counter[tuple[str, str, str, str]] = Counter()
    compared = 0
    for rev in revs:
        state.update(_key(c.path, c.row) for c in rev.introduced)
        state.subtract(_key(c.path, c.row) for c in rev.fixed)
        if rev.commit.id in probes:
            tree = _extract(corpus_repo, rev.commit.id, tmp_path / rev.commit.id[:12])
            assert +state == _direct(tree, paths, rev.window), rev.commit.id
            compared += 1
    assert compared == len(probes) >= 4
    assert sum((+state).values()) > 0


def test_rename_is_reported_as_removed_and_added(
        slice_result: AuditResult, commit_map: dict[str, str]) -> None:
    rev = next(r for r in slice_result.revisions if r.commit.id == commit_map[INKLING_RENAME])
    old, new = "models/thinkingmachines/inkling.yaml", "models/thinkingmachines/Inkling.yaml"
    assert rev.fixed and all(c.path == old and c.note == "file removed" for c in rev.fixed)
    assert rev.introduced and all(c.path == new and c.note == "file added"
                                  for c in rev.introduced)
    # the same findings move to the new path, but one: at inkling.yaml the variant id
    # 'thinkingmachines/Inkling' and the recipe's own 'thinkingmachines/inkling' are one API
    # path where letter case is ignored (REF017); at Inkling.yaml they are the same id
    fixed = sorted(c.row[0] for c in rev.fixed)
    fixed.remove("REF017")
    assert fixed == sorted(c.row[0] for c in rev.introduced)
    assert "REF017" not in {c.row[0] for c in rev.introduced}


def test_edit_reports_introduced_and_fixed_findings(
        slice_result: AuditResult, commit_map: dict[str, str]) -> None:
    # upstream 8198170 replaced the custom image tag with ``nightly`` (and the minimum with
    # "nightly"): the launch-build image is fixed, the moving ``nightly`` tag of a recipe
    # that needs unreleased code is an info (VER012). Judged with the releases of that
    # date, the old minimum was not released either, so the launch build was VER012 too.
    rev = next(r for r in slice_result.revisions
               if r.commit.id == commit_map[INKLING_NIGHTLY])
    assert any(c.row[0] == "VER012" and "nightly" in c.row[5] for c in rev.introduced)
    assert any(c.row[0] == "VER012" and "inkling" in c.row[5] for c in rev.fixed)
    assert not any(c.note for c in rev.introduced + rev.fixed)


# --- a small repository of our own --------------------------------------------------------

RECIPE = """model:
  model_id: org/a
meta:
  title: A
  flag: yes
"""


@pytest.fixture()
def own_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "own"
    (repo / "strategies").mkdir(parents=True)
    (repo / "models" / "org").mkdir(parents=True)
    (repo / "taxonomy.yaml").write_text("hardware_profiles: {}\n")
    (repo / "strategies" / "single_node_tp.yaml").write_text("name: single_node_tp\n")
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")

    def commit(text: str, msg: str) -> None:
        (repo / "models" / "org" / "a.yaml").write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", msg)

    commit(RECIPE, "one")                                      # YAML003 on line 5
    commit("# a comment\n# another\n" + RECIPE, "shift")       # same finding, line 7
    commit(RECIPE.replace("flag: yes", 'flag: "yes"'), "fix")  # fixed
    return repo


def test_findings_are_keyed_by_rule_pointer_message_not_line(own_repo: Path) -> None:
    result = audit(own_repo)
    assert [r.commit.subject for r in result.revisions] == ["one", "shift", "fix"]
    first, shift, fix = result.revisions
    assert ("YAML003", "/meta/flag", 5) in [(c.row[0], c.row[2], c.row[3])
                                            for c in first.introduced]
    assert not shift.introduced and not shift.fixed
    assert [(c.row[0], c.row[3]) for c in fix.fixed if c.row[0] == "YAML003"] == \
        [("YAML003", 7)]
    assert not [c for c in fix.introduced if c.row[0] == "YAML003"]


def test_since_uses_the_given_revision_as_baseline(own_repo: Path) -> None:
    first = _git(own_repo, "rev-list", "--max-parents=0", "HEAD").strip()
    result = audit(own_repo, since=first)
    assert [r.commit.subject for r in result.revisions] == ["shift", "fix"]
    assert not result.revisions[0].introduced
    assert [c.row[0] for c in result.revisions[1].fixed] == ["YAML003"]


# --- sharding -------------------------------------------------------------------------------

def _cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["history", *args, "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, Any] = json.loads(out.out)
    return data


def _flat(report: dict[str, Any]) -> set[tuple[Any, ...]]:
    return {(r["commit"], kind, c["path"], c["rule"], c["pointer"], c["message"], c["line"])
            for r in report["revisions"] for kind in ("introduced", "fixed") for c in r[kind]}


def test_sharded_audit_union_equals_unsharded(
        corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The whole history of :data:`SLICE`: ``Inkling-Small.yaml`` falls in shard 1,
    ``inkling.yaml`` and its rename ``Inkling.yaml`` in shard 2. The unsharded audit is
    the run's shared cold one of the slice, as ``history --format json`` reports it (was:
    a ``history --jobs 2`` of its own, about 3 s of CPU)."""
    from validator.commands.history import to_json

    common = ["--repo", str(corpus_repo), SLICE, "--no-cache"]
    whole = json.loads(json.dumps(to_json(cold_slice_result(tmp_path_factory, corpus_repo))))
    one = _cli_json([*common, "--jobs", "1", "--shard", "1/2"], capsys)
    two = _cli_json([*common, "--jobs", "1", "--shard", "2/2"], capsys)
    assert len(whole["revisions"]) == len(_git(corpus_repo, "rev-list", "--first-parent",
                                               "main").split())
    a, b, all_ = _flat(one), _flat(two), _flat(whole)
    assert a and b and not (a & b)
    assert a | b == all_
    assert {c[2] for c in a}.isdisjoint({c[2] for c in b})
    assert one["summary"]["units"] + two["summary"]["units"] == whole["summary"]["units"]
    assert Counter(one["summary"]["tip"]) + Counter(two["summary"]["tip"]) == \
        Counter(whole["summary"]["tip"])


# --- cache ----------------------------------------------------------------------------------

def test_warm_run_checks_nothing_and_reports_the_same(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
        slice_result: AuditResult) -> None:
    cache, cold = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")
    warm = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert cold.checked == cold.units > 0 and cold.cached == 0
    assert warm.checked == 0 and warm.cached == warm.units == cold.units
    assert changes(cold) == changes(warm) == changes(slice_result)


def test_other_settings_do_not_reuse_results(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert tool_digest(Settings()) != tool_digest(Settings(max_bytes=1000))
    cache, cold = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")
    assert cold.checked > 0
    small = audit(corpus_repo, paths=[SLICE], cache_dir=cache,
                  settings=Settings(max_bytes=1000))
    assert small.cached == 0
    assert small.tip == Counter({"YAML007": 2})


def test_corrupted_cache_entries_are_detected_and_recomputed(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache, reference = cold_slice_cache(tmp_path_factory, corpus_repo, tmp_path / "root")
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) >= 3
    entries[0].write_bytes(entries[0].read_bytes()[: len(entries[0].read_bytes()) // 2])
    entry = json.loads(entries[1].read_text())
    label = next(iter(entry["results"]))
    entry["results"][label]["rows"].append(["YAML001", "error", "", 1, 1, "forged"])
    entries[1].write_text(json.dumps(entry))                   # checksum no longer matches
    entries[2].write_bytes(os.urandom(64))
    again = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert again.corrupt == 3 and again.checked > 0
    assert changes(again) == changes(reference)
    assert "forged" not in json.dumps([c.row for r in again.revisions for c in r.introduced])
    third = audit(corpus_repo, paths=[SLICE], cache_dir=cache)
    assert third.corrupt == 0 and third.checked == 0


def _history_cmd(repo: Path, cache: Path, folder: str = SLICE) -> list[str]:
    return [sys.executable, "-m", "validator", "history", "--repo", str(repo), folder,
            "--cache-dir", str(cache), "--jobs", "1", "--format", "json"]


def test_concurrent_runs_sharing_a_cache(corpus_repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    procs = [subprocess.Popen(_history_cmd(corpus_repo, cache), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in outs]
    reports = [json.loads(o) for o, _ in outs]
    assert _flat(reports[0]) == _flat(reports[1]) == _flat(reports[2])
    # the command's --cache-dir is the one cache folder: the audit's part is history/
    after = audit(corpus_repo, paths=[SLICE], cache_dir=cache / "history")
    assert after.corrupt == 0 and after.checked == 0
    assert not list(cache.rglob("*.tmp"))
    info = subprocess.run([sys.executable, "-m", "validator", "cache", "info", "--cache-dir",
                           str(cache)], capture_output=True, text=True, check=True).stdout
    assert "history audit results" in info and " 0 file(s)" not in info


def _killed_after_new_entries(cmd: list[str], cache: Path, count: int) -> bool:
    """Run ``cmd``; SIGKILL it as soon as it has written ``count`` cache entries more than
    ``cache`` held when it started (it is then writing the next ones). Whether it was
    killed (``False``: it finished first)."""
    def entries() -> int:
        return sum(1 for _ in cache.rglob("*.json")) if cache.is_dir() else 0

    before = entries()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None:
        if entries() - before >= count:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.002)
    proc.wait(timeout=120)
    return proc.returncode == -signal.SIGKILL


def test_writer_killed_at_random_points_leaves_a_valid_cache(
        corpus_repo: Path, slice_result: AuditResult, tmp_path: Path) -> None:
    """SIGKILL the audit while it writes cache entries (after a random number of them, so
    the kill lands inside the writing whatever the machine's load): every entry left is
    the old or the new one (never partial), so a later run finds no damaged entry and the
    same report. The audit of :data:`SLICE` writes about a dozen entries."""
    cache = tmp_path / "cache"
    rng = random.Random(8)
    killed = 0
    for _ in range(6):
        if _killed_after_new_entries(_history_cmd(corpus_repo, cache), cache,
                                     rng.randint(1, 4)):
            killed += 1
            for entry in cache.rglob("*.json"):
                json.loads(entry.read_bytes())  # complete JSON: never a torn write
        else:  # finished before the kill: start afresh
            for entry in cache.rglob("*.json"):
                entry.unlink()
    assert killed >= 4
    after = audit(corpus_repo, paths=[SLICE], cache_dir=cache / "history")
    assert after.corrupt == 0
    assert after.cached + after.checked == after.units
    assert changes(after) == changes(slice_result)


# --- command line ---------------------------------------------------------------------------

def test_progress_bar_only_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = Progress("checking", 3, progress_style(stream, {}), stream)
        for _ in range(3):
            bar.advance()
        bar.close()
    assert "\r" in tty.getvalue() and "3/3" in tty.getvalue()
    assert pipe.getvalue() == ""


def test_no_progress_noise_when_not_a_terminal(corpus_repo: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["history", "--repo", str(corpus_repo), "--no-cache", "--jobs", "1",
                 "models/thinkingmachines/Inkling.yaml"])
    out = capsys.readouterr()
    assert code == 0 and out.err == ""
    assert "revision(s) (first-parent main)" in out.out


@pytest.mark.parametrize(("args", "needle"), [
    (["--since", "no-such-revision"], "no-such-revision"),
    (["--rev", "no-such-branch"], "no-such-branch"),
    (["/etc/passwd"], "outside the repository"),
    (["--since=--output=x"], "not a revision"),
])
def test_bad_arguments_are_usage_errors(corpus_repo: Path, args: list[str], needle: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["history", "--repo", str(corpus_repo), "--no-cache", *args])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err


def test_not_a_repository_is_a_usage_error(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["history", "--repo", str(tmp_path), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and str(tmp_path) in err and "not a git repository" in err


def test_bad_shard_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["history", "--shard", "3/2"])
    assert exc.value.code == 2
    assert "K <= N" in capsys.readouterr().err


def test_unwritable_cache_is_an_io_error(corpus_repo: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for jobs in ("1", "2"):
        code = main(["history", "--repo", str(corpus_repo), "--cache-dir",
                     str(blocker / "cache"), "--jobs", jobs,
                     "models/thinkingmachines/Inkling.yaml"])
        err = capsys.readouterr().err
        assert code == 2 and "a-file" in err and "Traceback" not in err


def test_all_refs_audits_branch_heads_against_their_parent(own_repo: Path) -> None:
    _git(own_repo, "checkout", "-q", "-b", "pr", "HEAD~1")  # from "shift"
    (own_repo / "models" / "org" / "b.yaml").write_text("model:\n  model_id: org/b\n  x: 0777\n")
    _git(own_repo, "add", "-A")
    _git(own_repo, "commit", "-q", "-m", "pr adds b")
    main_only = audit(own_repo)
    everything = audit(own_repo, all_refs=True)
    assert [r.commit.subject for r in main_only.revisions] == ["one", "shift", "fix"]
    subjects = [r.commit.subject for r in everything.revisions]
    assert sorted(subjects) == ["fix", "one", "pr adds b", "shift"]
    pr = next(r for r in everything.revisions if r.commit.subject == "pr adds b")
    shift = next(r for r in everything.revisions if r.commit.subject == "shift")
    assert pr.parent == shift.commit.id
    assert {(c.path, c.row[0], c.note) for c in pr.introduced} >= \
        {("models/org/b.yaml", "YAML003", "file added")}
    assert not pr.fixed


def test_paths_are_relative_to_the_working_folder_and_config_applies(
        own_repo: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Inside the repository, PATH is taken from the working folder as ``check`` takes it;
    --ignore and the repository's configuration file apply to the reported changes."""
    monkeypatch.chdir(own_repo / "models")
    data = _cli_json(["--repo", "..", "--no-cache", "--jobs", "1", "org/a.yaml"], capsys)
    rules = {c["rule"] for r in data["revisions"] for c in r["introduced"]}
    assert "YAML003" in rules
    assert {c["path"] for r in data["revisions"] for c in r["introduced"]} == {"models/org/a.yaml"}
    data = _cli_json(["--repo", "..", "--no-cache", "--jobs", "1", "--ignore", "yaml",
                      "org/a.yaml"], capsys)
    assert not {c["rule"] for r in data["revisions"] for c in r["introduced"]
                if c["rule"].startswith("YAML")}
    assert "YAML003" not in data["summary"]["tip"]
    (own_repo / ".recipe-check.toml").write_text('[severity]\nYAML003 = "error"\n')
    data = _cli_json(["--repo", "..", "--no-cache", "--jobs", "1", "org/a.yaml"], capsys)
    assert {c["severity"] for r in data["revisions"] for c in r["introduced"]
            if c["rule"] == "YAML003"} == {"error"}
    assert main(["history", "--repo", "..", "--no-cache", "--format", "json", "--format",
                 "text"]) == 2
    assert "one format goes to stdout" in capsys.readouterr().err
