"""The rendered default configuration of a recipe per hardware profile of the site's
picker, for records (issue #12 item 5).

For each profile the picker shows for some variant (``restricted`` ones only where
``meta.hardware`` declares them), :meth:`validator.render.renderer.Configuration.defaults`
picks what the site's builder lands on for that hardware -- the variant (promoted when the
default one cannot run there), the recommended strategy and node count, the default
features -- and :func:`validator.render.renderer.render` renders it. Only the context of the
document's own commit is used; without it there is nothing to render.
"""

from __future__ import annotations

from typing import Any

from validator.context import Context
from validator.evidence.model import RenderedDefault, RenderedProcess
from validator.load import LoadedDocument
from validator.render import gates, jsval
from validator.render.renderer import Configuration, Rendered, render, site_strategies


def _text(value: Any) -> str | None:
    return None if value is None else jsval.js_str(value)


def _env(env: Any) -> dict[str, str]:
    return {str(k): jsval.js_str(v) for k, v in dict(env or {}).items()}


def picker_union(doc: LoadedDocument, taxonomy: LoadedDocument) -> list[str]:
    """Profiles the picker shows for at least one variant, in taxonomy order."""
    profiles = jsval.or_(jsval.get(taxonomy.data, "hardware_profiles"), {})
    shown: set[str] = set()
    for variant in dict(jsval.or_(jsval.get(doc.data, "variants"), {})).values():
        shown.update(gates.picker_hardware_if_shown(profiles, variant, doc.data) or ())
    return [hw for hw in jsval.keys(profiles) if hw in shown]


def _entry(r: Rendered, site_default: bool) -> RenderedDefault:
    count = jsval.to_json_value(r.node_count)
    return RenderedDefault(
        hardware=r.hardware, site_default=site_default, variant=r.variant,
        strategy=r.strategy, features=list(r.config.features),
        node_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        deploy_type=r.deploy_type, docker_image=_text(r.docker_image), command=r.command,
        docker_command=r.docker_command, env=_env(r.env),
        processes=[RenderedProcess(role=p.role, command=p.command or "",  # (made: texts on)
                                   docker_command=p.docker_command, env=_env(p.env))
                   for p in r.processes],
        problems=[f"{p.severity}: {p.message}" for p in r.problems])


def rendered_defaults(doc: LoadedDocument, ctx: Context) -> list[RenderedDefault] | None:
    """The default configuration per picker hardware, the page's landing one first
    marked ``site_default``; ``None`` without a loaded taxonomy of the same revision."""
    taxonomy = ctx.taxonomy
    if taxonomy is None or not taxonomy.ok or not doc.ok:
        return None
    strategies = site_strategies(ctx)
    if not strategies:
        return None
    landing = Configuration.defaults(doc, taxonomy, strategies).hardware
    out = []
    for hw in picker_union(doc, taxonomy):
        config = Configuration.defaults(doc, taxonomy, strategies, hardware=hw)
        out.append(_entry(render(doc, taxonomy, strategies, config), hw == landing))
    return out
