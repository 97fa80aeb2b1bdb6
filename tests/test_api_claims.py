"""REF025 reads the variant ids of every other recipe (:mod:`validator.api_claims`): with a
result cache they come from one MAC-checked index entry, so a later run loads no other
recipe's YAML; an entry edited or cut short is recomputed, never trusted; and a cached
check follows what REF025 and REF026 read of the rest of the tree (another recipe's
variant ids, ``platforms.yaml``) instead of replaying a stale verdict."""

from __future__ import annotations

import collections
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import replace_once
from tests.pr.test_platform_ids import _opt_in
from tests.pr.test_variant_id_collisions import CHAT, MOE, _variant
from validator import api_claims, claims_store
from validator.context import Settings
from validator.report import get_reporter
from validator.source.local import local_targets

PROJECT = Path(__file__).resolve().parents[1]


def _cli(root: Path, cache: Path | None, recipe: str) -> tuple[int, str]:
    """Exit code and JSON report of ``check`` of one recipe in its own process."""
    where = ["--no-cache"] if cache is None else ["--cache-dir", str(cache)]
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--format",
                          "json", *where, recipe], cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"},
                         timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, run.stdout


def _rules(report: str) -> list[str]:
    return [f["rule"] for d in json.loads(report)["documents"] for f in d["findings"]]


def test_a_cached_check_reports_a_collision_made_by_editing_another_recipe(
        examples_tree: Path, tmp_path: Path) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    cache = tmp_path / "cache"
    assert "REF025" not in _rules(_cli(examples_tree, cache, CHAT)[1])
    _variant(examples_tree, MOE, "fp8", "example-org/example-chat-8b-fp8")  # a case twin
    cached = _cli(examples_tree, cache, CHAT)
    assert cached == _cli(examples_tree, None, CHAT)
    assert "REF025" in _rules(cached[1])


def test_a_cached_check_follows_an_edited_platforms_file(examples_tree: Path,
                                                         tmp_path: Path) -> None:
    _opt_in(examples_tree)
    cache = tmp_path / "cache"
    assert "REF026" not in _rules(_cli(examples_tree, cache, CHAT)[1])
    replace_once(examples_tree / "platforms.yaml", "id: example-cloud", "id: example-cloud-2")
    cached = _cli(examples_tree, cache, CHAT)
    assert cached == _cli(examples_tree, None, CHAT)
    assert "REF026" in _rules(cached[1])


