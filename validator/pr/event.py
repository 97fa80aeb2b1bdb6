"""Base and head revisions of the GitHub Actions event that started a workflow run.

GitHub writes the webhook payload of the triggering event to the file named by
``GITHUB_EVENT_PATH`` (docs.github.com, "Events that trigger workflows" and "Variables":
``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``). For ``pull_request`` (and
``pull_request_target``) the payload has ``pull_request.base.sha`` and
``pull_request.head.sha``; for ``merge_group`` (merge queues) ``merge_group.base_sha`` and
``merge_group.head_sha``; for ``push`` it has ``before`` and ``after``, where ``before``
is all zeros when the push created the branch. Other events (``workflow_dispatch``,
``schedule``) name no base: the run checks every recipe at ``GITHUB_SHA``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from validator.atomic import read_input_file
from validator.errors import RecipeCheckError
from validator.state_json import parse_json

_SHA = re.compile(r"^[0-9a-f]{40}$")
_ZERO = "0" * 40


class EventError(RecipeCheckError):
    """The event file is missing, not JSON, or lacks the revisions (message says which)."""


@dataclass(frozen=True)
class EventRevisions:
    """What an event says to compare.

    Attributes:
        event: the event name (``pull_request``, ``push``, ...).
        base: full commit id of the base, or ``None`` (a push that created a branch).
        head: full commit id of the head.
        number: pull request number when the event is a pull request.
    """

    event: str
    base: str | None
    head: str
    number: int | None = None


def _sha(value: object, where: str) -> str:
    if not isinstance(value, str) or not _SHA.match(value):
        raise EventError(f"{where} is not a 40-hex commit id: {value!r}")
    return value


def read_event(env: Mapping[str, str]) -> EventRevisions | None:
    """Revisions of the event described by ``env`` (``GITHUB_EVENT_PATH`` and
    ``GITHUB_EVENT_NAME``), or ``None`` when ``env`` names no event file.

    Raises:
        EventError: the file cannot be read or parsed, or a revision it names is not a
            full commit id.
    """
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        payload = parse_json(read_input_file(Path(path)))
    except OSError as exc:
        raise EventError(f"cannot read GITHUB_EVENT_PATH {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise EventError(f"GITHUB_EVENT_PATH {path} is not JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise EventError(f"GITHUB_EVENT_PATH {path}: payload is not a JSON object")
    name = env.get("GITHUB_EVENT_NAME") or ""
    pr = payload.get("pull_request")
    if ("pull_request" in payload or name.startswith("pull_request")) and not isinstance(pr, dict):
        # checking every recipe instead would pass a pull request on unrelated files
        raise EventError(f"GITHUB_EVENT_PATH {path}: {name or 'the event'} payload's "
                         f"pull_request is {json.dumps(pr)}, not an object with base and head "
                         "commits; give --base and --head")
    if isinstance(pr, dict):
        base = _sha((pr.get("base") or {}).get("sha"), "pull_request.base.sha")
        head = _sha((pr.get("head") or {}).get("sha"), "pull_request.head.sha")
        number = pr.get("number") if isinstance(pr.get("number"), int) else None
        return EventRevisions(name or "pull_request", base, head, number)
    group = payload.get("merge_group")
    if isinstance(group, dict):
        return EventRevisions(name or "merge_group", _sha(group.get("base_sha"), "base_sha"),
                              _sha(group.get("head_sha"), "head_sha"))
    if "after" in payload:
        head = _sha(payload.get("after"), "after")
        before = payload.get("before")
        push_base = None if before in (None, _ZERO) else _sha(before, "before")
        return EventRevisions(name or "push", push_base, head)
    sha = env.get("GITHUB_SHA")
    return EventRevisions(name or "(unnamed event)", None,
                          _sha(sha, "GITHUB_SHA") if sha else "HEAD")
