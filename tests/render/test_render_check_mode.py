"""The renderings the rules share (:func:`validator.render.cache.rendered_configurations`)
are made without the ``docker run`` forms, which no rule reads: each equals the full
rendering ``render --all`` makes but for its docker commands and argvs, which are
``None``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context
from validator.load import load_yaml
from validator.render.cache import rendered_configurations
from validator.render.renderer import Rendered, render_all, site_strategies

RECIPES = ("models/acme/Tiny-1B.yaml", "models/acme/Broken-1B.yaml")


def _is_docker_form(key: str) -> bool:
    return "docker_command" in key or "docker_argv" in key


def _without_docker(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_docker(v) for k, v in value.items() if not _is_docker_form(k)}
    return value


def _rest(r: Rendered) -> str:
    """``repr`` of ``r`` without its docker forms (``repr``: 1, 1.0 and True differ)."""
    return repr(replace(r, docker_command=None, docker_argv=(), site=_without_docker(r.site),
                        processes=tuple(replace(p, docker_command=None, docker_argv=None)
                                        for p in r.processes)))


def _docker_forms(r: Rendered) -> list[Any]:
    found = [r.docker_command, *r.docker_argv]
    found += [form for p in r.processes for form in (p.docker_command, p.docker_argv)]
    found += [v for k, v in (r.site or {}).items() if _is_docker_form(k)]
    for role in ("prefill", "decode"):
        part = (r.site or {}).get(role)
        if isinstance(part, dict):
            found += [v for k, v in part.items() if _is_docker_form(k)]
    # a list of forms (one per worker) counts by its items
    return [f for form in found for f in (form if isinstance(form, list) else [form]) if f]


@pytest.mark.parametrize("path", RECIPES)
def test_check_renderings_are_the_full_ones_without_docker_forms(
        tree: Path, ctx: Context, path: str) -> None:
    doc = load_yaml((tree / path).read_bytes(), path)
    full = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    lean = rendered_configurations(doc, ctx)
    assert len(lean) == len(full) >= 10
    if path.endswith("Tiny-1B.yaml"):  # the full renderings have them
        assert any(_docker_forms(r) for r in full)
    for made, whole in zip(lean, full, strict=True):
        assert _docker_forms(made) == [], made.config
        assert _rest(made) == _rest(whole), made.config