def _check(root: Path, cache: Path) -> str:
    """JSON report of ``check models/`` with the result cache ``cache``, as a new process
    would run it (no variant ids memoised in this one)."""
    from validator.rule_index import check_rules
    from validator.session import Session
    from validator.unit_cache import UnitCache

    api_claims._OF_BYTES.clear()
    settings = Settings(offline=True)
    targets = local_targets(str(root / "models"), None, {})
    session = Session(settings, check_rules(), cache=UnitCache(cache, settings, check_rules()))
    result = session.check_targets((t.tree, t.path) for t in targets)
    out = io.StringIO()
    get_reporter("json").write(result, out)
    return out.getvalue()


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The recipes :mod:`validator.api_claims` loads YAML of, in order."""
    seen: list[str] = []
    from validator.load import load_yaml as real

    def counted(raw: bytes, path: str, **options: bool) -> object:
        seen.append(path)
        return real(raw, path, **options)

    monkeypatch.setattr(api_claims, "load_yaml", counted)
    monkeypatch.setattr(api_claims, "_OF_BYTES", collections.OrderedDict())
    return seen


def _touch(path: Path, mark: str) -> None:
    """New bytes for ``path``, the same recipe (a comment at its end)."""
    path.write_text(path.read_text("utf-8") + f"# {mark}\n", "utf-8")


def forge_index(entry: Path, model_id: str) -> None:
    """Every id the index ``entry`` holds made ``model_id``, its checksum left as it was."""
    stored = json.loads(entry.read_text())
    for ids in stored["results"].values():
        for pair in ids:
            pair[1] = model_id
    entry.write_text(json.dumps(stored))


def _index(cache: Path) -> Path:
    (entry,) = (cache / api_claims.FOLDER).glob("*/*.json")
    return entry


def test_a_later_run_reads_the_other_recipes_ids_from_the_index(
        examples_tree: Path, tmp_path: Path, loads: list[str]) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _variant(examples_tree, MOE, "fp8", "example-org/Example-MoE-120B-FP8")
    cache = tmp_path / "cache"
    cold = _check(examples_tree, cache)
    assert sorted(loads) == [CHAT, MOE]
    loads.clear()
    _touch(examples_tree / CHAT, "edited")
    edited = _check(examples_tree, cache)
    assert loads == [CHAT]  # the one edited; the other's ids come from the index
    assert len(json.loads(_index(cache).read_text())["results"]) == 3  # and CHAT's new bytes
    assert edited == _check(examples_tree, tmp_path / "fresh") != cold


@pytest.mark.parametrize("damage", ["forged", "truncated"])
def test_an_edited_or_truncated_index_is_recomputed_never_trusted(
        examples_tree: Path, tmp_path: Path, loads: list[str], damage: str) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _variant(examples_tree, MOE, "fp8", "example-org/Example-MoE-120B-FP8")
    cache = tmp_path / "cache"
    _check(examples_tree, cache)
    entry = _index(cache)
    if damage == "forged":  # MoE's variant made the chat variant's id, checksum kept
        forge_index(entry, "example-org/Example-Chat-8B-FP8")
    else:
        entry.write_bytes(entry.read_bytes()[:50])
    _touch(examples_tree / CHAT, "edited")
    loads.clear()
    report = _check(examples_tree, cache)
    assert sorted(loads) == [CHAT, MOE]  # the damaged index gave nothing: both read again
    assert "REF025" not in _rules(report)
    assert _check(examples_tree, tmp_path / "fresh") == report


def test_the_index_keeps_at_most_its_bound_then_the_current_trees_ids(
        examples_tree: Path, tmp_path: Path, loads: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims_store, "MAX_LABELS", 3)  # the index's own module
    cache = tmp_path / "cache"
    _check(examples_tree, cache)
    _touch(examples_tree / CHAT, "one")
    _check(examples_tree, cache)
    assert len(json.loads(_index(cache).read_text())["results"]) == 3
    _touch(examples_tree / MOE, "two")
    _check(examples_tree, cache)
    assert len(json.loads(_index(cache).read_text())["results"]) == 2  # this tree's two


@pytest.mark.parametrize(("lines", "collides"), [
    ('model_id: "example-org/\\u0045xample-Chat-8B-FP8"', True),  # an escape
    ("model_id: 'example-org/EXAMPLE-chat-8b-fp8'", True),  # another letter case
    ('model_id: "\uff45xample-org/Example-Chat-8B-FP8"', True),  # a full-width letter
    ("model_id: !!str example-org/Example-Chat-8B-FP8", True),  # a tag: read in full
    ('model_id: "./example-org/Example-Chat-8B-FP8"', True),  # a dot segment
    ('model_id: "example-org/Example-Chat-8B-FP8/int4"', True),  # inside its folder
    ('description: &id "example-org/Example-Chat-8B-FP8"\n    model_id: *id', True),
    ('model_id: "example-org/Example-Chat-8B-FP8"\n    note: "\ttab"', True),
    (f'model_id: "example-org/Example-Chat-8B-FP8/{"x" * 300}"', True),  # a long one
    ('model_id: "example-org/Example-Chat-8B-FP8.json"', True),  # its file's path
    ('model_id: "example-org/Example-Chat-8B-FP8.JSON/x"', True),  # under its file
    ('model_id: "example-org/Example-Chat-8B-FP8-2"', False),
    ('model_id: "example-org/Example-Chat-8B"', False),  # the recipe's own id: not promoted
])
def test_checking_one_recipe_finds_what_reading_every_recipe_finds(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch, lines: str,
        collides: bool) -> None:
    """REF025 of the first recipes of a run without the index loads only the recipes
    whose scalars may meet its ids (:func:`validator.api_claims.variant_ids_near`): the
    findings are those of reading every recipe, whatever form the other id is written
    in."""
    from tests.conftest import check_tree

    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    replace_once(examples_tree / MOE, "variants:\n  default:\n",
                 f"variants:\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
                 f"    {lines}\n  default:\n")
    near = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF025"]
    indexed, every = _indexed_and_every(examples_tree, monkeypatch)
    assert near == indexed == every
    assert bool(near) is collides


def _indexed_and_every(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], ...]:
    """REF025 of CHAT as a recipe past the first of a run finds it (from every recipe's
    scanned scalars, :func:`validator.api_claims.variant_ids_indexed`), and from reading
    every recipe's ids."""
    from tests.conftest import check_tree
    from validator.rules.ref import api_path

    monkeypatch.setattr(api_path, "_NEAR_ONLY", 0)
    indexed = [f for f in check_tree(root, CHAT) if f.rule == "REF025"]
    monkeypatch.setattr(api_path, "variant_ids_indexed", lambda ctx, _ids, skip: {
        p: ids for p, ids in api_claims.tree_variant_ids_of(ctx).items() if p != skip})
    every = [f for f in check_tree(root, CHAT) if f.rule == "REF025"]
    return indexed, every


_LOADS = """
import sys
import validator.load as load
real = load.load_yaml
seen = []
def recorded(raw, path, *args, **options):
    seen.append(path)
    return real(raw, path, *args, **options)
load.load_yaml = recorded
from validator.cli import main
rc = main(["check", "--no-cache", "--offline", sys.argv[1]])
print(rc, sorted({p for p in seen if p.startswith("models/")}))
"""


