"""JSON recipe-check wrote and reads back, replaced by ``[[[...]]]`` 200,000 levels deep
(more than Python's decoder follows: ``json.loads`` raises ``RecursionError``, orjson
before 3.9.15 crashes the process): a cache entry (results, REF025's claims, history) is
counted as damaged and recomputed, a state file takes the path of any other damaged one
(the manifest re-derived, a foreign ``index.json`` or marker refused with a message, a
record replaced) -- never a traceback. Real files, the real CLI."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from tests.history_slice import SLICE, cold_slice_cache
from validator.cache import ResultCache
from validator.cli import main
from validator.source.snapshots import LOCK_NAME

PROJECT = Path(__file__).resolve().parents[2]
DEEP = b"[" * 200_000 + b"]" * 200_000


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run([sys.executable, "-m", "validator", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def test_check_recomputes_results_and_claims_entries_too_deep_to_decode(
        examples_tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _cli(examples_tree, "--cache-dir", str(cache), "--offline", "models/")
    damaged = sorted(cache.glob("results/*/*.json")) + sorted(cache.glob("claims/*/*.json"))
    assert list(cache.glob("claims/*/*.json")) and len(damaged) >= 3, cold.stderr
    for entry in damaged:
        entry.write_bytes(DEEP)
    for run in cache.glob("runs/**/*"):  # no whole-run replay: the entries are read
        if run.is_file():
            run.unlink()
    warm = _cli(examples_tree, "--cache-dir", str(cache), "--offline", "models/")
    fresh = _cli(examples_tree, "--no-cache", "--offline", "models/")
    assert "Traceback" not in warm.stderr, warm.stderr
    assert (warm.returncode, warm.stdout) == (fresh.returncode, fresh.stdout) == \
        (cold.returncode, cold.stdout)
    assert all(e.read_bytes() != DEEP for e in damaged)  # rewritten with recomputed results


@pytest.mark.parametrize("fast", [False, True], ids=["check store", "history store"])
def test_a_store_counts_an_entry_too_deep_to_decode_as_damaged(fast: bool,
                                                               tmp_path: Path) -> None:
    """In a child process: orjson before 3.9.15 crashed it (a segmentation fault)."""
    script = f"""
import sys
from pathlib import Path
from tests.cli_in_process import run_cli
from tests.history_slice import SLICE, cold_slice_cache
from validator.cache import ResultCache
root, key = Path(sys.argv[1]), "ab" * 32
ResultCache(root, fast={fast}).put(key, {{"ctx": [1, 2]}})
(root / key[:2] / f"{{key}}.json").write_bytes(b"[" * 200_000 + b"]" * 200_000)
store = ResultCache(root, fast={fast})
assert store.get(key) == {{}} and store.corrupt == 1, store.corrupt
store.put(key, {{"ctx": [3]}})
assert ResultCache(root, fast={fast}).get(key) == {{"ctx": [3]}}
print("recomputed")
"""
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "store")],
                          env={**os.environ, "PYTHONPATH": str(PROJECT)},
                          capture_output=True, text=True, timeout=300, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "recomputed"), done.stderr[-2000:]


def test_entries_nested_near_the_recursion_limit_are_damaged(tmp_path: Path) -> None:
    """Every depth around the interpreter's limit: those the decoder refuses, and those
    it decodes but the checksum's encoder, a few frames deeper, cannot follow."""
    key = "cd" * 32
    entry = tmp_path / key[:2] / f"{key}.json"
    ResultCache(tmp_path).put(key, {"ctx": [1]})
    limit = sys.getrecursionlimit()
    for depth in range(limit - 150, limit + 10):
        nested = "[" * depth + "]" * depth
        entry.write_text(f'{{"format": 3, "key": "{key}", "checksum": "0", '
                         f'"results": {{"ctx": {nested}}}}}')
        store = ResultCache(tmp_path)
        assert (store.get(key), store.corrupt) == ({}, 1), depth


