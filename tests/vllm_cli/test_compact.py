"""The compact copy of the vendored CLI registries gives the same registries as the files,
is verified (damaged copy rebuilt, changed file re-derived) and leaves out a file that
fails its pin."""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from validator.vllm_cli import compact
from validator.vllm_cli import registry as reg
from validator.vllm_cli.plugins import PLUGINS


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv(compact.CACHE_ENV, str(folder))
    monkeypatch.setattr(compact, "_LOADED", {})
    monkeypatch.setattr(compact, "_CHOSEN", [])  # no command chose a cache folder
    reg._from_compact.cache_clear()
    yield folder
    reg._from_compact.cache_clear()


def _from_files(folder: Path, version: str) -> reg.CliRegistry:
    path = folder / f"{version}.json"
    return reg._load_file(path, reg._index(folder)[version], reg._stat_key(path))


def test_every_vendored_registry_equals_the_one_from_its_file(cache: Path) -> None:
    folders = [reg.DEFAULT_REGISTRY_DIR, *(p.registry_dir for p in PLUGINS.values())]
    count = 0
    for folder in (f.resolve() for f in folders):
        for version in reg.available_versions(folder):
            made = reg.load_registry(version, folder)
            again = _from_files(folder, str(version))
            assert made is not again
            assert made == again and made._by_string == again._by_string
            count += 1
    assert count >= 100
    assert len(list(cache.glob("*/*.json"))) == len(folders)


def test_a_damaged_or_stale_copy_is_derived_again(cache: Path) -> None:
    folder = reg.DEFAULT_REGISTRY_DIR.resolve()
    pins = tuple(sorted(reg._index(folder).items()))
    compact.compact(folder, pins)
    (file,) = cache.glob("*/*.json")
    store, key = compact._store(), file.stem
    good = file.read_bytes()
    assert compact._read(store, key) is not None
    edited = good.replace(b'"takes_value":true', b'"takes_value":false', 1)
    assert edited != good
    file.write_bytes(edited)
    assert compact._read(store, key) is None  # its HMAC no longer verifies
    body = json.loads(good)["results"][compact.LABEL]
    assert compact.compact(folder, pins, fresh=True)["options"] == body["options"]
    assert file.read_bytes() == good
    data = body
    data["stats"][pins[0][0]] = [0, 1]  # a file changed since the copy was made
    assert not compact._current(data, folder, dict(pins))


def test_a_file_failing_its_pin_is_left_out(tmp_path: Path) -> None:
    source = reg.DEFAULT_REGISTRY_DIR
    versions = [str(v) for v in reg.available_versions()[:3]]
    pins = {v: reg._index(source.resolve())[v] for v in versions}
    for v in versions:
        shutil.copy(source / f"{v}.json", tmp_path / f"{v}.json")
    with (tmp_path / f"{versions[1]}.json").open("ab") as fh:
        fh.write(b" ")
    data = compact.derive(tmp_path, pins)
    assert sorted(data["releases"]) == sorted([versions[0], versions[2]])
    assert data["releases"][versions[0]]["sha256"] == pins[versions[0]]


def test_releases_listing_the_same_names_share_one_set(cache: Path) -> None:
    folder = reg.DEFAULT_REGISTRY_DIR.resolve()
    made = [reg.load_registry(v, folder) for v in reg.available_versions(folder)]
    pairs = [(a, b) for a, b in itertools.pairwise(made) if a.env_vars == b.env_vars]
    assert pairs, "no two consecutive releases list the same environment variables"
    for a, b in pairs:
        assert a.env_vars is b.env_vars
    # names stay strings, and a set equals the one its file gives
    newest = made[-1]
    assert all(type(x) is str for x in newest.env_vars | newest.json_flags)
    assert newest.env_vars == _from_files(folder, newest.version).env_vars
