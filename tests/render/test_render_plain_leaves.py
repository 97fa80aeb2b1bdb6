""":func:`validator.render.synthesis.plain` (a traced result with plain values: the
site's JSON of every rendering) calls itself for containers and numbers only, never for
the strings that are most of a rendering's values."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from validator.render import synthesis
from validator.render.args import Arg
from validator.render.synthesis import ENV_SOURCES, plain


def test_plain_takes_each_string_as_it_is_without_a_call() -> None:
    arg = Arg("--tp", "model.base_args", "models/a/B.yaml", "/model/base_args/0")
    traced = {"env": {"A": "1", "B": "2"}, "argv": [arg, "8"], "nodes": 1, "id": "x",
              ENV_SOURCES: {"A": arg}}
    calls = 0

    def counting(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call" and frame.f_code is synthesis.plain.__code__:
            calls += 1

    sys.setprofile(counting)
    try:
        out = plain(traced)
    finally:
        sys.setprofile(None)
    assert out == {"env": {"A": "1", "B": "2"}, "argv": ["--tp", "8"], "nodes": 1, "id": "x"}
    assert calls == 4  # the result, its env, its argv and the number
