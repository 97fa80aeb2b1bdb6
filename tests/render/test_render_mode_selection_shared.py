"""A configuration's mode selection is read only where the feature layers resolve a
modal feature's mode: a configuration whose selection resolves, for every feature the
rendering without a selection resolved, to that same mode (it names that mode, or no
mode, or a mode the variant or hardware does not allow, or a feature the rendering never
resolved) shares that rendering instead of rendering again; one that resolves to another
mode is rendered itself. Each rendering still equals the one :func:`render` makes
alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.render.tiny_tree import taxonomy_with_profiles
from validator.context import Context
from validator.load import LoadedDocument, load_yaml
from validator.render import jsval, selection_reads, site
from validator.render.renderer import Configuration, render, render_each, site_strategies
from validator.render.selection_reads import TracedSelection

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
    ("hx8_nofast", ("tools", "spec"), "fast", True),  # not allowed there: resolves to slow
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


def _made_and_mismatched(ctx: Context, taxonomy: LoadedDocument,
                         monkeypatch: pytest.MonkeyPatch, configs: list[Configuration],
                         ) -> tuple[int, list[Configuration]]:
    """How many site renderings :func:`render_each` of ``configs`` made, and the
    configurations whose rendering differs from the one :func:`render` makes alone."""
    recipe = load_yaml(RECIPE.encode(), "models/acme/Modal-1B.yaml")
    strategies = site_strategies(ctx)
    made: list[object] = []
    real = site.site_rendering_traced

    def counting(*args: Any, **kwargs: Any) -> Any:  # the real rendering, counted
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr("validator.render.site_renderings.site_rendering_traced", counting)
    shared = render_each(recipe, taxonomy, strategies, configs)
    count = len(made)
    monkeypatch.undo()
    return count, [r.config for r in shared if repr(r) != repr(
        render(recipe, taxonomy, strategies, r.config))]  # repr: 1, 1.0 and True apart


@pytest.mark.parametrize(("hw", "first", "second", "renderings"), [
    ("hx8_nofast", "fast", "slow", 1),  # fast is not allowed there: both resolve to slow
    ("hx8_nofast", "slow", "fast", 1),
    ("hx8", "fast", "slow", 2),  # both allowed: each its own mode
])
def test_a_selection_that_resolves_as_another_selection_shares_its_rendering(
        ctx: Context, taxonomy: LoadedDocument, monkeypatch: pytest.MonkeyPatch, hw: str,
        first: str, second: str, renderings: int) -> None:
    configs = [_config(hw, ("tools", "spec"), first), _config(hw, ("tools", "spec"), second)]
    made, mismatched = _made_and_mismatched(ctx, taxonomy, monkeypatch, configs)
    assert made == renderings
    assert mismatched == []


def test_a_mode_decision_left_out_of_the_trace_makes_a_wrong_rendering(
        ctx: Context, taxonomy: LoadedDocument, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle of the tests above has teeth: a renderer that resolves the mode without
    logging the decision (the trace without that read) reuses the rendering of one mode
    for the other, and the rendering then differs from the one made alone."""
    def unlogged(selection: Any, key: Any, decide: Any, profile: Any, hw_id: Any) -> Any:
        plain = selection.plain if isinstance(selection, TracedSelection) else selection
        return decide(jsval.get(plain, key), profile, hw_id)  # the read, not logged

    monkeypatch.setattr(selection_reads, "decided", unlogged)
    configs = [_config("hx8", ("tools", "spec"), "fast"),
               _config("hx8", ("tools", "spec"), "slow")]
    made, mismatched = _made_and_mismatched(ctx, taxonomy, monkeypatch, configs)
    assert made == 1
    assert mismatched == [configs[1]]


def test_an_entry_read_holds_where_it_is_equal_and_a_whole_read_only_for_equal_selections(
        ) -> None:
    entry = TracedSelection([("spec", "fast"), ("other", "a")])
    assert entry.get("spec") == "fast"
    assert selection_reads.holds(entry.reads, {"spec": "fast", "other": "b"}, {}, "h")
    assert not selection_reads.holds(entry.reads, {"spec": "slow"}, {}, "h")
    assert not selection_reads.holds(entry.reads, {}, {}, "h")
    whole = TracedSelection([("spec", "fast")])
    assert list(whole) == ["spec"]
    assert selection_reads.holds(whole.reads, {"spec": "fast"}, {}, "h")
    assert not selection_reads.holds(whole.reads, {"spec": "fast", "other": "a"}, {}, "h")
    logged = len(whole.reads)
    assert selection_reads.selection_key(whole) == repr({"spec": "fast"})
    assert len(whole.reads) == logged  # the memo key is not a read
