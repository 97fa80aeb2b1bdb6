"""Each revision's release window is the date of the newest vendored vLLM release
published by its commit date, and the release list is read once however many commits ask
(a history of thousands of commits read and verified it once per commit date)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import validator.releases
from validator.context import Settings
from validator.history import revisions
from validator.releases import load_vendored


def _expected(moment: datetime) -> str:
    found = [r.uploaded for r in load_vendored().releases if r.uploaded <= moment]
    return (max(found) if found else moment).date().isoformat()


def _forget_memos() -> None:
    for name in ("_release_date_by", "_upload_times"):
        memoised = getattr(revisions, name, None)
        if memoised is not None:
            memoised.cache_clear()


def test_the_window_is_the_newest_release_by_the_commit_date() -> None:
    releases = load_vendored().releases
    moments = [r.uploaded + delta for r in releases[:: max(1, len(releases) // 12)]
               for delta in (timedelta(seconds=-1), timedelta(0), timedelta(seconds=1))]
    moments.append(releases[0].uploaded - timedelta(days=400))  # before every release
    for moment in moments:
        date = moment.astimezone(UTC).isoformat()
        assert revisions.release_window_of(date, True, Settings()) == _expected(moment)


def test_the_release_list_is_read_once_for_many_commit_dates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = validator.releases.load_vendored

    def counted(*args: object) -> object:
        calls.append(args)
        return real()

    _forget_memos()
    monkeypatch.setattr(validator.releases, "load_vendored", counted)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for day in range(50):
        revisions.release_window_of((start + timedelta(days=day, minutes=day)).isoformat(),
                                    True, Settings())
    _forget_memos()
    assert len(calls) == 1
