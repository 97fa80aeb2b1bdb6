"""``FLAG016``: the ``VLLM_*`` variables a recipe's commands export, against the
``vllm/envs.py`` of the vLLM that runs each command.

A variable is judged where each configuration exporting it runs
(:class:`~validator.analysis.rendered_commands.EnvExporters`): at the recipe's install
range for the configurations without an install channel of their own, at the plan of the
channel (the image the recipe gives their hardware, a feature's stated minimum) for the
others. The finding names the configurations its verdict holds for; a variable that
only channels no vendored release describes export, and no release reads, is the
``FLAG024`` info naming the image. The environment of a strategy and of a KV offload
option is judged once per recipe that selects it, reported on the recipe line that
selects it (with the other file's line as the related location).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis.arg_layers import (
    ASCEND,
    ascend_variants,
    env_maps,
    npu_hardware,
    platform_plugin,
)
from validator.analysis.cli_plan import VLLM, VersionPlan, first_version, per_document
from validator.analysis.env_verdicts import env_issue, env_unverifiable
from validator.analysis.install_channel import channel_plan, layer_statements
from validator.analysis.install_range import install_range
from validator.analysis.recipe_data import as_dict, as_list, get
from validator.analysis.rendered_commands import RenderedFacts, affected, env_exporters
from validator.analysis.versions import parse_min_version
from validator.findings import MAX_FINDINGS_PER_RULE, Related, Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, context_plan, gate, rendered_facts
from validator.rules.flag.offload_options import option_env_hits
from validator.rules.ref.context_values import ENV_MAPS
from validator.sourcemap import join_pointer, split_pointer

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

Judged = list[tuple[VersionPlan, list[str]]]
"""Each plan a variable is judged in, with the configurations it judges it for (none
named: the map's own plan, for a variable no rendered configuration exports)."""


@rule("FLAG016", Severity.WARNING, "VLLM_* environment variable not read",
      reads=FLAG_READS)
def env_var_not_read(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``VLLM_*`` variable in ``base_env``, ``extra_env`` or a strategy ``env`` is not read
    by the recipe's minimum vLLM (it is newer, older, or unknown), or is no longer read by
    the newest release. Names come from ``vllm/envs.py`` of each release.

    Failing::

        model:
          base_env: {VLLM_NOT_A_REAL_VARIABLE: "1"}

    Passing::

        model:
          base_env: {VLLM_LOGGING_LEVEL: "INFO"}

    Each configuration exporting a variable is judged where it runs: a configuration in
    an install channel of its own (the image the recipe gives its hardware:
    :mod:`validator.analysis.install_channel`) in that channel, as its arguments are, the
    others at the recipe's install range; the finding names the configurations it holds
    for. Where the channel is a build no vendored release describes (a launch, nightly,
    community or dev image), a name no release reads is the ``FLAG024`` info naming the
    image.

    How to fix: drop the variable, or use the name the release reads."""
    return env_hits(doc, ctx)["FLAG016"]


def env_hits(doc: LoadedDocument, ctx: Context) -> dict[str, list[Hit]]:
    """The ``FLAG016`` hits of the recipe's environment maps and the strategies it
    selects, and the ``FLAG024`` infos of its variables that only channels no vendored
    release describes set (once per document). The hits of the recipe's own maps name
    the rendered configurations they hold for already."""
    def compute() -> dict[str, list[Hit]]:
        out: dict[str, list[Hit]] = {"FLAG016": [], "FLAG024": []}
        if not gate(doc, ctx).stop:
            is_npu = npu_hardware(ctx)
            _env_vars(doc, ctx, ascend_variants(doc.data, is_npu), is_npu, out)
        return out

    return per_document(doc, ctx, "flag:env", compute)


def _env_vars(doc: LoadedDocument, ctx: Context, ascend: set[str],
              is_npu: Callable[[str], bool], out: dict[str, list[Hit]]) -> None:
    data = doc.data
    served_by = platform_plugin(data)
    found = rendered_facts(doc, ctx)
    for pointer, label, variant, hardware in env_maps(data):
        npu = is_npu(hardware) if hardware else variant in ascend
        family = served_by or (ASCEND if npu else VLLM)
        own = _map_plan(doc, ctx, pointer, variant, hardware, family)
        for name in as_dict(get(data, *split_pointer(pointer))):
            if len(out["FLAG016"]) > MAX_FINDINGS_PER_RULE:
                return  # the checker shows no more; the rest are not looked up
            if not isinstance(name, str):
                continue
            at = join_pointer(pointer, name)
            for rule_id, message, hint, _ in _verdicts(
                    name, _judged_in(found, doc.path, at, own)):
                out[rule_id].append(Hit(at, f"{label}: {message}", hint, on_key=True))
    _strategy_env_vars(doc, ctx, served_by, found, out)
    out["FLAG016"] += option_env_hits(doc, ctx, served_by or VLLM)


def _map_plan(doc: LoadedDocument, ctx: Context, pointer: str, variant: str | None,
              hardware: str | None, family: str) -> VersionPlan:
    """The plan an environment map is judged with on its own: the install channel of the
    hardware it is for (:func:`~validator.analysis.install_channel.layer_statements`: the
    image the recipe gives it), as its argument list is, else the recipe's install range."""
    reach = install_range(doc, ctx, variant, family=family)
    stated = layer_statements(doc, ctx, pointer, variant, hardware) if hardware else ()
    if not stated:
        return reach.plan
    return channel_plan(ctx.cli, parse_min_version(reach.minimum), family, reach.top,
                        reach.unreleased, stated)


def _judged_in(found: RenderedFacts | None, document: str, at: str,
               own: VersionPlan) -> Judged:
    """Where the variable at ``at`` of ``document`` (the recipe, or a strategy file it
    renders with) is judged: for each rendered configuration exporting it, its own plan
    (the recipe's install range for its variant and strategy, or the plan of its install
    channel), grouped by plan; ``own`` (the plan of the map on its own) when no rendered
    configuration exports it, or only ones whose plans nothing checks."""
    exporters = env_exporters(found, document, at) if found is not None else None
    if exporters is None:
        return [(own, [])]
    groups: dict[int, tuple[VersionPlan, list[str]]] = {}  # plans are memoised: by identity
    for configuration, plan in (*exporters.in_range, *exporters.in_channels):
        groups.setdefault(id(plan), (plan, []))[1].append(configuration)
    return list(groups.values()) or [(own, exporters.unchecked)]


def _verdicts(name: str, judged: Judged) -> Iterator[tuple[str, str, str | None, VersionPlan]]:
    """(rule id, message, hint, plan) of the verdicts on variable ``name`` where it is
    ``judged``: ``FLAG016`` where a plan does not read it, and the ``FLAG024`` info where a
    channel no vendored release describes may read it, each once (the first such verdict
    of each rule), the message naming the configurations whose plans give it."""
    rest = judged
    for rule_id, verdict_of in (("FLAG016", env_issue), ("FLAG024", env_unverifiable)):
        verdicts = [(verdict_of(name, plan), plan, configurations)
                    for plan, configurations in rest]
        first = next(((why, plan) for why, plan, _ in verdicts if why is not None), None)
        if first is None:
            continue
        named = [c for why, _, configurations in verdicts if why == first[0]
                 for c in configurations]
        where = f" ({affected(named)})" if named else ""
        yield rule_id, f"{first[0][0]}{where}", first[0][1], first[1]
        rest = [(plan, configurations) for why, plan, configurations in verdicts
                if why is None]


def _strategy_env_vars(doc: LoadedDocument, ctx: Context, served_by: str | None,
                       found: RenderedFacts | None, out: dict[str, list[Hit]]) -> None:
    """The verdicts on the ``VLLM_*`` variables of each compatible strategy's environment
    (``strategies/<name>.yaml``), judged where each configuration of the recipe exporting
    it runs, as the recipe's own variables are, and reported on the recipe line that
    selects the strategy with the strategy file's line. What the strategy file shows
    judged on its own (:func:`~validator.rules.flag.context_files.context_arg_hits`) is
    that file's finding; the recipe keeps a variable its range is too old for."""
    for i, name in enumerate(as_list(get(doc.data, "compatible_strategies"))):
        sdoc = ctx.strategy_document(name) if isinstance(name, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        own = install_range(doc, ctx, None, name, served_by or VLLM).plan
        on_its_own = context_plan(ctx.cli, sdoc)
        for sptr in ENV_MAPS["strategy"]:
            for var in as_dict(get(sdoc.data, *split_pointer(sptr))):
                if not isinstance(var, str):
                    continue
                at = join_pointer(sptr, var)
                line = sdoc.source_map.key_position(at)[0]
                for rule_id, message, hint, plan in _verdicts(
                        var, _judged_in(found, sdoc.path, at, own)):
                    if env_issue(var, on_its_own) is not None \
                            and not _newer_than_minimum(var, plan):
                        continue  # the strategy file's own finding
                    out[rule_id].append(Hit(
                        f"/compatible_strategies/{i}",
                        f"{sdoc.path} {sptr[1:].replace('/', '.')}: {message}", hint,
                        related=(Related(line, var, sdoc.path),)))


def _newer_than_minimum(name: str, plan: VersionPlan) -> bool:
    """Whether ``VLLM_*`` variable ``name`` is read only from a release newer than the
    minimum of ``plan``: what a recipe's own range adds to a variable another file sets
    (that file, judged at its own minimum, may well read it)."""
    reg = plan.minimum
    if reg is None or not reg.env_vars or reg.reads_env(name):
        return False
    first = first_version(plan.cli, "env", name, plan.family)
    return first is not None and Version(first) > Version(reg.version)


@fixer("FLAG016", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_variable(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
