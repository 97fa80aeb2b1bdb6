"""Revisions from a GitHub Actions event payload (``GITHUB_EVENT_PATH``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.pr.event import EventError, EventRevisions, read_event

A = "a" * 40
B = "b" * 40


def _env(tmp_path: Path, payload: object, name: str = "") -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload) if not isinstance(payload, str) else payload)
    return {"GITHUB_EVENT_PATH": str(path), "GITHUB_EVENT_NAME": name}


def test_no_event_file() -> None:
    assert read_event({}) is None


def test_pull_request(tmp_path: Path) -> None:
    env = _env(tmp_path, {"pull_request": {"number": 7, "base": {"sha": A},
                                           "head": {"sha": B}}}, "pull_request")
    assert read_event(env) == EventRevisions("pull_request", A, B, 7)


def test_push_and_branch_creation(tmp_path: Path) -> None:
    assert read_event(_env(tmp_path, {"before": A, "after": B}, "push")) == \
        EventRevisions("push", A, B)
    assert read_event(_env(tmp_path, {"before": "0" * 40, "after": B}, "push")) == \
        EventRevisions("push", None, B)


@pytest.mark.parametrize(("payload", "message"), [
    ("{not json", "is not JSON"),
    ([1, 2], "not a JSON object"),
    ({"pull_request": {"base": {"sha": "main"}, "head": {"sha": B}}}, "pull_request.base.sha"),
    ({"after": "HEAD"}, "'after' is not"),
    ({"merge_group": {"base_sha": A, "head_sha": "x"}}, "head_sha"),
])
def test_bad_payloads_say_what_is_wrong(tmp_path: Path, payload: object, message: str) -> None:
    with pytest.raises(EventError, match=message.replace("'", "").split()[0]):
        read_event(_env(tmp_path, payload))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EventError, match="cannot read GITHUB_EVENT_PATH"):
        read_event({"GITHUB_EVENT_PATH": str(tmp_path / "absent.json")})


def test_merge_group(tmp_path: Path) -> None:
    env = _env(tmp_path, {"merge_group": {"base_sha": A, "head_sha": B}}, "merge_group")
    assert read_event(env) == EventRevisions("merge_group", A, B)


def test_events_without_revisions_check_everything_at_github_sha(tmp_path: Path) -> None:
    env = _env(tmp_path, {"inputs": {}, "ref": "refs/heads/main"}, "workflow_dispatch")
    assert read_event(env) == EventRevisions("workflow_dispatch", None, "HEAD")
    assert read_event({**env, "GITHUB_SHA": B}) == EventRevisions("workflow_dispatch", None, B)
