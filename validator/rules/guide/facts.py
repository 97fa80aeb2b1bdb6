"""The shared model the ``GUIDE`` rules read: the guide's commands, parsed and checked once
per document (held by the context, :func:`validator.analysis.cli_plan.per_document`).

Commands are found by :func:`validator.guide.commands.parse_guide` (fenced shell blocks,
line continuations, environment prefixes, ``docker run``, ``vllm serve``, the API server
module) and their flags are checked with the ``FLAG`` engine
(:func:`validator.analysis.flag_engine.check_tokens`) against the vLLM CLI registry of the
recipe's effective minimum version (of the variant whose ``model_id`` the command serves,
raised or bounded by what the guide section states, :mod:`validator.analysis.guide_sections`).
:data:`ISSUE_RULE` maps every issue code of the engine to its ``GUIDE`` rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from validator.analysis import arg_layers, cli_plan, flag_engine
from validator.analysis.cli_plan import per_document
from validator.analysis.flag_values import ISSUE_CODES
from validator.analysis.guide_images import (
    command_image,
    family_from_source,
    pinned_release,
    section_image,
)
from validator.analysis.guide_sections import SectionContext, section_context
from validator.analysis.install_channel import Stated, channel_plan
from validator.analysis.install_range import install_range
from validator.analysis.paired_values import pairing_issues, parsed_settings
from validator.analysis.recipe_data import get, items
from validator.analysis.shell_words import word_expansions
from validator.analysis.versions import MinVersion
from validator.findings import FLOOR, Related
from validator.guide.commands import GuideCommands, ServeCommand, parsed_guide
from validator.rules.api import Hit, Reads
from validator.vllm_cli import argv
from validator.vllm_cli.parsed_args import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

GUIDE = "/guide"

#: What the ``GUIDE`` rules that check commands read besides the recipe: the CLI
#: registries (the plans of the commands' minimums).
GUIDE_READS = frozenset({Reads.CLI_REGISTRY})

#: The ``GUIDE`` rule of every issue code a guide command can show.
ISSUE_RULE: dict[str, str] = {
    "unknown": "GUIDE003", "newer": "GUIDE004", "removed": "GUIDE005",
    "missing_value": "GUIDE006", "switch_value": "GUIDE006", "choice": "GUIDE006",
    "json": "GUIDE006", "spec_tokens": "GUIDE006", "spec_method": "GUIDE006",
    "spec_key": "GUIDE006", "dotted": "GUIDE006",
    "abbreviation": "GUIDE007", "config_key_ignored": "GUIDE015",
    "config_key_rejected": "GUIDE016", "range_rejected": "GUIDE017",
    "unreleased_only": "GUIDE018", "underscore": "GUIDE019", "value_type": "GUIDE006",
    "kv_transfer": "GUIDE006", "spec_refused": "GUIDE006",
    "refused_pair": "GUIDE006", "config_value": "GUIDE006", "kv_extra": "GUIDE006"}
#: Codes a guide command never shows: guide commands are checked without the site's
#: de-duplication (``duplicates=False``), and ``auto_tool`` and ``eplb_without_ep`` are the
#: rendered commands' (``GUIDE008`` checks auto tool choice in each guide command itself).
NOT_GUIDE_CODES = frozenset({"duplicate", "auto_tool", "eplb_without_ep"})
if set(ISSUE_RULE) | NOT_GUIDE_CODES != ISSUE_CODES:  # pragma: no cover - a programming error
    raise AssertionError(f"GUIDE rules of issue codes: "
                         f"{sorted(ISSUE_CODES ^ (set(ISSUE_RULE) | NOT_GUIDE_CODES))}")


@dataclass
class GuideAnalysis:
    """``GUIDE`` hits by rule, each at a guide line."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)

    def add(self, rule_id: str, line: int, message: str, hint: str | None = None,
            related: tuple[Related, ...] = (), reason: str | None = None) -> None:
        """Record a hit at 0-based guide line ``line`` for rule ``rule_id``."""
        self.hits.setdefault(rule_id, []).append(
            Hit(GUIDE, message, hint, block_index=line, related=related, reason=reason))




