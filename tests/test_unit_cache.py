"""The persistent result cache of ``check`` (:mod:`validator.unit_cache`): a warm run
gives the cold run's output byte for byte, a unit is recomputed whenever anything it
depends on changes, and an entry edited, cut short or written by another tool state is
recomputed, never trusted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from validator.context import Settings
from validator.paths import SNAPSHOTS_DIR
from validator.report import get_reporter
from validator.source.local import local_targets
from validator.unit_cache import RESULTS

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLE = PROJECT / "examples" / "recipes"
MOE = "models/example-org/Example-MoE-120B.yaml"


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLE, root)
    return root


def check(root: Path, cache: Path, settings: Settings | None = None) -> tuple[str, int, int]:
    """(JSON report, cache hits, cache misses) of ``check models/`` in ``root``."""
    from validator.rule_index import check_rules
    from validator.session import Session
    from validator.unit_cache import UnitCache

    settings = settings or Settings(offline=True)
    targets = local_targets(str(root / "models"), None, {})
    unit_cache = UnitCache(cache, settings, check_rules())
    session = Session(settings, check_rules(), cache=unit_cache)
    result = session.check_targets((t.tree, t.path) for t in targets)
    report = get_reporter("json")
    import io

    out = io.StringIO()
    report.write(result, out)
    return out.getvalue(), unit_cache.hits, unit_cache.misses


def entries(cache: Path) -> list[Path]:
    return sorted((cache / RESULTS).glob("*/*.json"))


def test_a_warm_run_answers_every_unit_from_the_cache_with_the_same_report(
        tmp_path: Path) -> None:
    root = tree(tmp_path)
    cold, hits, misses = check(root, tmp_path / "cache")
    assert (hits, misses) == (0, 2)
    warm, hits, misses = check(root, tmp_path / "cache")
    assert (hits, misses) == (2, 0)
    assert warm == cold
    assert '"rule": "REF004"' in cold  # the example's deliberate mistakes are reported


def test_an_edited_recipe_is_recomputed_and_the_others_are_not(tmp_path: Path) -> None:
    root = tree(tmp_path)
    check(root, tmp_path / "cache")
    moe = root / MOE
    moe.write_text(moe.read_text().replace("h20", "h100"))
    edited, hits, misses = check(root, tmp_path / "cache")
    assert (hits, misses) == (1, 1)
    assert edited == check(root, tmp_path / "fresh")[0]
    assert "'h20'" not in edited


def test_a_context_change_recomputes_every_unit(tmp_path: Path) -> None:
    root = tree(tmp_path)
    check(root, tmp_path / "cache")
    taxonomy = root / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + "\n# a comment changes the bytes\n")
    assert check(root, tmp_path / "cache")[1:] == (0, 2)
    new_recipe = root / "models" / "example-org" / "Another.yaml"
    shutil.copy(root / MOE, new_recipe)  # the recipe list is part of the context too
    assert check(root, tmp_path / "cache")[1] == 0


def test_settings_and_vendored_data_are_part_of_the_key(tmp_path: Path) -> None:
    root = tree(tmp_path)
    check(root, tmp_path / "cache")
    assert check(root, tmp_path / "cache", Settings(offline=True, strict=True))[1] == 0
    vendored = tmp_path / "snapshots"
    shutil.copytree(SNAPSHOTS_DIR, vendored)
    settings = Settings(offline=True, vendored_dir=vendored)
    assert check(root, tmp_path / "cache", settings)[1:] == (0, 2)
    assert check(root, tmp_path / "cache", settings)[1:] == (2, 0)
    releases = vendored / "vllm-releases.json"
    releases.write_bytes(releases.read_bytes() + b"\n")  # another tool state: recomputed
    assert check(root, tmp_path / "cache", settings)[1:] == (0, 2)


def test_an_edited_truncated_or_foreign_entry_is_recomputed_never_trusted(
        tmp_path: Path) -> None:
    root = tree(tmp_path)
    cold = check(root, tmp_path / "cache")[0]
    first, second = sorted(entries(tmp_path / "cache"),
                           key=lambda e: '"findings":[]' in e.read_text())  # MoE's first
    entry = json.loads(first.read_text())
    for unit in entry["results"].values():
        unit["findings"] = []  # a forged "clean" result, its checksum left as it was
    first.write_text(json.dumps(entry))
    second.write_bytes(second.read_bytes()[:40])
    again, hits, misses = check(root, tmp_path / "cache")
    assert (again, hits, misses) == (cold, 0, 2)
    entry = json.loads(first.read_text())
    entry["format"] = 1  # written by another version of the store
    first.write_text(json.dumps(entry))
    assert check(root, tmp_path / "cache")[1:] == (1, 1)


def test_concurrent_runs_over_one_cache_give_the_output_of_one(tmp_path: Path) -> None:
    root = tree(tmp_path)
    command = [sys.executable, "-m", "validator", "--offline", "--format", "json",
               "--cache-dir", str(tmp_path / "cache"), "models/"]
    env = {"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"}
    alone = subprocess.run([*command[:-2], str(tmp_path / "alone"), "models/"], cwd=root,
                           capture_output=True, text=True, env=env, timeout=300)
    runs = [subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True, env=env)
            for _ in range(3)]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert outputs == [alone.stdout] * 3
    warm = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env,
                          timeout=300)
    assert warm.stdout == alone.stdout
    assert len(entries(tmp_path / "cache")) == 2


def test_no_cache_writes_nothing_and_an_unwritable_folder_only_turns_it_off(
        tmp_path: Path) -> None:
    root = tree(tmp_path)
    env = {"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"}
    base = [sys.executable, "-m", "validator", "--offline", "--format", "json"]
    off = subprocess.run([*base, "--no-cache", "--cache-dir", str(tmp_path / "c"), "models/"],
                         cwd=root, capture_output=True, text=True, env=env, timeout=300)
    assert off.returncode == 1 and not (tmp_path / "c").exists()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    broken = subprocess.run([*base, "--cache-dir", str(blocker), "models/"], cwd=root,
                            capture_output=True, text=True, env=env, timeout=300)
    assert (broken.returncode, broken.stdout) == (1, off.stdout)
    assert "the result cache is off for this run" in broken.stderr


def test_an_entry_keeps_a_findings_unchosen_mark(tmp_path: Path) -> None:
    """``pr`` reads :attr:`Finding.unchosen` (a KV offload option's warning it gives back
    its error when the change edits the option): an entry answers it as it was put."""
    import dataclasses

    from validator.findings import FLOOR, Finding, Severity
    from validator.rule_index import check_rules
    from validator.unit_cache import UnitCache

    cache = UnitCache(tmp_path / "cache", Settings(offline=True), check_rules())
    found = Finding("FLAG002", Severity.WARNING, MOE, "/model/min_vllm_version", 22, 3,
                    "taxonomy.yaml kv_offload.tier.args: too new", reason=FLOOR,
                    unchosen=True)
    plain = dataclasses.replace(found, unchosen=False)
    cache.put("k" * 64, [found, plain], None)
    cached = cache.get("k" * 64)
    assert cached is not None
    assert [(f, f.unchosen, f.reason) for f in cached.findings] == [
        (found, True, FLOOR), (plain, False, FLOOR)]
