"""The version plan each rendered configuration of a recipe judges its commands with
(:mod:`validator.analysis.rendered_commands`): the recipe's install range for the
configuration's variant and strategy, narrowed by what the recipe states of the install
channel of its hardware and features (:mod:`validator.analysis.install_channel`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from validator.analysis.arg_layers import ASCEND, npu_hardware, platform_plugin
from validator.analysis.cli_plan import VLLM, VersionPlan
from validator.analysis.install_channel import (
    Stated,
    channel_plan,
    feature_statements,
    hardware_statement,
)
from validator.analysis.install_range import install_range
from validator.analysis.recipe_data import get
from validator.analysis.versions import parse_min_version

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.renderer import Rendered


class Plans:
    """The version plan of each rendered configuration of one document, computed once per
    distinct inputs (:data:`PlanInputs`: variant, strategy, family, statements), with a
    number per distinct plan key (configurations with equal numbers judge an argument
    list alike).

    The inputs are put together from parts memoised apart, each keyed by exactly what it
    reads: the variant and strategy names, the family per hardware, the hardware's image
    statement per (variant, hardware), the feature statements per (features, modes). The
    configurations of a recipe are nearly all distinct in the whole (variant, strategy,
    hardware, features, modes), but share each part."""

    def __init__(self, doc: LoadedDocument, ctx: Context) -> None:
        self.doc = doc
        self.ctx = ctx
        self.plans: dict[tuple[Any, ...], tuple[VersionPlan | None, int]] = {}
        self.numbers: dict[tuple[Any, ...], int] = {}
        self.names: dict[tuple[str, str], tuple[str | None, str | None]] = {}
        self.families: dict[str, str] = {}
        self.images: dict[tuple[str | None, str], Stated | None] = {}
        self.features: dict[tuple[Any, Any], tuple[Stated, ...]] = {}

    def of(self, rendered: Rendered) -> tuple[PlanInputs, VersionPlan | None, int]:
        """The plan inputs of ``rendered``, its plan and the plan's number."""
        where = self._inputs(rendered)
        if where not in self.plans:
            found = _plan(self.doc, self.ctx, *where)
            self.plans[where] = (found, self.numbers.setdefault(
                (found.minimum.version, found.family, found.checked, found.unreleased,
                 found.launch_day, found.floor, found.channel)
                if found is not None and found.minimum is not None else (),
                len(self.numbers)))
        plan, number = self.plans[where]
        return where, plan, number

    def _inputs(self, rendered: Rendered) -> PlanInputs:
        """The :data:`PlanInputs` of ``rendered``, from its memoised parts."""
        doc, ctx, config = self.doc, self.ctx, rendered.config
        names = self.names.get((rendered.variant, rendered.strategy))
        if names is None:
            names = self.names[rendered.variant, rendered.strategy] = _plan_names(
                doc, ctx, rendered.variant, rendered.strategy)
        variant, strategy = names
        hardware = rendered.hardware
        family = self.families.get(hardware)
        if family is None:
            family = self.families[hardware] = _family(doc, ctx, hardware)
        if (variant, hardware) not in self.images:
            self.images[variant, hardware] = hardware_statement(doc, ctx, variant, hardware)
        image = self.images[variant, hardware]
        chosen = (config.features, config.feature_modes)
        stated = self.features.get(chosen)
        if stated is None:
            stated = self.features[chosen] = feature_statements(doc, *chosen)
        return variant, strategy, family, (image, *stated) if image is not None else stated


PlanInputs = tuple[str | None, str | None, str, tuple[Stated, ...]]
"""What the plan of a rendered configuration depends on besides the document and the
context: the recipe's variant and the strategy file it names (``None``: none of them),
the CLI family its hardware is served by, and what the recipe states of its install
channel (:func:`~validator.analysis.install_channel.configuration_statements`: the image
of its hardware, the minimums its features state)."""


def _plan_names(doc: LoadedDocument, ctx: Context, variant: str,
                strategy: str) -> tuple[str | None, str | None]:
    """The recipe's variant and the strategy file a configuration names (``None``: not
    one of them)."""
    variants = get(doc.data, "variants")
    return (variant if isinstance(variants, dict) and variant in variants else None,
            strategy if ctx.strategy_document(strategy) is not None else None)


def _family(doc: LoadedDocument, ctx: Context, hardware: str) -> str:
    """The CLI family that serves ``hardware`` for this recipe."""
    return platform_plugin(doc.data) or (ASCEND if npu_hardware(ctx)(hardware) else VLLM)


def _plan(doc: LoadedDocument, ctx: Context, variant: str | None, strategy: str | None,
          family: str, stated: tuple[Stated, ...]) -> VersionPlan | None:
    reach = install_range(doc, ctx, variant, strategy)
    return channel_plan(ctx.cli, parse_min_version(reach.minimum), family, reach.top,
                        reach.unreleased, stated)
