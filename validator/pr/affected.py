"""Which recipes a change of the context files reaches through their rendered commands.

A recipe does not name everything its commands are built from: the site renders it on
every hardware profile its picker shows, with every kv-store deployment on NVIDIA and AMD
nodes, and offers the taxonomy's KV offload options unless the recipe opts out. So a
change of ``taxonomy.yaml``, a strategy or a kv-store file is followed to the recipes
whose rendering reads the changed entry (:func:`rendering_reach`, from the renderer's own
gates), at the merge base and at the head: an entry a recipe stops or starts reading
changes its commands as well. An entry whose change touches only what the site shows
beside the commands (``display_name``, ``description`` ...) reaches none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.context import Context, build_context
from validator.render import gates, jsval, offload_gates
from validator.render.configuration import document_data
from validator.render.omni import is_omni
from validator.render.renderer import site_strategies
from validator.source.tree import RecipeTree, SourceError
from validator.source.verify import VerificationError

DISPLAY_FIELDS = frozenset({"display_name", "description", "label", "order", "docs_url",
                            "tooltip", "orientation", "sub_row_label"})
"""Top-level fields of a hardware profile, strategy, kv-store deployment or KV offload
option that the site shows but never renders into a command."""

KV_BRANDS = ("NVIDIA", "AMD")


@dataclass
class Reach:
    """What the rendered commands of one recipe read of the context, by entry kind as
    :class:`~validator.pr.entry_changes.EntryChange` names them (``"hardware profile"``,
    ``"strategy"``, ``"KV store"``, ``"KV offload option"``) -> ids."""

    names: dict[str, set[str]] = field(default_factory=dict)

    def add(self, kind: str, ids: Iterable[Any]) -> None:
        self.names.setdefault(kind, set()).update(jsval.js_str(i) for i in ids
                                                  if isinstance(i, str))

    def reads(self, kind: str, name: str) -> bool:
        return name in self.names.get(kind, ())


@dataclass(frozen=True)
class SiteInputs:
    """The context data the renderer reads at one revision (``None``: not loadable)."""

    taxonomy: Any
    strategies: Mapping[str, Any]


def site_inputs(tree: RecipeTree) -> SiteInputs | None:
    """The taxonomy and the strategies (kv-store deployments included, keyed by ``name``
    as the site keys them) of ``tree``; ``None`` when a context file cannot be read."""
    try:
        ctx: Context = build_context(tree)
    except (SourceError, VerificationError, FileNotFoundError):
        return None
    return SiteInputs(document_data(ctx.taxonomy),
                      {k: document_data(v) for k, v in site_strategies(ctx).items()})


def rendering_reach(recipe: Any, site: SiteInputs) -> Reach:
    """The entries of ``site`` the rendered commands of ``recipe`` read: the hardware of
    every variant's picker (and its landing hardware), the strategies it lists or falls
    back to, the kv-store deployments offered on its NVIDIA/AMD scalable hardware, the
    KV offload options it does not opt out of.

    Raises:
        jsval.JsTypeError, TypeError, ValueError ...: data the site's code throws on (the
            caller then counts every entry as read).
    """
    out = Reach()
    profiles = jsval.or_(jsval.get(site.taxonomy, "hardware_profiles"), {})
    hardware: list[str] = []
    for key in jsval.keys(jsval.or_(jsval.get(recipe, "variants"), {})):
        variant = jsval.get(jsval.get(recipe, "variants"), key)
        hardware += [gates.pick_default_hardware(profiles, variant, recipe),
                     *gates.picker_hardware(profiles, variant, recipe)]
    out.add("hardware profile", hardware)
    if is_omni(recipe):
        return out
    listed = gates.effective_compatible_strategies(recipe)
    listed = listed if isinstance(listed, list) else []
    out.add("strategy", [*listed, jsval.get(recipe, "default_strategy"),
                         *jsval.keys(jsval.or_(jsval.get(recipe, "strategy_overrides"), {})),
                         *([] if listed else ["single_node_tp"])])
    kv_nodes = [h for h in hardware if gates.is_hardware_scalable(jsval.get(profiles, h))
                and gates.is_kv_store_brand_supported(jsval.get(profiles, h))]
    kv_support = jsval.get(recipe, "kv_cache_strategy_hardware")
    kv_stores = [s for s, spec in site.strategies.items()
                 if jsval.get(spec, "deploy_type") == "kv_store_lb" and any(
                     jsval.get(jsval.get(kv_support, s), h) != "unsupported" for h in kv_nodes)]
    out.add("KV store", kv_stores)
    out.add("strategy", kv_stores)  # before kv_store/, the deployments were strategy files
    options = jsval.or_(jsval.get(site.taxonomy, "kv_offload"), {})
    out.add("KV offload option", [k for k in jsval.keys(options) if offload_gates.
                                  kv_offload_supported_for_recipe(jsval.get(options, k), k,
                                                                  recipe)])
    return out


def reaches(recipe: Any, sites: Sequence[SiteInputs | None]) -> list[Reach] | None:
    """:func:`rendering_reach` of ``recipe`` at each revision; ``None`` when a revision's
    context is not loadable or the site's code throws on the data: then every changed
    entry counts as read (a change is never passed by for want of knowing)."""
    out = []
    for site in sites:
        if site is None:
            return None
        try:
            out.append(rendering_reach(recipe, site))
        except (jsval.JsTypeError, TypeError, ValueError, AttributeError, KeyError,
                IndexError, OverflowError, RecursionError):
            return None
    return out


def renders_with(kind: str, name: str, change: str, fields: Sequence[str],
                 found: list[Reach] | None) -> bool:
    """Whether an entry change (see :class:`~validator.pr.entry_changes.EntryChange`) reaches
    a recipe whose reaches at the base and the head are ``found``."""
    if change == "changed" and fields and set(fields) <= DISPLAY_FIELDS:
        return False
    return found is None or any(r.reads(kind, name) for r in found)