@dataclass(frozen=True)
class CheckedCommand:
    """One guide command checked against ``plan``: its parse at the plan's minimum."""

    cmd: ServeCommand
    parsed: ParsedArgs
    plan: cli_plan.VersionPlan


@dataclass
class GuideModel:
    """The commands of one guide.

    Attributes:
        ids: served model ids of the recipe -> variant key (``None``: the base model).
        checked: the commands checked against a vLLM (or plugin) CLI.
        unchecked: commands of a plugin no vendored CLI fits, parsed at the newest vLLM
            (one deployment's nodes must still agree).
        issues: the hits of the engine's issue codes (:data:`ISSUE_RULE`).
    """

    ids: dict[str, str | None] = field(default_factory=dict)
    checked: list[CheckedCommand] = field(default_factory=list)
    unchecked: list[tuple[ServeCommand, ParsedArgs]] = field(default_factory=list)
    issues: GuideAnalysis = field(default_factory=GuideAnalysis)


def guide_text(doc: LoadedDocument) -> str | None:
    """The recipe's ``guide`` (``None`` when it has none)."""
    text = get(doc.data, "guide")
    return text if isinstance(text, str) and text else None


def guide_commands(doc: LoadedDocument) -> GuideCommands | None:
    """What :func:`~validator.guide.commands.parse_guide` finds in the guide (once per
    text: :func:`~validator.guide.commands.parsed_guide`)."""
    text = guide_text(doc)
    return parsed_guide(text) if text is not None else None


def guide_model(doc: LoadedDocument, ctx: Context) -> GuideModel:
    """The :class:`GuideModel` of ``doc`` (once per document)."""
    return per_document(doc, ctx, "guide:commands", lambda: _model(doc, ctx))


def _model(doc: LoadedDocument, ctx: Context) -> GuideModel:
    out = GuideModel()
    text = guide_text(doc)
    found = guide_commands(doc)
    if text is None or found is None or not cli_plan.versions(ctx.cli):
        return out
    out.ids = model_ids(doc.data)
    top = cli_plan.newest(ctx.cli)
    for cmd in found.commands:
        family = command_family(cmd)
        # `"$@"`, `$EXTRA_ARGS`: bash replaces them by words the guide does not show
        expanded = word_expansions(cmd.args)
        variant = out.ids.get((cmd.model or "").lower())
        reach = install_range(doc, ctx, variant)
        declared = flag_engine.recipe_minimum(doc, ctx, variant)
        pulled, unreleased = reach.top, reach.unreleased
        pin = pinned_release(text, cmd)
        below = pinned_below(ctx, declared, family, pin)
        stated = pin if below is not None else command_image(ctx.cli, cmd) \
            or section_context(text, cmd.line) or section_image(doc, text, cmd.line, variant) \
            or (family_from_source(doc, text, family) if family != cli_plan.VLLM else None)
        plan = below or channel_plan(
            ctx.cli, declared, family, pulled, unreleased, () if stated is None else (Stated(
                stated.minimum, stated.top, stated.unreleased, stated.text),))
        seen = (Related(file_line(doc, stated.line), f"the section states: {stated.text}"),
                ) if stated is not None else ()
        if plan.minimum is None:
            # not checked (no fitting plugin CLI), but one deployment's nodes must agree
            if top is not None and family != cli_plan.VLLM:
                out.unchecked.append((cmd, argv.parse_args(cmd.args, top,
                                                           expansions=expanded)))
            continue
        result, issues = flag_engine.check_tokens(cmd.args, plan, duplicates=False,
                                                  expansions=expanded)
        if result is None:
            continue
        issues = [*issues, *pairing_issues(parsed_settings(result), plan)]
        out.checked.append(CheckedCommand(cmd, result, plan))
        for issue in issues:
            if issue.code == "underscore":  # no site de-duplication in a guide command
                issue = flag_engine.FlagIssue(issue.code, issue.index, issue.message.split(
                    " — ")[0], issue.hint)
            out.issues.add(ISSUE_RULE[issue.code], cmd.arg_lines[issue.index], issue.message,
                           issue.hint, seen + tuple(
                               Related(file_line(doc, cmd.arg_lines[at]), what)
                               for at, what in issue.consequences),
                           FLOOR if issue.floor else None)
    return out


