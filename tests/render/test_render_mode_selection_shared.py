"""A configuration's mode selection is read only where the feature layers resolve a
modal feature's mode: a configuration whose selection names, for every feature the
rendering without a selection resolved, that same mode (or no mode, or a feature the
rendering never resolved) shares that rendering instead of rendering again; one that
selects another mode is rendered itself. Each rendering still equals the one
:func:`render` makes alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.render.tiny_tree import taxonomy_with_profiles
from validator.context import Context
from validator.load import LoadedDocument, load_yaml
from validator.render import site
from validator.render.renderer import Configuration, render, render_each, site_strategies

BASE = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640}
PROFILES = {"hx8": BASE, "hx8_nofast": {**BASE, "display_name": "no fast"}}

RECIPE = """\
meta:
  title: Modal
model:
  model_id: acme/Modal-1B
  min_vllm_version: "0.20.0"
  base_args: ["--max-model-len", "4096"]
variants:
  default:
    precision: bf16
    vram_minimum_gb: 60
compatible_strategies: [single_node_tp]
features:
  tools:
    args: ["--enable-auto-tool-choice"]
  spec:
    modes:
      fast:
        args: ["--speculative-config", '{"method":"fast"}']
        hardware:
          hx8_nofast: unsupported
      slow:
        args: ["--speculative-config", '{"method":"slow"}']
"""


@pytest.fixture()
def taxonomy(ctx: Context) -> LoadedDocument:
    return taxonomy_with_profiles(ctx, PROFILES)


def _config(hw: str, features: tuple[str, ...], mode: str | None) -> Configuration:
    return Configuration(hw, features=features,
                         feature_modes=(("spec", mode),) if mode else ())


@pytest.mark.parametrize(("hw", "features", "mode", "shared"), [
    ("hx8", ("tools", "spec"), "fast", True),  # the mode it resolves anyway
    ("hx8", ("tools", "spec"), "slow", False),
    ("hx8_nofast", ("tools", "spec"), "slow", True),
    ("hx8_nofast", ("tools", "spec"), "fast", False),  # not allowed: rendered itself
    ("hx8", ("tools",), "slow", True),  # spec is off: its mode is never read
])
def test_a_selection_of_the_resolved_mode_shares_the_rendering_without_one(
        ctx: Context, taxonomy: LoadedDocument, monkeypatch: pytest.MonkeyPatch, hw: str,
        features: tuple[str, ...], mode: str, shared: bool) -> None:
    recipe = load_yaml(RECIPE.encode(), "models/acme/Modal-1B.yaml")
    strategies = site_strategies(ctx)
    made: list[object] = []
    real = site.site_rendering_traced

    def counting(*args: Any, **kwargs: Any) -> Any:  # the real rendering, counted
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr("validator.render.site_renderings.site_rendering_traced", counting)
    without, selected = render_each(recipe, taxonomy, strategies,
                                    [_config(hw, features, None), _config(hw, features, mode)])
    assert without.ok and selected.ok
    assert (selected.processes is without.processes) == shared
    assert len(made) == (1 if shared else 2)
    for rendered in (without, selected):
        alone = render(recipe, taxonomy, strategies, rendered.config)
        assert repr(alone) == repr(rendered)  # repr: 1, 1.0 and True apart
