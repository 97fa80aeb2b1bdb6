"""The broken parts of a rendering's processes are found once per processes tuple: the
configurations that reuse one rendering share its processes, and each gets its problems
with its own label."""

from __future__ import annotations

from typing import Any

from validator.render.configuration import Configuration, Process, Token
from validator.render.documents import Documents
from validator.render.problems import output_problems

DOCS = Documents("models/x/Y.yaml", "taxonomy.yaml", {})


def _processes() -> tuple[Process, ...]:
    tokens = (Token("vllm", "vllm", "", ""), Token("serve", "vllm", "", ""),
              Token("unknown", "model.model_id", "/model/model_id", DOCS.recipe),
              Token("--max-model-len", "model.base_args", "/model/base_args/0", DOCS.recipe),
              Token("[object Object]", "model.base_args", "/model/base_args/1",
                    DOCS.recipe))
    env: dict[str, Any] = {"A": {"k": 1}, "B": "ok", "C": None}
    return (Process("serve", "vllm serve unknown", tuple(t.text for t in tokens), None, None,
                    env, tokens),)


def test_each_configuration_gets_the_shared_faults_under_its_own_label() -> None:
    processes = _processes()
    site = {"docker_image": "img"}
    faults: dict[int, Any] = {}
    h200, b200 = Configuration("h200"), Configuration("b200")
    shared = [output_problems(site, processes, DOCS, c, None, faults) for c in (h200, b200)]
    alone = [output_problems(site, processes, DOCS, c) for c in (h200, b200)]
    assert shared == alone
    assert list(faults) == [id(processes)]
    assert [(p.code, p.pointer) for p in shared[1]] == [
        ("no-model-id", "/model"), ("broken-value", "/model/base_args/1"),
        ("broken-value", ""), ("broken-value", "")]
    assert all(p.message.startswith(b200.label()) for p in shared[1])


def test_a_clean_rendering_makes_no_label() -> None:
    tokens = (Token("vllm", "vllm", "", ""), Token("serve", "vllm", "", ""),
              Token("org/m", "model.model_id", "/model/model_id", DOCS.recipe))
    clean = (Process("serve", "vllm serve org/m", ("vllm", "serve", "org/m"), None, None, {},
                     tokens),)
    faults: dict[int, Any] = {}
    assert output_problems({"docker_image": "img"}, clean, DOCS, Configuration("h200"), None,
                           faults) == []
    assert faults[id(clean)] == (clean, ())
