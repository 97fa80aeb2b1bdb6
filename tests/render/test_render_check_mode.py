"""The renderings the rules share (:func:`validator.render.cache.rendered_configurations`)
are made without the ``docker run`` forms and the ``vllm serve`` command texts, which no
rule reads: each equals the full rendering ``render --all`` makes but for its docker
commands and argvs and its command texts, which are ``None``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context, local_context
from validator.load import load_yaml
from validator.render.cache import rendered_configurations
from validator.render.renderer import Rendered, render_all, site_strategies

RECIPES = ("models/acme/Tiny-1B.yaml", "models/acme/Broken-1B.yaml")
TEXTS = ("command", "head_command", "worker_command", "worker_commands", "vllm_command",
         "vllm_worker_command", "vllm_worker_commands")
"""The keys of a rendering's site JSON holding ``vllm serve`` command texts (a PD role's
``command`` too)."""


def _is_docker_form(key: str) -> bool:
    return "docker_command" in key or "docker_argv" in key


def _without_docker(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_docker(v) for k, v in value.items() if not _is_docker_form(k)}
    return value


def _without_texts(site: Any) -> Any:
    if not isinstance(site, dict):
        return site
    out = {k: None if k in TEXTS else v for k, v in site.items()}
    for role in ("prefill", "decode"):
        part = out.get(role)
        if isinstance(part, dict):
            out[role] = {**part, "command": None}
    return out


def _texts(r: Rendered) -> list[Any]:
    """The command texts ``r`` holds (``None`` where it holds none)."""
    site = r.site or {}
    found = [r.command, *(p.command for p in r.processes)]
    found += [site.get(k) for k in TEXTS]
    found += [site[role].get("command") for role in ("prefill", "decode")
              if isinstance(site.get(role), dict)]
    return [t for text in found for t in (text if isinstance(text, list) else [text]) if t]


def _rest(r: Rendered) -> str:
    """``repr`` of ``r`` without its docker forms and command texts (``repr``: 1, 1.0 and
    True differ)."""
    return repr(replace(r, docker_command=None, docker_argv=(), command=None,
                        site=_without_texts(_without_docker(r.site)),
                        processes=tuple(replace(p, docker_command=None, docker_argv=None,
                                                command=None) for p in r.processes)))


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
def test_check_renderings_are_the_full_ones_without_docker_forms_and_texts(
        tree: Path, ctx: Context, path: str) -> None:
    doc = load_yaml((tree / path).read_bytes(), path)
    full = render_all(doc, ctx.taxonomy, site_strategies(ctx))
    lean = rendered_configurations(doc, ctx)
    assert len(lean) == len(full) >= 10
    if path.endswith("Tiny-1B.yaml"):  # the full renderings have them
        assert any(_docker_forms(r) for r in full)
        assert all(_texts(r) for r in full if r.ok)
    for made, whole in zip(lean, full, strict=True):
        assert _docker_forms(made) == [], made.config
        assert _texts(made) == [], made.config
        assert _rest(made) == _rest(whole), made.config


CLAIMING = """\
name: single_node_tp
deploy_type: kv_store_lb
vllm:
  vllm_args: ["--kv-transfer-config", '{"kv_connector":"StoreConnector"}']
"""
"""A kv-store deployment claiming the name of a serving strategy."""


def test_a_kv_store_as_the_strategy_is_reported_without_command_texts(
        tree: Path, tmp_path: Path) -> None:
    """A rendering of a kv-store deployment as the serving strategy has no vLLM command:
    the renderings without texts (whose commands are all ``None``) report it as the full
    ones do, no more often."""
    import shutil

    root = tmp_path / "recipes"
    shutil.copytree(tree, root)
    (root / "kv_store" / "claims_tp.yaml").write_text(CLAIMING, "utf-8")
    claimed = local_context(root)
    path = RECIPES[0]
    doc = load_yaml((root / path).read_bytes(), path)
    full = render_all(doc, claimed.taxonomy, site_strategies(claimed))
    lean = rendered_configurations(doc, claimed)

    def claims(renderings: list[Rendered]) -> list[str]:
        return [p.message for r in renderings for p in r.problems
                if "is a kv-store deployment, not a serving strategy" in p.message]

    assert claims(full)
    assert claims(lean) == claims(full)
