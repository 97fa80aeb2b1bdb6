"""Another copy of a "token accepted only from a later release than the minimum" defect the
base already has is that defect, not a new one: ``pr`` on real git repositories (our
example recipes tree in ``tmp_path``) tells it by the finding's identity and the reason
its rule gives (:func:`validator.identity.defect_of`), never by the message's wording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.findings import FLOOR, Finding, Severity
from validator.identity import defect_of
from validator.pr.baseline import compare

from .conftest import commit_all, git

CHAT = "models/example-org/Example-Chat-8B.yaml"
GUIDE_END = "    --tool-call-parser hermes\n  ```\n"
"""The end of the chat recipe's one guide command (minimum 0.12.0)."""


def pr(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", "base", "--head", "HEAD",
                 "--no-summary", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def edit(repo: Path, old: str, new: str) -> None:
    file = repo / CHAT
    body = file.read_text(encoding="utf-8")
    assert body.count(old) == 1
    file.write_text(body.replace(old, new), encoding="utf-8")


def guide_block(args: str) -> str:
    return f"\n  ```bash\n  vllm serve example-org/Example-Chat-8B {args}\n  ```\n"


def new_errors(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["rule"], f["message"].split("`")[1]) for doc in data["documents"]
            for f in doc["findings"] if f["baseline"] == "new" and f["severity"] == "error"]


@pytest.mark.parametrize(("args", "rule"), [
    ("--max-model-len auto", "GUIDE006"),  # a value accepted from 0.14.0 (a floor)
    ("--attention-backend FLASH_ATTN", "GUIDE004"),  # a flag newer than 0.12.0 (a floor)
    ("--tool-call-parser glm47", "GUIDE006"),  # a parser of 0.14.0 (a floor)
    ("--disable-log-requests", "GUIDE017"),  # rejected by 0.17.0-0.32.0 (not a floor)
])
def test_a_second_guide_command_with_a_version_defect_the_base_has_is_new(
        example_repo: Path, capsys: pytest.CaptureFixture[str], args: str, rule: str) -> None:
    """The minimum is 0.12.0. A guide block the base already has with ``args`` is the
    base's defect; a second block with the same ``args`` is another command a reader
    copies, that fails as well: new, whether the rule's reason is the minimum (a floor:
    raising it would fix both) or a release of the install range."""
    edit(example_repo, GUIDE_END, GUIDE_END + guide_block(args))
    commit_all(example_repo, "a guide block with a version defect")
    git(example_repo, "branch", "base")
    code, data = pr(example_repo, capsys)
    assert new_errors(data) == [] and code == 0
    edit(example_repo, GUIDE_END, GUIDE_END + guide_block(f"{args} --max-num-seqs 8"))
    commit_all(example_repo, "another block with the same defect")
    code, data = pr(example_repo, capsys)
    assert [r for r, _ in new_errors(data)] == [rule] and code == 1


VARIANT = """  fp8:
    precision: fp8
    vram_minimum_gb: 10
    description: "FP8 weights"
    min_vllm_version: "0.13.0"
    extra_args:
"""


def test_a_copy_in_another_list_under_another_minimum_is_the_old_defect(
        example_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The base's ``base_args`` use `--language-model-only` (vLLM 0.17.0 on) under the
    minimum 0.12.0. A new variant with its own minimum 0.13.0 uses it again: another list,
    another minimum in the message, the same defect (raise the minimum). A flag of 0.22.0
    the base does not use, in the same new list, is new."""
    edit(example_repo, '    - "32768"\n', '    - "32768"\n    - "--language-model-only"\n')
    commit_all(example_repo, "base_args with a flag of 0.17.0")
    git(example_repo, "branch", "base")
    edit(example_repo, '    description: "BF16 weights"\n',
         '    description: "BF16 weights"\n' + VARIANT + '      - "--language-model-only"\n')
    commit_all(example_repo, "a variant using the flag again")
    code, data = pr(example_repo, capsys)
    messages = [f["message"] for d in data["documents"] for f in d["findings"]
                if "--language-model-only" in f["message"] and f["pointer"].startswith(
                    "/variants/fp8")]
    assert messages and all("0.13.0" in m for m in messages)
    assert new_errors(data) == [] and code == 0
    edit(example_repo, '      - "--language-model-only"\n',
         '      - "--language-model-only"\n      - "--linear-backend"\n'
         '      - "auto"\n')
    commit_all(example_repo, "and a flag the base does not use")
    code, data = pr(example_repo, capsys)
    assert set(new_errors(data)) == {("FLAG002", "--linear-backend")} and code == 1


def finding(message: str, reason: str | None, rule: str = "FLAG002",
            path: str = CHAT) -> Finding:
    return Finding(rule, Severity.ERROR, path, "/model/base_args/2", 9, 5, message,
                   reason=reason)


def test_the_defect_of_a_floor_finding_is_rule_group_document_token_and_reason() -> None:
    low = finding("`--x`: `--x` exists only from vLLM 0.17.0, but the minimum is 0.12.0", FLOOR)
    reworded = finding("`--x` needs vLLM 0.17.0; the section states 0.13.0", FLOOR, "FLAG006")
    assert defect_of(low) == defect_of(reworded) is not None
    assert defect_of(finding("`--y`: exists only from vLLM 0.17.0, but", FLOOR)) != \
        defect_of(low)
    assert defect_of(finding(low.message, FLOOR, path="models/o/Other.yaml")) != defect_of(low)
    # the same words without the rule's reason: not a floor finding
    assert defect_of(finding(low.message, None)) is None


def at(severity: Severity, pointer: str, line: int) -> Finding:
    """A FLAG002 floor finding of ``--kv-transfer-config`` of the chat recipe."""
    return Finding("FLAG002", severity, CHAT, pointer, line, 5,
                   "`--kv-transfer-config`: exists only from vLLM 0.6.5, but the recipe's "
                   "minimum is 0.6.2", reason=FLOOR)


@pytest.mark.parametrize(("base", "head", "state"), [
    (Severity.WARNING, Severity.ERROR, "new"),
    (Severity.ERROR, Severity.ERROR, "unchanged"),
    (Severity.WARNING, Severity.WARNING, "unchanged"),
    (Severity.ERROR, Severity.WARNING, "unchanged"),
])
def test_a_floor_copy_is_the_old_defect_only_when_the_base_copy_was_as_severe(
        base: Severity, head: Severity, state: str) -> None:
    """The base reached a too-new token only in warnings (KV offload options the recipe
    never chose); the head opts into another option with it, an error: a new error,
    which blocks, not an "existing" one that no such change could ever make new."""
    old = [at(base, "/kv_offload/simple/args/0", 20)]
    marked, _ = compare(old, [*old, at(head, "/kv_offload_support/offloading_cpu", 39)])
    assert [f.baseline for f in marked] == ["unchanged", state]
