"""The rendered ``FLAG`` facts read a processes tuple the renderer shares between
configurations once per plan number
(:meth:`validator.analysis.rendered_commands._Processes.of_all`): the memo must keep the
plans apart, and must not read a tuple twice at one plan."""

from __future__ import annotations

from typing import Any

import pytest

from validator.analysis import rendered_commands
from validator.analysis.flag_values import FlagIssue
from validator.load import load_yaml
from validator.render.configuration import Process, Token
from validator.rules.flag.facts import ISSUE_RULE

PATH = "models/acme/Tiny-1B.yaml"


def _process(*args: str) -> Process:
    words = ("vllm", "serve", "acme/Tiny-1B", *args)
    tokens = tuple(Token(w, "model.base_args", f"/model/base_args/{i}", PATH)
                   for i, w in enumerate(words))
    return Process("serve", " ".join(words), words, None, None, {}, tokens)


def test_one_processes_tuple_is_judged_apart_at_each_plan_number(
        monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[tuple[tuple[str, ...], Any]] = []

    def judged_items(args: tuple[str, ...], plan: Any) -> list[FlagIssue]:
        judged.append((args, plan))
        return [FlagIssue("unknown", 0, f"`{args[0]}` is unknown at {plan}")] if plan else []

    monkeypatch.setattr(rendered_commands, "judged_items", judged_items)
    doc = load_yaml(b"model:\n  base_args: []\n", PATH)
    processes = rendered_commands._Processes(doc, ISSUE_RULE)
    shared = (_process("--foo"), _process("--bar"))
    # plan number 0 finds nothing, number 1 finds both flags unknown
    assert processes.of_all(shared, "", 0)[1] == ()  # type: ignore[arg-type]
    mine, groups = processes.of_all(shared, "plan-1", 1)  # type: ignore[arg-type]
    assert [g[1:3] for g in groups] == [
        ("/model/base_args/3", "`--foo` is unknown at plan-1"),
        ("/model/base_args/3", "`--bar` is unknown at plan-1")]
    assert mine == {"/model/base_args/3"}
    assert processes.of_all(shared, "plan-1", 1)[1] == groups  # type: ignore[arg-type]
    assert len(judged) == 4  # each list once per number, the tuple read once per number
