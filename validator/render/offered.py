"""What the recipes site's page offers of a recipe: every configuration of
:func:`validator.render.renderer.render_all` once (:func:`distinct`), the reasons the page would
not offer one (:func:`offer_reasons`), the feature labels its commands are shown with, and
each rendering as JSON -- shared by ``render --all`` / ``--format json`` and the
catalogue's configuration picker (:func:`offered_renderings`), so both list the same
configurations with the same commands."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from functools import partial
from typing import Any, NamedTuple

from validator.context import Context
from validator.load import LoadedDocument
from validator.render import gates, jsval
from validator.render.docker import BASE_CUDA
from validator.render.jsval import get, truthy
from validator.render.offload import closed_reason, with_offload
from validator.render.problems import not_offered_reasons, selection_problems
from validator.render.renderer import (
    Configuration,
    Process,
    Rendered,
    Token,
    document_data,
    render,
    render_all,
    shared_memo,
    site_strategies,
)


class Offered(NamedTuple):
    """One configuration the site's page offers: its rendering and feature labels."""

    rendered: Rendered
    feature_labels: list[str]


def offered_renderings(doc: LoadedDocument, ctx: Context) -> list[Offered]:
    """Every configuration the page offers of the loaded recipe ``doc`` that renders
    (what ``render --all`` prints), in ``render_all``'s order."""
    strategies = site_strategies(ctx)
    batch = every_offered(doc, ctx.taxonomy, strategies)
    inputs = Inputs(doc.data, document_data(ctx.taxonomy),
                    {k: document_data(v) for k, v in strategies.items()}, {})
    return [Offered(r, feature_labels(inputs, r.config)) for r in batch
            if r.ok and not offer_reasons(inputs, r)]


def every_offered(doc: LoadedDocument, taxonomy: LoadedDocument | None,
                  strategies: Mapping[str, LoadedDocument],
                  cuda: str = BASE_CUDA) -> list[Rendered]:
    """Every configuration of ``render_all`` once (:func:`distinct`), each followed by
    its KV-offload configurations (:func:`validator.render.offload.with_offload`), the
    NVIDIA images of CUDA build ``cuda``."""
    tax = document_data(taxonomy)
    batch = distinct(render_all(doc, taxonomy, strategies, cuda=cuda), doc.data, tax)
    strat = {k: document_data(v) for k, v in strategies.items()}
    with shared_memo(cuda) as memo:
        return with_offload(batch, doc.data, tax, strat,
                            lambda c: render(doc, taxonomy, strategies, c, memo=memo))


def distinct(batch: list[Rendered], recipe: Any, taxonomy: Any) -> list[Rendered]:
    """``batch`` with each configuration once: a ``--mode`` pick that is the mode the site
    applies anyway (the variant's ``default_modes``, the feature's ``default_mode``, the
    first allowed) selects the same page state as no pick, so that rendering is dropped
    when the one without the pick is in the batch (the site's page offers it once)."""
    out: list[Rendered] = []
    seen: set[Configuration] = set()
    for r in batch:
        key = replace(r.config, feature_modes=tuple(
            (name, mode) for name, mode in r.config.feature_modes
            if mode != _default_mode(recipe, taxonomy, r.config, name)))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _default_mode(recipe: Any, taxonomy: Any, c: Configuration, name: str) -> str | None:
    """The mode of feature ``name`` the site applies to ``c`` when none is picked."""
    try:
        mode = gates.resolve_mode_key(
            get(get(recipe, "features"), name), name, get(get(recipe, "variants"), c.variant),
            c.variant, get(get(taxonomy, "hardware_profiles"), c.hardware), c.hardware, None)
    except jsval.JsTypeError:
        return None
    return mode if isinstance(mode, str) else None


class Inputs(NamedTuple):
    """The data a rendering was made from: recipe, taxonomy, strategies by site name."""

    recipe: Any
    taxonomy: Any
    strategies: dict[str, Any]
    memo: dict[Any, Any]


