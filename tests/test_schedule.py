"""The order pytest-xdist hands out the tests in: units known to be long first, longest
first, a group's tests together; everything else as collected (:mod:`tests.schedule`)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from tests import schedule

PROJECT = Path(__file__).resolve().parents[1]


@dataclass
class Item:
    """What :func:`tests.schedule.long_units_first` reads of a pytest item."""

    nodeid: str
    group: str | None = None
    sweep: bool = False

    def get_closest_marker(self, name: str) -> Any:
        if name == "xdist_group" and self.group is not None:
            return pytest.mark.xdist_group(self.group).mark
        if name == "full_sweep" and self.sweep:
            return pytest.mark.full_sweep.mark
        return None


def _ordered(items: list[Item], durations: dict[str, float]) -> list[str]:
    as_items = cast(list[pytest.Item], items)
    schedule.long_units_first(as_items, durations)
    return [item.nodeid for item in as_items]


def test_long_units_go_first_longest_first_and_the_rest_keeps_its_order() -> None:
    items = [Item("a::short1"), Item("a::long"), Item("b::g1", "g"), Item("a::short2"),
             Item("c::longer"), Item("b::g2", "g"), Item("d::short3")]
    durations = {"a::long": 5.0, "c::longer": 9.0, "b::g1": 1.5, "b::g2": 1.5,
                 "a::short1": 1.9, "d::short3": 0.1}
    # the group's 3 s make it a long unit, its tests stay together; 1.9 s is not long
    assert _ordered(items, durations) == ["c::longer", "a::long", "b::g1", "b::g2",
                                          "a::short1", "a::short2", "d::short3"]


def test_a_full_sweep_without_a_recorded_duration_counts_as_long() -> None:
    items = [Item("a::short"), Item("a::long"), Item("b::sweep", sweep=True)]
    assert _ordered(items, {"a::long": 30.0}) == ["b::sweep", "a::long", "a::short"]
    assert _ordered(items, {"a::long": 30.0, "b::sweep": 3.0}) == [
        "a::long", "b::sweep", "a::short"]


def test_without_durations_the_collection_order_is_kept() -> None:
    items = [Item("a::x"), Item("b::y", "g"), Item("a::z")]
    assert _ordered(items, {}) == ["a::x", "b::y", "a::z"]


def test_the_checked_in_durations_name_tests_that_exist() -> None:
    """A test renamed or removed leaves a stale entry that orders nothing: the file must
    name collected tests (every module it names exists, at least)."""
    durations = schedule.known_durations()
    assert len([s for s in durations.values() if s >= schedule.LONG]) >= 20
    modules = {node_id.split("::")[0] for node_id in durations}
    assert [m for m in sorted(modules) if not (PROJECT / m).is_file()] == []


def test_record_durations_writes_each_tests_seconds(tmp_path: Path) -> None:
    (tmp_path / "test_two.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(0.6)\n\n\n"
        "def test_fast():\n    pass\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "from tests import schedule\n\n\n"
        "def pytest_addoption(parser):\n    schedule.add_option(parser)\n\n\n"
        "def pytest_configure(config):\n    schedule.register_recorder(config)\n",
        encoding="utf-8")
    out = tmp_path / "durations.json"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", "--rootdir", str(tmp_path), "--record-durations", str(out),
         str(tmp_path / "test_two.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROJECT)})
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = json.loads(out.read_text(encoding="utf-8"))
    assert list(recorded) == ["test_two.py::test_slow"]
    assert 0.6 <= recorded["test_two.py::test_slow"] < 30
