"""The FLAG engine judges each option token once per plan, whichever list it is in: the
issues of a list judged after others that share its tokens (at other places) equal those
of the list judged alone on a fresh data source, at the same indexes."""

from __future__ import annotations

from packaging.version import Version

from validator.analysis.cli_plan import plan_for
from validator.analysis.flag_engine import check_tokens
from validator.vllm_cli.data_source import CliRegistries

LISTS = (
    ["--max-model-len", "abc", "--kv-cache-dtype", "fp9"],
    ["--enforce-eager", "--kv-cache-dtype", "fp9", "--max-model-len", "abc"],
    ["--max-model-len=abc", "--kv-cache-dtype=fp9", "--enforce-eager"],
    ["--tensor-parallel-size", "2", "--max-model-len", "abc", "--kv-cache-dtype", "fp9"],
    ["--tensor-parallel-size", "4", "--max-model-len", "abc", "--kv-cache-dtype", "fp9"],
)


def _issues(tokens: list[str], cli: CliRegistries) -> list[tuple[str, int, str]]:
    plan = plan_for(cli, Version("0.9.0"))
    return [(i.code, i.index, i.message) for i in check_tokens(tokens, plan)[1]]


def test_shared_token_verdicts_land_at_each_lists_own_indexes() -> None:
    shared = CliRegistries()
    together = [_issues(tokens, shared) for tokens in LISTS]
    alone = [_issues(tokens, CliRegistries()) for tokens in LISTS]
    assert together == alone
    assert {(code, index) for code, index, _ in together[1]} >= {("choice", 2), ("value_type", 4)}
    assert {(code, index) for code, index, _ in together[2]} >= {("choice", 1), ("value_type", 0)}