def pinned_below(ctx: Context, declared: MinVersion | None, family: str,
                 stated: SectionContext | None) -> cli_plan.VersionPlan | None:
    """The plan of a vLLM command whose section pins a release below the recipe's
    minimum (``vllm==0.9.2``, ``docker run ... vllm/vllm-openai:v0.10.0``) and states no
    higher minimum: the command runs that release, so its flags are judged against it
    (``VER008`` reports the pin itself); ``None`` for any other command."""
    if (family != cli_plan.VLLM or stated is None or stated.unreleased or stated.top is None
            or not isinstance(declared, Version) or stated.top >= declared
            or (stated.minimum is not None and stated.minimum > stated.top)):
        return None
    plan = cli_plan.plan_for(ctx.cli, stated.top, family, str(stated.top), False)
    if plan.minimum is None:
        return None
    return replace(plan, floor=("the release its section pins is",
                                f" (below the recipe's min_vllm_version {declared})",
                                "the release the section pins"))


def file_line(doc: LoadedDocument, index: int) -> int:
    """The 1-based file line of 0-based guide line ``index``."""
    return doc.source_map.block_line(GUIDE, index)[0]


def model_ids(data: Any) -> dict[str, str | None]:
    """Served model ids of the recipe -> variant key (``None`` for the base model)."""
    ids: dict[str, str | None] = {}
    base = get(data, "model", "model_id")
    if isinstance(base, str):
        ids[base.lower()] = None
    for vname, variant, _ in items(get(data, "variants"), "/variants"):
        mid = get(variant, "model_id")
        if isinstance(mid, str):
            ids.setdefault(mid.lower(), vname)
    tasks = get(data, "omni", "tasks")
    for task in tasks if isinstance(tasks, list) else []:  # the schema reports other types
        mid = get(task, "model_id")
        if isinstance(mid, str):
            ids.setdefault(mid.lower(), None)
    return ids


def placeholder(model: str) -> bool:
    """Whether ``model`` is a local path or a placeholder rather than a Hub id."""
    return (model.startswith(("/", ".", "~", "$", "<", "{")) or "path/to" in model
            or "${" in model or model.isupper() or "/" not in model)


def command_family(cmd: ServeCommand) -> str:
    """Which CLI runs ``cmd``: ``"vllm-omni"`` (``--omni`` in the arguments, or a
    vLLM-Omni image), ``"vllm-ascend"`` (a vLLM-Ascend image, ``--quantization ascend``
    or ``--additional-config``) or ``"vllm"``; see :mod:`validator.vllm_cli.plugins`."""
    image = (cmd.image or "").lower()
    if "--omni" in cmd.args or "omni" in image:
        return arg_layers.OMNI
    if "ascend" in image or arg_layers.is_ascend_tokens(cmd.args):
        return arg_layers.ASCEND
    return cli_plan.VLLM


def rule_hits(rule_id: str, doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The hits of the engine's issue codes that :data:`ISSUE_RULE` maps to ``rule_id``."""
    return guide_model(doc, ctx).issues.hits.get(rule_id, [])


def continuation_issues(kind: str, doc: LoadedDocument) -> Iterator[tuple[int, str]]:
    """(guide line, text) of the continuation issues of ``kind`` in the guide."""
    found = guide_commands(doc)
    for issue in found.issues if found is not None else ():
        if issue.kind == kind:
            yield issue.line, issue.text
