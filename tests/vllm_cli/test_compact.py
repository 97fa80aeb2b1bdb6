"""The compact copy of the vendored CLI registries is package data: it gives the same
registries as the files, equals a fresh derivation from them (so it cannot go stale), is
used for a release only while that release's pin is the one it was derived from, and a
run reads it instead of hashing and parsing the vendored files (no derivation at run
time, no cache)."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts.derive_vllm_cli import derived, families
from validator.vllm_cli import compact
from validator.vllm_cli import registry as reg
from validator.vllm_cli.plugins import PLUGINS


@pytest.fixture
def fresh() -> Iterator[None]:
    """Nothing of the compact data read yet in this process."""
    compact.shipped.cache_clear()
    reg._from_compact.cache_clear()
    yield
    compact.shipped.cache_clear()
    reg._from_compact.cache_clear()


def _from_files(folder: Path, version: str) -> reg.CliRegistry:
    path = folder / f"{version}.json"
    return reg._load_file(path, reg._index(folder)[version], reg._stat_key(path))


def test_every_vendored_registry_equals_the_one_from_its_file(fresh: None) -> None:
    folders = [reg.DEFAULT_REGISTRY_DIR, *(p.registry_dir for p in PLUGINS.values())]
    count = 0
    for folder in (f.resolve() for f in folders):
        family = "" if folder == reg.DEFAULT_REGISTRY_DIR.resolve() else folder.name
        for version in reg.available_versions(folder):
            made = reg.load_registry(version, folder)
            assert compact.release_doc(family, str(version), made.sha256) is not None
            again = _from_files(folder, str(version))
            assert made is not again
            assert made == again and made._by_string == again._by_string
            count += 1
    assert count >= 100


def test_the_shipped_files_equal_a_fresh_derivation_of_the_vendored_ones() -> None:
    shipped = sorted(compact.DATA_DIR.glob("vllm_cli*.json"))
    assert shipped == sorted(compact.data_file(f) for f in families())
    assert len(shipped) == 1 + len(PLUGINS)
    for family in families():
        body, missing = derived(family)
        assert not missing, f"{family or 'vllm'}: releases failing their pin: {missing}"
        assert compact.data_file(family).read_bytes() == body, \
            f"{compact.data_file(family)} is stale: run scripts/derive_vllm_cli.py"


def test_a_run_derives_nothing_and_reads_no_registry_file(
        fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("read a vendored registry file or derived the compact data")

    monkeypatch.setattr(compact, "derive", refused)
    monkeypatch.setattr(reg, "_load_file", refused)
    read: list[str] = []
    data_file = compact.data_file

    def recorded(family: str) -> Path:
        read.append(family)
        return data_file(family)

    monkeypatch.setattr(compact, "data_file", recorded)
    folder = reg.DEFAULT_REGISTRY_DIR.resolve()
    for version in reg.available_versions(folder):
        reg.load_registry(version, folder)
    assert read == [""]  # vLLM's own file, once; no plugin's


def test_a_release_pinned_anew_is_not_served_from_the_shipped_data(fresh: None) -> None:
    folder = reg.DEFAULT_REGISTRY_DIR.resolve()
    version, pin = sorted(reg._index(folder).items())[0]
    assert compact.release_doc("", version, pin) is not None
    assert compact.release_doc("", version, "0" * 64) is None
    assert compact.release_doc("", "0.0.1", pin) is None
    assert reg._from_compact(".", version, "0" * 64) is None  # load_registry reads the file


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


def test_releases_listing_the_same_names_share_one_set(fresh: None) -> None:
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
