"""Long tests first: the order in which pytest-xdist hands out the tests.

Under ``-n auto --dist loadgroup`` (the README's command) each worker is given the next
unit of work (one test, or every test of one ``xdist_group``) as it runs dry, in the order
of the collection. A run ends when its last unit ends: one 30-second unit handed out
last keeps one worker busy for 30 s while the other has nothing left to do. So the units
known to be long (:data:`DURATIONS`, seconds per test, measured) are put first, longest
first; every other test keeps its place in the collection (the tests of one module stay
together, so a module-scoped fixture is made as seldom as before).

``--record-durations FILE`` writes the seconds of every test of the run that took at
least :data:`RECORDED` (setup, call and teardown, as ``--durations`` counts them) in the
format of :data:`DURATIONS`; copy it over that file when the long tests change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.json")
"""Test node id (without the ``@group`` suffix xdist adds) -> seconds it took."""
LONG = 2.0
"""A unit of at least this many seconds goes first."""
SWEEP = 60.0
"""The seconds counted for a ``full_sweep`` test :data:`DURATIONS` does not list: each
full sweep takes minutes, so when the sweeps run with the suite (``.ci/run``) they start
first even before their durations are recorded."""
RECORDED = 0.5
"""``--record-durations`` keeps the tests of at least this many seconds."""

def add_option(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", metavar="FILE", default=None,
                     help="write the seconds of each test of this run that took at least "
                          f"{RECORDED} s as JSON to FILE (the format of {DURATIONS.name})")


def known_durations() -> dict[str, float]:
    """The checked-in durations (:data:`DURATIONS`); none where the file is missing."""
    if not DURATIONS.is_file():
        return {}
    durations: dict[str, float] = json.loads(DURATIONS.read_text(encoding="utf-8"))
    return durations


def _unit(item: pytest.Item) -> str:
    """What xdist hands out as one: the item's ``xdist_group``, else the item itself."""
    group = item.get_closest_marker("xdist_group")
    return f"@{group.args[0]}" if group is not None and group.args else item.nodeid


def _seconds(item: pytest.Item, durations: dict[str, float]) -> float:
    if item.nodeid in durations:
        return durations[item.nodeid]
    return SWEEP if item.get_closest_marker("full_sweep") is not None else 0.0


def long_units_first(items: list[pytest.Item], durations: dict[str, float]) -> None:
    """Reorder ``items`` in place: the units of at least :data:`LONG` seconds first,
    longest first, the tests of each unit in collection order; the rest after them in
    collection order. A full sweep not in ``durations`` counts :data:`SWEEP` seconds."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(_unit(item), []).append(item)
    seconds = {unit: sum(_seconds(item, durations) for item in members)
               for unit, members in units.items()}
    order = sorted(units, key=lambda unit: -seconds[unit] if seconds[unit] >= LONG else 0.0)
    items[:] = [item for unit in order for item in units[unit]]


def _plain_node_id(node_id: str) -> str:
    """``node_id`` without the ``@group`` suffix xdist's ``loadgroup`` adds."""
    at = node_id.rfind("@")
    return node_id[:at] if at > node_id.rfind("]") else node_id


class DurationRecorder:
    """With ``--record-durations FILE``: counts each report's seconds towards its test, in
    the process that reports (the xdist controller under ``-n``), and writes them."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        node_id = _plain_node_id(report.nodeid)
        self.seconds[node_id] = self.seconds.get(node_id, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        long = {node_id: round(seconds, 1) for node_id, seconds in sorted(self.seconds.items())
                if seconds >= RECORDED}
        self.target.write_text(json.dumps(long, indent=1) + "\n", encoding="utf-8")


def register_recorder(config: pytest.Config) -> None:
    """Record this run's durations where ``--record-durations`` asks (not in an xdist
    worker: the controller hears every worker's reports)."""
    target = config.getoption("record_durations")
    if target is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(Path(target)), "recipe-check-durations")
