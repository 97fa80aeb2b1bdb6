"""The wordings of a vLLM version that count as a lower bound (what a guide section's
commands need, what ``VER008`` compares with the minimum), and the ones that do not."""

from __future__ import annotations

import pytest

from validator.analysis.version_prose import names_a_scope, statement_scope, version_statements

#: (line, the minimum it states or None). Lower bounds in the usual English wordings.
LOWER_BOUNDS = [
    ("- vLLM >= 0.25.0", "0.25.0"),
    ("vLLM ≥ 0.25.0 required", "0.25.0"),
    ("Use vLLM => 0.25.0.", "0.25.0"),
    ("- **vLLM version:** 0.25.0", "0.25.0"),
    ("- **vLLM version:** >= 0.25.0 (latest stable recommended)", "0.25.0"),
    ("vLLM: 0.25.0", "0.25.0"),
    ("vLLM 0.25.0+", "0.25.0"),
    ("Requires vLLM 0.25.0+.", "0.25.0"),
    ("vLLM 0.25.0 or later", "0.25.0"),
    ("vLLM 0.25.0 or newer", "0.25.0"),
    ("vLLM 0.25.0 or above", "0.25.0"),
    ("vLLM 0.25.0 or higher", "0.25.0"),
    ("vLLM 0.25.0 or greater", "0.25.0"),
    ("vLLM 0.25.0 or any later release", "0.25.0"),
    ("- **vLLM 0.25.0** or newer.", "0.25.0"),
    ("vLLM (0.25.0 or later)", "0.25.0"),
    ("vLLM 0.25.0 and later", "0.25.0"),
    ("vLLM 0.25.0 and newer", "0.25.0"),
    ("## Per-request metrics (vLLM 0.25.0 and newer)", "0.25.0"),
    ("vLLM 0.25.0 and up", "0.25.0"),
    ("vLLM 0.25.0 and above", "0.25.0"),
    ("vLLM 0.25.0 onwards", "0.25.0"),
    ("from vLLM 0.25.0 onward", "0.25.0"),
    ("vLLM 0.25.0 is required", "0.25.0"),
    ("vLLM 0.25.0 required", "0.25.0"),
    ("This path requires vLLM 0.25.0: the backend landed there.", "0.25.0"),
    ("requires vLLM v0.25.0 or later.", "0.25.0"),
    ("Both require **vLLM 0.25.0**, above the baseline", "0.25.0"),
    ("**Requires:** vLLM 0.25.0", "0.25.0"),
    ("This needs vLLM 0.25.0.", "0.25.0"),
    ("needs at least vLLM v0.25", "0.25"),
    ("at least vLLM 0.25.0", "0.25.0"),
    ("minimum vLLM version is 0.25.0", "0.25.0"),
    ("Minimum vLLM version: 0.25.0", "0.25.0"),
    ("Starting with vLLM 0.25.0, the flag is on by default", "0.25.0"),
    ("Starting with vLLM 0.25.0 and later, MI355X nodes can use MoRI:", "0.25.0"),
    ("Starting from vLLM 0.25.0 the flag is on by default", "0.25.0"),
    ("Since vLLM 0.25.0, the flag is on by default", "0.25.0"),
    ("(available since vLLM 0.25.0)", "0.25.0"),
    ("As of vLLM 0.25.0 the model is built in", "0.25.0"),
    ("Supported from vLLM 0.25.0.", "0.25.0"),
    ("- `vllm>=0.25.0`", "0.25.0"),
    # not lower bounds
    ("vLLM 0.25.0 has a regression with this model", None),
    ("Known bug in vLLM 0.12.0 affecting the model", None),
    ("Fixed in vLLM 0.25.0.", None),  # a fact of one release, not what the section needs
    ("The backend was added in vLLM 0.25.0.", None),
    ("Tested on vLLM 0.25.0 nightly builds", None),
    ("up to vLLM 0.20", None),
    ("up to vLLM version: 0.20", None),
    ("before vLLM 0.20", None),
    ("prior to vLLM 0.20.0, pass --foo", None),
    ("until vLLM 0.20 the flag was required", None),
    ("vLLM 0.20 or earlier", None),
    ("vLLM 0.20 and older", None),
    ("vLLM version: 0.20 and older", None),
    ("requires vLLM 0.20.0 or earlier", None),
    ("vLLM <= 0.20", None),
    ("vLLM < 0.20", None),
    ("does not require vLLM 0.25.0", None),
    ("no longer needs vLLM >= 0.25", None),
    ("doesn't require vLLM 0.25.0+", None),
    ("- vLLM: 0.11.0 does NOT include this model", None),
    ("vLLM 0.25.0 or later does not support it", None),
    ("Since vLLM 0.10 changed the default, pass --foo", None),  # a cause, not a bound
    ("Migrating from vLLM 0.20 to 0.25", None),
    ("uv pip install vllm-omni==0.12.0", None),
    ("vllm_ascend >= 0.12.0", None),
]


