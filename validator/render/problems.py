"""Where the site cannot render a configuration, or renders something broken.

The renderer never "fixes" a rendering: it renders what the site renders and describes
what is wrong as :class:`RenderProblem` values, each naming the document and JSON Pointer
of the YAML node to blame, for rules to turn into findings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from validator.render import jsval
from validator.render.jsval import get, or_
from validator.render.layers import Documents, ptr

if TYPE_CHECKING:
    from validator.render.model import Configuration, Process, Token

_BROKEN_TEXT = frozenset({"NaN", "undefined", "null", "Infinity", "-Infinity"})


@dataclass(frozen=True)
class RenderProblem:
    """Something the site cannot render, or renders broken, for one configuration.

    Attributes:
        code: ``unknown-hardware``, ``unknown-variant``, ``unknown-strategy``,
            ``unknown-kv-offload``, ``unknown-feature``, ``internal-error`` (a gap in this port),
            ``not-offered`` (a strategy the
            site does not offer on that hardware), ``synthesis-error`` (the site's
            renderer throws: its build skips the configuration), ``no-model-id``
            (``vllm serve unknown``), ``broken-value`` (a token or env value such as
            ``NaN``, ``undefined``, ``[object Object]``), ``no-docker-image``,
            ``unloadable``.
        severity: ``error`` (the user gets no or a broken command) or ``warning``.
        message: what is wrong and what the site does about it.
        document: path of the document to blame.
        pointer: JSON Pointer of the node to blame inside ``document`` ("" = the root).
    """

    code: str
    severity: str
    message: str
    document: str
    pointer: str


def _find_in_list(data: Any, key: str, value: str) -> str:
    items = get(data, key)
    if isinstance(items, list):
        for index, item in enumerate(items):
            if item == value:
                return ptr(key, index)
    return ""


def configuration_problems(data: Any, tax: Any, strategies: Any, config: Configuration,
                           docs: Documents, memo: dict[Any, Any] | None = None,
                           ) -> Iterator[RenderProblem]:
    """Problems of the configuration itself (names the site does not know)."""
    recipe = docs.recipe
    profiles = or_(get(tax, "hardware_profiles"), {})
    if not isinstance(get(profiles, config.hardware), dict):
        where = "/meta/default_hardware" if get(get(data, "meta"), "default_hardware") == \
            config.hardware else ""
        yield RenderProblem(
            "unknown-hardware", "error",
            f"hardware {config.hardware!r} is not a profile of {docs.taxonomy}; the site "
            "renders it as a profile with no brand, generation or GPU count (1 GPU); "
            f"known: {_names(profiles)}", recipe, where)
    variants = or_(get(data, "variants"), {})
    if not isinstance(get(variants, config.variant), dict):
        fallback = "variant 'default'" if isinstance(get(variants, "default"), dict) else \
            "no variant at all"
        yield RenderProblem(
            "unknown-variant", "error",
            f"variant {config.variant!r} is not declared under variants; the site renders "
            f"{fallback} instead; declared: {_names(variants)}", recipe, "/variants")
    for name in (config.strategy,):
        if not isinstance(get(strategies, name), dict):
            where = _find_in_list(data, "compatible_strategies", name)
            if not where and get(data, "default_strategy") == name:
                where = "/default_strategy"
            yield RenderProblem(
                "unknown-strategy", "error",
                f"strategy {name!r} has no file under strategies/ (by its name field); the "
                "site renders it as a single-node strategy with no arguments; known: "
                f"{_names(strategies)}", recipe, where)
    yield from _not_offered(data, profiles, strategies, config, recipe,
                            {} if memo is None else memo)
    kv = config.kv_offload
    if kv is not None and get(get(strategies, kv), "deploy_type") != "kv_store_lb" and \
            not isinstance(get(get(tax, "kv_offload"), kv), dict):
        yield RenderProblem(
            "unknown-kv-offload", "warning",
            f"KV offload {kv!r} is neither a kv_store deployment nor a taxonomy kv_offload "
            "option; the site ignores it", recipe, "")
    features = or_(get(data, "features"), {})
    for name in config.features:
        if not isinstance(get(features, name), dict):
            yield RenderProblem(
                "unknown-feature", "warning",
                f"feature {name!r} is not declared under features; the site skips it",
                recipe, "/features")


def _names(mapping: Any) -> str:
    return ", ".join(jsval.keys(mapping)) or "none"


def _not_offered(data: Any, profiles: Any, strategies: Any, config: Configuration,
                 recipe: str, memo: dict[Any, Any]) -> Iterator[RenderProblem]:
    from validator.render.site import compatible_strategies

    profile = get(profiles, config.hardware)
    if not isinstance(profile, dict) or not isinstance(get(strategies, config.strategy), dict):
        return
    if ("offered", config.hardware) not in memo:
        try:
            memo["offered", config.hardware] = compatible_strategies(
                data, profile, config.hardware, strategies)
        except jsval.JsTypeError:
            memo["offered", config.hardware] = None
    offered = memo["offered", config.hardware]
    if offered is None:
        return
    if not jsval.in_list(offered, config.key):
        yield RenderProblem(
            "not-offered", "warning",
            f"the site does not offer {config.key!r} on {config.hardware} for this recipe "
            f"(offered: {', '.join(map(jsval.js_str, offered)) or 'none'}); rendered anyway",
            recipe, "/compatible_strategies")


def output_problems(site: dict[str, Any], processes: Sequence[Process], docs: Documents,
                    config: Configuration, env_sources: Mapping[str, Token] | None = None,
                    ) -> list[RenderProblem]:
    """Problems visible in what the site renders (broken commands); ``env_sources`` (env key
    -> origin) places env problems on their YAML line."""
    env_sources = env_sources or {}
    out: list[RenderProblem] = []
    label = config.label()
    for proc in processes:
        if len(proc.argv) > 2 and proc.argv[2] == "unknown":
            out.append(RenderProblem(
                "no-model-id", "error",
                f"{label}: neither the variant nor model.model_id gives a model id; the site "
                "renders `vllm serve unknown`", docs.recipe, "/model"))
        for token in proc.tokens[3:]:
            # a YAML string that reads "null" is the author's; a number the renderer
            # computed (NaN, Infinity) or an object it stringified is broken
            written = token.pointer.rsplit("/", 1)[-1].isdigit()
            if "[object Object]" in token.text or (token.text in _BROKEN_TEXT
                                                    and not written):
                out.append(RenderProblem(
                    "broken-value", "error",
                    f"{label}: the {proc.role} command contains {token.text!r} (from "
                    f"{token.layer}): the value there cannot be rendered", token.document,
                    token.pointer))
        for key, value in proc.env.items():
            if isinstance(value, dict | list) or value is None:
                text = jsval.js_str(value)
                origin = env_sources.get(key)
                out.append(RenderProblem(
                    "broken-value", "error",
                    f"{label}: env {key} holds {_kind(value)}, which the site renders as "
                    f"`-e {key}={text}`", origin.document if origin else docs.recipe,
                    origin.pointer if origin else ""))
    if site.get("deploy_type") == "kv_store_lb" and site.get("vllm_command") is None:
        out.append(RenderProblem(
            "broken-value", "error",
            f"{label}: {config.strategy!r} is a kv-store deployment, not a serving strategy; "
            "the site renders no vLLM command for it (name it as the KV offload instead)",
            docs.recipe, ""))
    if site.get("docker_image") is None:
        out.append(RenderProblem(
            "no-docker-image", "warning",
            f"{label}: the site has no Docker image for this hardware (it renders "
            "`undefined`); set model.docker_image", docs.recipe, "/model/docker_image"))
    return _unique(out)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return "a mapping" if isinstance(value, dict) else "a list"


def _unique(problems: list[RenderProblem]) -> list[RenderProblem]:
    seen: set[RenderProblem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
