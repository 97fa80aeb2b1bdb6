"""The rendered ``FLAG`` path scales with the size of a recipe's argument lists: counts of
work (comparisons, release walks), never wall time (speed belongs to the bench)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from packaging.version import Version

from tests.render.tiny_tree import TINY, write_tree
from tests.rules.flag.test_flag_rendered import rendered_findings
from tests.shared_context import shared_context
from validator.analysis import cli_plan, option_hints, rendered_commands
from validator.analysis.cli_plan import VersionPlan, plan_for
from validator.analysis.flag_values import FlagIssue
from validator.analysis.printed_args import judged_items
from validator.analysis.rendered_commands import RenderedFacts, merge
from validator.context import Settings
from validator.findings import Related
from validator.load import LoadedDocument, load_yaml
from validator.render.cache import rendered_configurations
from validator.render.configuration import Token
from validator.rules.flag.facts import ISSUE_RULE
from validator.rules.metadata import Hit
from validator.vllm_cli.data_source import CliRegistries


class CountingPointer(str):
    """A JSON Pointer that counts how often it is compared for equality."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        CountingPointer.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _pointer(i: int) -> CountingPointer:
    return CountingPointer(f"/model/base_args/{i}")


@pytest.mark.parametrize("n", [50, 2000])
def test_merge_pairs_layer_and_rendered_hits_in_linear_work(n: int) -> None:
    layer = {"FLAG001": [Hit(_pointer(i), f"`--opt-{i}` is unknown") for i in range(n)]}
    found = RenderedFacts()
    found.hits["FLAG001"] = [(Hit(_pointer(i), f"`--opt-{i}` is unknown"), [f"hw{i} · default"])
                             for i in range(n)]
    CountingPointer.comparisons = 0
    out = merge(layer, found)
    # one lookup per layer hit and one membership test per rendered hit (was n x n)
    assert CountingPointer.comparisons <= 2 * n
    assert [h.message for h in out["FLAG001"]] == [
        f"`--opt-{i}` is unknown (on hw{i} · default)" for i in range(n)]


def _recipe_with_unknown_flags(root: Path, n: int) -> str:
    extra = "".join(f'    - "--no-such-option-{i}={i}"\n' for i in range(n))
    text = TINY.replace('    - "64"\n  base_env:', '    - "64"\n' + extra + "  base_env:", 1)
    assert text != TINY
    path = "models/acme/Tiny-1B.yaml"
    (root / path).write_text(text, "utf-8")
    return path


def test_each_unknown_name_is_judged_once_over_every_configuration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "tree")
    n = 40
    path = _recipe_with_unknown_flags(root, n)
    walks: list[tuple[str, str]] = []
    real = cli_plan._first_release_with

    def counted(cli: CliRegistries, kind: str, name: str,
                family: str = cli_plan.VLLM) -> str | None:
        walks.append((kind, name))
        return real(cli, kind, name, family)

    hinted: list[str] = []
    real_hint = option_hints.nearest_hint

    def counted_hint(name: str, known: Sequence[str]) -> str | None:
        hinted.append(name)
        return real_hint(name, known)

    monkeypatch.setattr(cli_plan, "_first_release_with", counted)
    monkeypatch.setattr(option_hints, "nearest_hint", counted_hint)
    unknown = [f for f in rendered_findings(root, "FLAG001", path)
               if "--no-such-option-" in f.message]
    assert len(unknown) == n
    # every variant x hardware x strategy x feature set renders these n tokens, yet each
    # name is looked up in the vendored releases once
    asked = [name for kind, name in walks if name.startswith("--no-such-option-")]
    assert sorted(asked) == sorted(f"--no-such-option-{i}" for i in range(n))
    # and its "did you mean" is searched once (not once per configuration)
    assert sorted(h for h in hinted if h.startswith("--no-such-option-")) == sorted(asked)
    configurations = [f for f in unknown if " more)" in f.message]
    assert configurations, "the tokens reach several rendered configurations"


def test_a_process_shared_by_configurations_is_judged_and_grouped_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_tree(tmp_path / "tree")
    path = _recipe_with_unknown_flags(root, 2)
    ctx = shared_context(root, Settings(rendered=True))
    doc = load_yaml((root / path).read_bytes(), path)
    process = next(p for r in rendered_configurations(doc, ctx) if r.ok
                   for p in r.processes if p.argv[:2] == ("vllm", "serve"))
    judged: list[tuple[str, ...]] = []

    def counted_judge(args: tuple[str, ...], plan: VersionPlan) -> list[FlagIssue]:
        judged.append(args)
        return judged_items(args, plan)

    grouped: list[FlagIssue] = []
    real_consequences = rendered_commands._consequences

    def counted_consequences(doc: LoadedDocument, issue: FlagIssue,
                             tokens: Sequence[Token]) -> tuple[Related, ...]:
        grouped.append(issue)
        return real_consequences(doc, issue, tokens)

    monkeypatch.setattr("validator.analysis.rendered_commands.judged_items", counted_judge)
    monkeypatch.setattr(rendered_commands, "_consequences", counted_consequences)
    processes = rendered_commands._Processes(doc, ISSUE_RULE)
    plan = plan_for(ctx.cli, Version("0.9.0"))
    # two configurations rendering the same process object, at one plan number
    read = processes.read(process)
    assert read is not None and processes.read(process) is read
    first = processes.groups(process, read, plan, 0)
    assert processes.groups(process, read, plan, 0) == first
    assert [g[2] for g in first if "--no-such-option-" in g[2]], first
    assert len(judged) == 1
    assert len(grouped) == len(first)