def test_checking_one_file_without_a_cache_loads_no_other_recipe(examples_tree: Path) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    run = subprocess.run([sys.executable, "-c", _LOADS, CHAT], cwd=examples_tree,
                         capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"})
    assert run.stdout.splitlines()[-1] == f"0 ['{CHAT}']", run.stdout + run.stderr


def test_cache_info_and_clean_include_the_index(examples_tree: Path, tmp_path: Path) -> None:
    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    cache = tmp_path / "cache"
    _cli(examples_tree, cache, CHAT)
    assert _index(cache).is_file()
    command = [sys.executable, "-m", "validator", "cache"]
    env = {"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin"}
    info = subprocess.run([*command, "info", "--cache-dir", str(cache)], capture_output=True,
                          text=True, env=env, timeout=300, check=True).stdout
    assert f"{cache / api_claims.FOLDER}: recipes' variant ids (REF025), " in info
    subprocess.run([*command, "clean", "--cache-dir", str(cache)], capture_output=True,
                   text=True, env=env, timeout=300, check=True)
    assert not (cache / api_claims.FOLDER).exists()


def test_a_recipes_scanned_paths_keep_no_long_text(examples_tree: Path) -> None:
    """A guide is one scalar holding many ``/``: its text and its prefixes are not kept
    (a corpus run held ~50 MB of them), only what an id can meet."""
    guide = "## Serve\n\n" + "see https://example.com/docs/page and /opt/x/y\n" * 400
    raw = (examples_tree / CHAT).read_bytes() + f"guide: |\n  {guide}".replace(
        "\n", "\n  ").encode()
    keys = api_claims._scalar_keys(raw)
    assert keys is not None
    assert max(map(len, keys[0] | keys[1])) <= api_claims._LONGEST


OTHER = "models/other-org/Other-MoE-120B.yaml"


def _other_org_recipe(root: Path, lines: str) -> None:
    """A recipe of another org (``other-org``, whose text names ``example-org`` nowhere
    else) with a variant written as ``lines``."""
    text = (root / MOE).read_text("utf-8").replace("example-org", "other-org").replace(
        "variants:\n  default:\n", f"variants:\n  fp8:\n    precision: fp8\n"
        f"    vram_minimum_gb: 10\n    {lines}\n  default:\n", 1)
    (root / OTHER).parent.mkdir()
    (root / OTHER).write_text(text, "utf-8")


@pytest.mark.parametrize(("lines", "collides"), [
    ('model_id: "\uff45xample-org/Example-Chat-8B-FP8"', True),  # a full-width letter
    ('model_id: "\\x65xample-org/Example-Chat-8B-FP8"', True),  # an escape writing one
    ('model_id: "exam\\\n      ple-org/Example-Chat-8B-FP8"', True),  # an escaped break
    ('model_id: "x/../EXAMPLE-ORG/Example-Chat-8B-FP8"', True),  # a dot-dot segment
    ('model_id: "Example-org/Example-Chat-8B-FP8/int4"', True),  # inside its folder
    ('model_id: "Example-Org/"', True),  # the folder holding it
    ('model_id: "./example-org/."', True),
    ('model_id: "./Example-Org"', True),
    ('model_id: "example-org/x/.."', True),
    ('model_id: "example-org\\/"', True),  # an escaped slash
    ('model_id: "x/../example-org"', True),
    ('model_id: "example-org.json/x"', False),  # neither its file nor its folder
    ('model_id: "example-org-2/x"', False),
    ('model_id: "other-org/Example-Chat-8B-FP8"', False),
])
def test_a_recipe_whose_text_cannot_hold_a_path_meeting_the_ids_is_not_scanned(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch, lines: str,
        collides: bool) -> None:
    """Checking one recipe reads, of another org's recipes, only those whose text (read
    as a path key is: letter case, full-width forms, escapes and joined lines) may hold
    a path meeting its variants' ids (``org`` and the name, or ``org`` alone in a path
    that is only its folder); what is found is what reading every recipe finds."""
    from tests.conftest import check_tree

    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _other_org_recipe(examples_tree, lines)
    monkeypatch.setattr(api_claims, "_KEYS_OF_BYTES", collections.OrderedDict())
    near = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF025"]
    scanned = {path for path, _ in api_claims._KEYS_OF_BYTES}
    indexed, every = _indexed_and_every(examples_tree, monkeypatch)
    assert near == indexed == every
    assert bool(near) is collides
    assert (OTHER in scanned) is collides


def test_a_run_past_its_first_recipes_loads_only_the_recipes_that_may_meet_their_ids(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch, loads: list[str]) -> None:
    """Past the first recipes of a run without the index, REF025 finds the recipes that
    may meet a recipe's ids from every recipe's scalars, scanned once, and loads only
    those: no recipe's YAML is loaded a second time for the ids of the whole tree."""
    from tests.conftest import check_tree, corpus_recipes
    from validator.rules.ref import api_path

    _variant(examples_tree, CHAT, "fp8", "example-org/Example-Chat-8B-FP8")
    _variant(examples_tree, MOE, "fp8", "example-org/Example-Chat-8B-FP8/int4")
    _other_org_recipe(examples_tree, 'model_id: "other-org/Other-MoE-120B-FP8"')
    monkeypatch.setattr(api_path, "_NEAR_ONLY", 0)
    found = [f for f in check_tree(examples_tree, *corpus_recipes(examples_tree))
             if f.rule == "REF025"]
    assert sorted(f.path for f in found) == [CHAT, MOE]
    assert sorted(loads) == [CHAT, MOE]  # each for the other; OTHER meets neither
