"""A modal feature's first allowed mode is a decision of the hardware (its profile and
id), not a use of the id itself: a rendering that picked a mode is reused for another
hardware profile where the same mode is picked, and never where the mode gate (by id or
by generation) picks another one. Each rendering still equals the one :func:`render`
makes alone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.render.tiny_tree import taxonomy_with_profiles
from validator.context import Context
from validator.load import LoadedDocument, load_yaml
from validator.render import gates
from validator.render.hardware_reads import HardwareReads
from validator.render.renderer import Configuration, Rendered, render, site_strategies

BASE = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640}
PROFILES = {
    "hx8": BASE,
    "hx8_twin": {**BASE, "display_name": "twin"},  # the same but for its id
    "hx8_nofast": {**BASE, "display_name": "no fast"},  # the same, but the gate names it
    "hx8_blackwell": {**BASE, "generation": "blackwell"},  # the gate names its generation
}

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
compatible_strategies: [single_node_tp, multi_node_tp]
features:
  spec:
    modes:
      fast:
        args: ["--speculative-config", '{"method":"fast"}']
        hardware:
          hx8_nofast: unsupported
          blackwell: unsupported
      slow:
        args: ["--speculative-config", '{"method":"slow"}']
"""


@pytest.fixture()
def taxonomy(ctx: Context) -> LoadedDocument:
    return taxonomy_with_profiles(ctx, PROFILES)


def _recipe() -> LoadedDocument:
    return load_yaml(RECIPE.encode(), "models/acme/Modal-1B.yaml")


def _configs(hardware: tuple[str, ...], strategy: str) -> list[Configuration]:
    return [Configuration(hw, "default", strategy, ("spec",)) for hw in hardware]


def _render_in_order(ctx: Context, taxonomy: LoadedDocument,
                     configs: list[Configuration]) -> list[Rendered]:
    """``configs`` rendered one after the other through one memo (as render_all does)."""
    memo: dict[Any, Any] = {}
    doc, strategies = _recipe(), site_strategies(ctx)
    return [render(doc, taxonomy, strategies, c, memo=memo) for c in configs]


def _alone(ctx: Context, taxonomy: LoadedDocument, config: Configuration) -> Rendered:
    return render(_recipe(), taxonomy, site_strategies(ctx), config)


def _shared(a: Rendered, b: Rendered) -> bool:
    """Whether ``b`` is ``a``'s rendering reused (a rendering made anew builds its own
    argv objects)."""
    return bool(a.processes) and all(
        p.argv is q.argv for p, q in zip(a.processes, b.processes, strict=True))


@pytest.mark.parametrize("strategy", ["single_node_tp", "multi_node_tp"])
def test_hardware_that_picks_the_same_mode_shares_one_rendering(
        ctx: Context, taxonomy: LoadedDocument, strategy: str) -> None:
    first, twin = _render_in_order(ctx, taxonomy, _configs(("hx8", "hx8_twin"), strategy))
    assert first.ok and twin.ok
    assert '{"method":"fast"}' in first.argv
    assert _shared(first, twin)
    for rendered in (first, twin):
        # repr: 1, 1.0 and True compare equal but render differently
        assert repr(rendered) == repr(_alone(ctx, taxonomy, rendered.config))


@pytest.mark.parametrize("other", ["hx8_nofast", "hx8_blackwell"])
@pytest.mark.parametrize("strategy", ["single_node_tp", "multi_node_tp"])
def test_a_rendering_is_not_reused_where_the_mode_gate_picks_another_mode(
        ctx: Context, taxonomy: LoadedDocument, other: str, strategy: str) -> None:
    for order in (("hx8", "hx8_twin", other), (other, "hx8", "hx8_twin")):
        batch = _render_in_order(ctx, taxonomy, _configs(order, strategy))
        by_hw = {r.config.hardware: r for r in batch}
        assert _shared(by_hw["hx8"], by_hw["hx8_twin"]) or order[0] == other
        assert not _shared(by_hw["hx8"], by_hw[other])
        assert '{"method":"slow"}' in by_hw[other].argv
        assert '{"method":"fast"}' in by_hw["hx8"].argv
        for rendered in batch:
            assert repr(rendered) == repr(_alone(ctx, taxonomy, rendered.config))


def test_a_mode_decided_in_an_earlier_rendering_still_counts_as_read(
        ctx: Context, taxonomy: LoadedDocument) -> None:
    """The first allowed mode is remembered across renderings of one recipe object: a
    later rendering that finds it remembered has read it all the same."""
    doc, strategies = _recipe(), site_strategies(ctx)
    render(doc, taxonomy, strategies, _configs(("hx8",), "single_node_tp")[0])
    memo: dict[Any, Any] = {}
    first, other = (render(doc, taxonomy, strategies, c, memo=memo)
                    for c in _configs(("hx8", "hx8_nofast"), "single_node_tp"))
    assert not _shared(first, other)
    assert '{"method":"slow"}' in other.argv
    assert repr(other) == repr(_alone(ctx, taxonomy, other.config))


def _first_mode(profile: Any, hw_id: str | None, modes: Any) -> Any:
    return next((k for k in modes if gates.is_mode_supported(modes[k], profile, hw_id)), None)


def test_a_decision_of_the_hardware_holds_where_it_decides_the_same() -> None:
    from validator.render.hardware_reads import decided_by_hardware  # new with this test

    modes = {"fast": {"hardware": {"h3": "unsupported", "blackwell": "unsupported"}},
             "slow": {}}
    profiles = {"h1": {"generation": "hopper"}, "h2": {"generation": "hopper", "x": 1},
                "h3": {"generation": "hopper"}, "h4": {"generation": "blackwell"}}
    reads = {hw: HardwareReads(hw, profiles) for hw in profiles}
    mine = reads["h1"]
    assert decided_by_hardware(mine.profile, mine.id, _first_mode, modes) == "fast"
    # the id was read only through the decision: neither hashed nor compared
    assert [e[0] for e in mine.log] == ["profile-kind", "derived-id"]
    assert mine.holds_for(reads["h2"], len(mine.log))
    assert not mine.holds_for(reads["h3"], len(mine.log))  # the gate names the id
    assert not mine.holds_for(reads["h4"], len(mine.log))  # ... or the generation
    # an untraced call decides on what it is given
    assert decided_by_hardware(profiles["h3"], "h3", _first_mode, modes) == "slow"