@pytest.mark.corpus
def test_history_recomputes_entries_too_deep_to_decode(
        corpus_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The cold audit is the run's shared one of :data:`~tests.history_slice.SLICE` into
    a cache folder laid out as ``history --cache-dir`` lays it out (a copy of it); its
    report is what ``history --format json`` writes for it (was: a cold ``history`` CLI
    process of its own, about 3 s of CPU). The damaged run is the CLI in this process:
    every entry counted corrupt shows each was read and decoded, and a ``RecursionError``
    would reach the test."""
    from validator.commands.history import to_json

    root, out = tmp_path / "cache", tmp_path / "out.json"
    cache, reference = cold_slice_cache(tmp_path_factory, corpus_repo, root)
    args = ["history", "--repo", str(corpus_repo), SLICE, "--jobs", "1",
            "--cache-dir", str(root), "--format", "json", "--output", str(out)]
    cold = json.loads(json.dumps(to_json(reference)))
    assert cold["summary"]["checked"] == cold["summary"]["units"] > 0
    entries = sorted(cache.glob("*/*.json"))
    assert entries
    for entry in entries:
        entry.write_bytes(DEEP)
    warm = run_cli(*args, cwd=tmp_path)
    assert warm.returncode == 0 and "Traceback" not in warm.stderr, warm.stderr[-2000:]
    again = json.loads(out.read_text("utf-8"))
    assert again["summary"].pop("corrupt") == len(entries)
    cold["summary"].pop("corrupt")
    assert again == cold


@pytest.fixture(scope="module")
def lock(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    commit = subprocess.run(["git", "-C", str(corpus_repo), "rev-parse", "main"], check=True,
                            capture_output=True, text=True).stdout.strip()
    store = tmp_path_factory.mktemp("store")
    assert main(["fetch", f"vllm-project/recipes@{commit}:models/Qwen/Qwen3-8B.yaml",
                 "--git-url", str(corpus_repo), "--cache-dir",
                 str(tmp_path_factory.mktemp("cache")), "--snapshot-dir", str(store)]) == 0
    return store / LOCK_NAME


def _publish(lock: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``publish`` through the CLI in this process (:func:`run_cli`): an exception a
    damaged state file raised would reach the test."""
    return run_cli("publish", "--lock", str(lock), "--out-dir", str(out), "--checked-on",
                   "2026-12-06", *extra, cwd=PROJECT)


def _record(out: Path) -> Path:
    return next(p for p in (out / "records").rglob("*.json")
                if not p.name.endswith(".intoto.json"))


@pytest.mark.corpus
@pytest.mark.parametrize("state", [".publish-inputs.json", "index.json", "record",
                                   ".recipe-check-catalogue.json"])
def test_publish_state_files_too_deep_to_decode(state: str, lock: Path,
                                                tmp_path: Path) -> None:
    out, site = tmp_path / "out", tmp_path / "site"
    first = _publish(lock, out, "--site", str(site))
    assert first.returncode == 0, first.stderr
    record = _record(out)
    good = record.read_bytes()
    damaged = {"record": record, ".recipe-check-catalogue.json": site / state}.get(
        state, out / state)
    damaged.write_bytes(DEEP)
    again = _publish(lock, out, "--site", str(site))
    assert "Traceback" not in again.stderr, again.stderr[-2000:]
    if state == ".publish-inputs.json":  # re-derived, as a truncated manifest is
        assert again.returncode == 0 and "1 unchanged" in again.stdout, again.stdout
        assert json.loads(damaged.read_bytes())["records"]
    elif state == "index.json":  # not the index publish wrote: refused, left alone
        assert again.returncode == 2
        assert "index.json is not an index publish wrote" in again.stderr
        assert damaged.read_bytes() == DEEP
    elif state == "record":  # not a record publish made: replaced by the re-derived one
        assert again.returncode == 1
        assert "not a record publish made" in again.stdout + again.stderr
        assert record.read_bytes() == good
    else:  # not a catalogue publish made: refused, nothing deleted
        assert again.returncode == 2
        assert f"no valid {state}" in again.stderr
        assert damaged.read_bytes() == DEEP and (site / "index.html").is_file()


def test_the_catalogue_build_refuses_an_index_too_deep_to_decode(tmp_path: Path) -> None:
    from validator.evidence.site import SiteError, build_site

    out = tmp_path / "out"
    out.mkdir()
    (out / "index.json").write_bytes(DEEP)
    with pytest.raises(SiteError, match="not a readable record index"):
        build_site(out, tmp_path / "site")


def test_a_shipped_cli_data_file_too_deep_to_decode_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI data is no longer a cache entry (it is package data): a damaged copy of it
    # is not used, and the releases are read from their own files.
    from validator.vllm_cli import compact

    monkeypatch.setattr(compact, "DATA_DIR", tmp_path)
    compact.data_file("").write_bytes(DEEP)
    compact.shipped.cache_clear()
    try:
        assert compact.shipped("") is None
        assert compact.release_doc("", "0.10.0", "0" * 64) is None
    finally:
        compact.shipped.cache_clear()


READS_PACKAGE_DATA = {
    "validator/format_history.py", "validator/schema.py", "validator/rules/env/facts.py",
    "validator/evidence/model.py", "validator/vllm_cli/value_bounds.py",
    "validator/vllm_cli/contract.py",
    "validator/vllm_cli/extract.py", "validator/vllm_cli/extract_types.py",  # maintainers'
    "validator/vllm_cli/_introspect.py",  # extraction: runs inside a vLLM install
    "validator/vllm_cli/parsed_args.py",  # a recipe's JSON value, RecursionError handled
    "validator/evidence/foreign_files.py",  # the package's own record schema
    "validator/cache.py",  # json.loads(json.dumps(...)): a copy of values in memory
}
"""Modules that decode JSON without :func:`validator.state_json.parse_json`: each reads
only the package's own files (or handles the decoder's RecursionError itself)."""


def test_json_read_back_from_disk_is_decoded_by_the_one_safe_parser() -> None:
    calls = []
    for file in sorted((PROJECT / "validator").rglob("*.py")):
        rel = file.relative_to(PROJECT).as_posix()
        if rel in READS_PACKAGE_DATA or rel == "validator/state_json.py":
            continue
        for node in ast.walk(ast.parse(file.read_text("utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("loads", "load") and \
                    isinstance(node.func.value, ast.Name) and \
                    node.func.value.id in ("json", "orjson"):
                calls.append(f"{rel}:{node.lineno}")
    assert not calls, "decode with validator.state_json.parse_json: " + ", ".join(calls)