def offer_reasons(inputs: Inputs, r: Rendered) -> list[str]:
    """Why the site's page would not offer this configuration (empty: it does), a mode
    it does not offer on this variant and hardware included."""
    modes = selection_problems(inputs.recipe, inputs.taxonomy,
                               replace(r.config, omni_task=None), r.recipe_path)
    closed = closed_reason(inputs.recipe, inputs.taxonomy, inputs.strategies, r.config)
    return not_offered_reasons(inputs.recipe, inputs.taxonomy, inputs.strategies, r.config,
                               r.compatible_hardware, r.problems,
                               inputs.memo) + [p.message for p in modes] + (
        [closed] if closed else [])


def feature_labels(inputs: Inputs, c: Configuration) -> list[str]:
    """Each enabled feature as the command renders it: a modal feature with the mode the
    site applies here, a feature the site leaves out of this command marked so."""
    features = get(inputs.recipe, "features")
    variant = get(get(inputs.recipe, "variants"), c.variant)
    profile = get(get(inputs.taxonomy, "hardware_profiles"), c.hardware)
    modes = dict(c.feature_modes)
    kv_composing = c.kv_offload is not None and get(get(inputs.strategies, c.kv_offload),
                                                    "deploy_type") == "kv_store_lb" and \
        get(get(inputs.strategies, c.strategy), "deploy_type") != "pd_cluster"
    out = []
    for name in c.features:
        feature = get(features, name)
        label = name
        try:
            if not gates.is_feature_allowed_for_strategy(feature, c.strategy):
                label += f" (left out: not for {c.strategy})"
            elif kv_composing and truthy(get(get(feature, "companion"), "command")):
                label += f" (left out: its companion does not run under {c.kv_offload})"
            elif jsval.is_object(get(feature, "modes")):
                mode = gates.resolve_mode_key(feature, name, variant, c.variant, profile,
                                              c.hardware, modes.get(name))
                label += f" (mode {mode})" if mode else " (left out: no mode offered here)"
        except jsval.JsTypeError:
            pass
        out.append(label)
    return out


def renderings_text(documents: list[Any]) -> str:
    """What ``render --format json`` prints: the renderings' JSON documents
    (:func:`rendering_json`) as one list, indented by two."""
    return json.dumps(documents, indent=2) + "\n"


def rendering_json(r: Rendered, reasons: list[str],
                   shared: Callable[[object, Callable[[], Any]], Any] | None = None) -> Any:
    """One rendering as ``render --format json`` prints it (``reasons``: why the site
    would not offer it; empty when it does). ``shared(part, make)``, when given, stands
    for the JSON of each process and token (what ``make()`` gives): the catalogue's table
    (:class:`validator.evidence.site.config_json.Shared`) walks a process or token that
    the renderings of several configurations share once."""
    def part(owner: Process | Token, make: Callable[[], Any]) -> Any:
        return make() if shared is None else shared(owner, lambda: jsval.to_json_value(make()))

    def token(t: Token) -> Any:
        return part(t, t._asdict)

    def process(p: Process) -> dict[str, Any]:
        return {"role": p.role, "command": p.command, "argv": list(p.argv),
                "docker_command": p.docker_command, "docker_argv": list(p.docker_argv or ()),
                "env": dict(p.env), "tokens": [token(t) for t in p.tokens]}

    return jsval.to_json_value({
        "recipe": r.recipe_path, "ok": r.ok, "config": r.config.as_json(),
        "offered": not reasons, "reasons": reasons,
        "hardware": r.hardware, "variant": r.variant, "strategy": r.strategy,
        "node_count": r.node_count, "deploy_type": r.deploy_type, "env": dict(r.env),
        "docker_image": r.docker_image, "command": r.command, "argv": list(r.argv),
        "docker_command": r.docker_command, "docker_argv": list(r.docker_argv),
        "install": r.install, "compatible_hardware": list(r.compatible_hardware),
        "default_hardware": r.default_hardware,
        "processes": [part(p, partial(process, p)) for p in r.processes],
        "env_sources": {k: token(t) for k, t in r.env_sources.items()},
        "site": r.site,
        "problems": [asdict(p) for p in r.problems],
    })