@pytest.mark.parametrize(("line", "minimum"), LOWER_BOUNDS)
def test_lower_bound_wordings(line: str, minimum: str | None) -> None:
    found = [str(s.version) for s in version_statements(line) if s.kind == "minimum"]
    assert found == ([minimum] if minimum else []), line


@pytest.mark.parametrize(("line", "requirement", "leading"), [
    ("Requires vLLM 0.25.0", True, True),
    ("- vLLM >= 0.25.0", True, True),
    ("1. **Requires:** vLLM 0.25.0", True, True),
    ("- EAGLE3 requires vLLM >= 0.25.0", True, False),
    ("The model requires vLLM 0.25.0 or later", True, False),
    ("Starting with vLLM 0.25.0 and later, use it", True, True),
    # from when on something holds: a section's bound, not a statement of a requirement
    ("Since vLLM 0.25.0, the flag is on by default", False, True),
    ("Starting with vLLM 0.25.0, the flag is on by default", False, True),
    ("The model is built in as of vLLM 0.25.0", False, False),
])
def test_requirement_and_leading(line: str, requirement: bool, leading: bool) -> None:
    (st,) = version_statements(line)
    assert (st.requirement, st.leading) == (requirement, leading)


def test_pins_and_install_specifiers() -> None:
    assert [(str(s.version), s.kind, s.prose) for s in version_statements(
        "uv pip install vllm==0.20.0+rocm721 'vllm>=0.21.0'")] == [
        ("0.20.0", "pin", False), ("0.21.0", "minimum", False)]
    (st,) = version_statements("EAGLE3 requires vLLM >= 0.9.0")  # no install: prose
    assert st.prose and st.text == "requires vLLM >= 0.9.0"


@pytest.mark.parametrize(("line", "scope"), [
    ("- EAGLE3 requires vLLM >= 0.9.0", "EAGLE3"),
    ("- vLLM 0.12.0 or later: the ROCm AITER MoE kernels are used automatically", "ROCm"),
    ("- vLLM 0.12.0 or later (for FP8)", "FP8"),
    ("- Requires vLLM >= 0.12.0 for MTP", "MTP"),
    ("- On MI300X, requires vLLM 0.12.0+", "MI300X"),
    ("- Tool calling needs vLLM 0.12.0 or newer", "Tool calling"),
    ("- Requires vLLM >= 0.12.0", None),
    ("- **vLLM version:** >= 0.15.0 (latest stable recommended)", None),
    # an aside stating its own version is another statement's scope
    ("- **vLLM version:** >= 0.15.0 (speculative decoding requires >= 0.18.0)", None),
    # another sentence is another statement's
    ("Requires vLLM 0.15.0 or later. The FP8 checkpoint is smaller.", None),
])
def test_statement_scope(line: str, scope: str | None) -> None:
    st = version_statements(line)[0]
    assert statement_scope(line, st) == scope


def test_scope_words_are_whole_words() -> None:
    assert names_a_scope("## Llama-3.2-Vision-Instruct") is None  # a model name, not "vision"
    assert names_a_scope("## AMD MI355X") == "AMD"
    assert names_a_scope("## Serving") is None
