"""The derived vLLM CLI registries are entries of the cache folder like every other: under
the part's HMAC (an entry edited and re-hashed without the secret is derived again, never
trusted), in ``--cache-dir``, untouched under ``--no-cache``, listed by ``cache info`` and
removed by ``cache clean`` (trial 8 #2: a re-hashed entry adding a made-up option made
FLAG001 disappear, and every cache option ignored the folder)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from validator.cache import ResultCache
from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
RECIPE = "models/example-org/Example-Chat-8B.yaml"
PART = "vllm-cli"  # the part of the cache folder, as the README names it
LABEL = "compact"
FAKE = "--totally-fake-flag"
_KEYS = ("strings", "dest", "takes_value", "nargs", "choices", "is_json", "negatable",
         "deprecated", "help", "default", "hidden", "json_takes_string", "parses_json")


@pytest.fixture()
def tree(examples_tree: Path) -> Path:
    """The example recipes with one recipe passing an option no vLLM release has."""
    recipe = examples_tree / RECIPE
    text = recipe.read_text("utf-8")
    recipe.write_text(text.replace('    - "32768"\n', f'    - "32768"\n    - "{FAKE}"\n'
                                   '    - "1"\n', 1), "utf-8")
    return examples_tree


def _check(tree: Path, xdg: Path, *options: str) -> list[str]:
    """The rules ``check`` of the recipe reports, in a process of its own (the derived
    data is read once per process)."""
    run = subprocess.run([sys.executable, "-m", "validator", "check", "--offline", "--format",
                          "json", *options, RECIPE], cwd=tree, capture_output=True,
                         text=True, timeout=300,
                         env={"PYTHONPATH": str(PROJECT), "PATH": "/usr/bin:/bin",
                              "XDG_CACHE_HOME": str(xdg), "RECIPE_CHECK_PROGRESS": "off"})
    assert run.returncode in (0, 1), run.stderr
    return [f["rule"] for d in json.loads(run.stdout)["documents"] for f in d["findings"]]


def _with_fake_option(data: dict) -> None:  # type: ignore[type-arg]
    option = dict.fromkeys(_KEYS)
    option.update(strings=[FAKE], dest="fake", takes_value=True, is_json=False,
                  negatable=False, deprecated=False, help="x", hidden=False,
                  parses_json=False)
    data["options"].append(option)
    for release in data["releases"].values():
        release["doc"]["options"].append(len(data["options"]) - 1)


def _forge(part: Path) -> int:
    """Add the fake option to every release of each derived entry below ``part`` and
    stamp it again without the secret (a plain SHA-256, as anyone who can edit the file
    can): the cache entry's form, or a first line hashing the rest. How many."""
    forged = 0
    for file in sorted(part.rglob("*.json")):
        head, _, rest = file.read_bytes().partition(b"\n")
        if rest and len(head) == 64:  # a digest line, then the data
            data = json.loads(rest)
            _with_fake_option(data)
            body = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
            file.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        else:
            entry = json.loads(head)
            _with_fake_option(entry["results"][LABEL])
            text = json.dumps(entry["results"], sort_keys=True, separators=(",", ":"))
            entry["checksum"] = hashlib.sha256(text.encode()).hexdigest()
            file.write_text(json.dumps(entry), "utf-8")
        forged += 1
    return forged


def test_a_forged_and_rehashed_cli_entry_does_not_change_the_verdict(
        tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    xdg = tmp_path / "xdg"
    assert "FLAG001" in _check(tree, xdg, "--cache-dir", str(cache))
    part = cache / PART if (cache / PART).is_dir() \
        else xdg / "recipe-check" / PART
    assert _forge(part) >= 1
    for other in ("results", "runs", "claims"):  # so that the registries are read again
        shutil.rmtree(cache / other, ignore_errors=True)
    assert "FLAG001" in _check(tree, xdg, "--cache-dir", str(cache))  # was: none
    assert _forge(part) >= 1  # rewritten by the run: derived again, in the entry's form


def test_the_cli_entries_live_in_cache_dir_and_no_cache_writes_none(
        tree: Path, tmp_path: Path) -> None:
    cache, xdg = tmp_path / "cache", tmp_path / "xdg"
    _check(tree, xdg, "--cache-dir", str(cache))
    entries = list((cache / PART).rglob("*.json"))
    assert entries and not (xdg / "recipe-check").exists()  # was: vllm-cli/ in xdg
    store = ResultCache(cache / PART)
    (key,) = [e.stem for e in entries]
    assert store.get(key)[LABEL]["format"] == "recipe-check/vllm-cli-compact/v1"  # under the HMAC
    _check(tree, xdg, "--no-cache", "--cache-dir", str(tmp_path / "other"))
    assert not (xdg / "recipe-check").exists() and not (tmp_path / "other").exists()


def test_cache_info_lists_and_cache_clean_removes_the_cli_entries(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    _check(tree, tmp_path / "xdg", "--cache-dir", str(cache))
    assert main(["cache", "info", "--cache-dir", str(cache)]) == 0
    assert f"{cache / PART}: derived vLLM CLI registries, " in capsys.readouterr().out
    assert main(["cache", "clean", "--cache-dir", str(cache)]) == 0
    assert f"removed {cache / PART}" in capsys.readouterr().out
    assert not (cache / PART).exists()
