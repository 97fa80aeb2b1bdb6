"""A rendering made for one hardware profile is reused for another exactly when every
value it read of its hardware (the profile's keys, the id's lookups in the recipe, the
decisions taken on the profile) is the same there: each rendering still equals the one a
fresh :func:`render` makes alone, and a rendering that read a value is not reused where
that value differs (a key too coarse fails these tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.render.tiny_tree import taxonomy_with_profiles
from validator.context import Context
from validator.load import LoadedDocument, load_yaml
from validator.render import jsval
from validator.render.hardware_reads import HardwareReads
from validator.render.renderer import Configuration, Rendered, render, site_strategies

BASE = {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640}
PROFILES = {
    "hx8": BASE,
    # the same but for what the renderings below never read, or read to the same end:
    # the default variant (60 GB) fits one GPU of either (80 or 141 GB)
    "hx8_twin": {**BASE, "vram_gb": 1128, "display_name": "twin"},
    # one value each that the renderings read, and that changes them
    "hx8_four": {**BASE, "gpu_count": 4},
    "hx8_small": {**BASE, "vram_gb": 320},  # 40 GB a GPU: the default variant needs all 8
    "hx8_blackwell": {**BASE, "generation": "blackwell"},  # the recipe's blackwell overrides
    "hx8_amd": {**BASE, "brand": "AMD", "generation": "amd"},
    "bx8": {**BASE, "generation": "blackwell"},  # the fp8 variant's exact-id override
    "bx8_twin": {**BASE, "generation": "blackwell"},  # the same but for that override
    "hx8_one": {**BASE, "gpu_count": 1},  # one GPU: below the pinned variant's TP 2
}


@pytest.fixture()
def taxonomy(ctx: Context) -> LoadedDocument:
    return taxonomy_with_profiles(ctx, PROFILES)


def _recipe(tree: Path) -> LoadedDocument:
    path = "models/acme/Tiny-1B.yaml"
    return load_yaml((tree / path).read_bytes(), path)


def _render_in_order(tree: Path, ctx: Context, taxonomy: LoadedDocument,
                     configs: list[Configuration]) -> list[Rendered]:
    """``configs`` rendered one after the other through one memo (as render_all does)."""
    memo: dict[Any, Any] = {}
    doc, strategies = _recipe(tree), site_strategies(ctx)
    return [render(doc, taxonomy, strategies, c, memo=memo) for c in configs]


def _fresh(tree: Path, ctx: Context, taxonomy: LoadedDocument,
           config: Configuration) -> Rendered:
    return render(_recipe(tree), taxonomy, site_strategies(ctx), config)


def _shared(a: Rendered, b: Rendered) -> bool:
    """Whether ``b`` is ``a``'s rendering reused (its processes' argv are the same
    objects: a rendering made anew builds its own)."""
    return bool(a.processes) and all(
        p.argv is q.argv for p, q in zip(a.processes, b.processes, strict=True))


@pytest.mark.parametrize("variant,strategy", [
    ("default", "single_node_tp"),  # TP 1 from the variant's size
    ("default", "single_node_dep"),  # a size from the profile's GPU count: its pointer
    ("default", "multi_node_tp"),
    ("fp8", "single_node_tp"),
])
def test_hardware_that_reads_the_same_shares_one_rendering(
        tree: Path, ctx: Context, taxonomy: LoadedDocument, variant: str,
        strategy: str) -> None:
    configs = [Configuration(hw, variant, strategy) for hw in ("hx8", "hx8_twin")]
    first, second = _render_in_order(tree, ctx, taxonomy, configs)
    assert first.ok and second.ok
    assert _shared(first, second)
    for rendered in (first, second):
        # repr: 1, 1.0 and True compare equal but render differently
        assert repr(rendered) == repr(_fresh(tree, ctx, taxonomy, rendered.config))
    assert second.site is not None and second.site["hardware"] == "hx8_twin"


@pytest.mark.parametrize("other,variant,strategy,differs", [
    ("hx8_four", "default", "single_node_dep", "--data-parallel-size"),
    ("hx8_small", "default", "single_node_tp", "--tensor-parallel-size"),
    ("hx8_blackwell", "default", "single_node_tp", "--async-scheduling"),
    ("hx8_amd", "default", "single_node_tp", None),  # the docker image and its flags
    ("bx8", "fp8", "single_node_tp", "--kv-cache-dtype"),
])
def test_a_rendering_is_not_reused_where_a_value_it_read_differs(
        tree: Path, ctx: Context, taxonomy: LoadedDocument, other: str, variant: str,
        strategy: str, differs: str | None) -> None:
    configs = [Configuration("hx8", variant, strategy), Configuration("hx8_twin", variant,
                                                                        strategy),
               Configuration(other, variant, strategy)]
    first, twin, second = _render_in_order(tree, ctx, taxonomy, configs)
    assert _shared(first, twin)  # the pair above shares: what differs here is the value
    assert not _shared(first, second) and not _shared(twin, second)
    assert repr(second) == repr(_fresh(tree, ctx, taxonomy, second.config))
    assert repr(first.site) != repr({**(second.site or {}), "hardware": "hx8"})
    if differs is not None:
        assert (differs in first.argv) != (differs in second.argv) or \
            first.argv != second.argv


def test_a_reused_rendering_points_at_its_own_profile(
        tree: Path, ctx: Context, taxonomy: LoadedDocument) -> None:
    configs = [Configuration(hw, "default", "single_node_dep") for hw in ("hx8", "hx8_twin")]
    first, second = _render_in_order(tree, ctx, taxonomy, configs)
    assert _shared(first, second)
    pointers = {t.pointer for t in second.tokens if t.layer == "taxonomy:hardware_profiles"}
    assert pointers == {"/hardware_profiles/hx8_twin/gpu_count"}


def test_a_profile_string_reads_as_itself_and_only_its_uses_count() -> None:
    reads = HardwareReads("h1", {"h1": {"generation": "hopper", "gpu_count": 8}})
    same_gen = HardwareReads("h2", {"h2": {"generation": "hopper", "gpu_count": 4}})
    other_gen = HardwareReads("h3", {"h3": {"generation": "blackwell", "gpu_count": 8}})
    gen = reads.profile.get("generation")
    # in a list the renderer built, as a key, in a comparison: what the plain string gives
    assert jsval.in_list(["x", gen], "hopper") and jsval.in_list(["x"], gen) is False
    assert jsval.get({"hopper": 1}, gen) == 1 and gen == "hopper"
    assert reads.holds_for(same_gen, len(reads.log))
    assert not reads.holds_for(other_gen, len(reads.log))
    assert reads.profile.get("gpu_count") == 8  # a number is read as its value
    assert not reads.holds_for(same_gen, len(reads.log))


def test_a_rendering_is_reused_where_its_own_reads_hold_whatever_others_read(
        tree: Path, ctx: Context, taxonomy: LoadedDocument) -> None:
    """The trace of a rendering is what it read (itself, or through the layers it
    reused), not every read an earlier rendering of its hardware made: the TP rendering on
    hx8 reads whether the variant fits one GPU, the DEP one does not, so the DEP one is
    reused on hx8_small, where the answer differs."""
    configs = [Configuration("hx8", "default", "single_node_tp"),
               Configuration("hx8", "default", "single_node_dep"),
               Configuration("hx8_small", "default", "single_node_dep"),
               Configuration("hx8_small", "default", "single_node_tp")]
    tp, dep, small_dep, small_tp = _render_in_order(tree, ctx, taxonomy, configs)
    assert _shared(dep, small_dep)
    assert not _shared(tp, small_tp)
    for rendered in (tp, dep, small_dep, small_tp):
        assert repr(rendered) == repr(_fresh(tree, ctx, taxonomy, rendered.config))


@pytest.mark.parametrize("first,other,variant,strategy", [
    ("hx8", "hx8_four", "default", "single_node_dep"),
    ("hx8", "hx8_blackwell", "default", "single_node_dep"),
    ("hx8", "hx8_four", "default", "multi_node_tp"),
    ("bx8", "bx8_twin", "fp8", "single_node_tp"),  # the id, read for the override only
    ("bx8", "bx8_twin", "fp8", "multi_node_tp"),
])
def test_reads_made_for_a_remembered_layer_count_for_every_rendering_that_reuses_it(
        tree: Path, ctx: Context, taxonomy: LoadedDocument, first: str, other: str,
        variant: str, strategy: str) -> None:
    """The second rendering on ``first`` takes its composer, its argument head and its
    environment from the first one's memo: the values read to make them (the GPU count,
    the generation, the id's override) are its reads too, so it is not reused where they
    differ."""
    configs = [Configuration(first, variant, strategy, ()),
               Configuration(first, variant, strategy, ("tool_calling",)),
               Configuration(other, variant, strategy, ("tool_calling",))]
    _, second, third = _render_in_order(tree, ctx, taxonomy, configs)
    assert not _shared(second, third)
    assert repr(third) == repr(_fresh(tree, ctx, taxonomy, third.config))


@pytest.mark.parametrize("other,shared", [("hx8_four", True), ("hx8_one", False)])
def test_a_declared_tp_size_reads_whether_the_node_caps_it_not_the_gpu_count(
        tree: Path, ctx: Context, taxonomy: LoadedDocument, other: str,
        shared: bool) -> None:
    """The pinned variant declares TP 2 on hopper: the size is 2 on a node of 8 GPUs or
    4 (one rendering for both), and 1 on a node of one GPU."""
    configs = [Configuration(hw, "pinned", "single_node_tp") for hw in ("hx8", other)]
    first, second = _render_in_order(tree, ctx, taxonomy, configs)
    assert _shared(first, second) is shared
    assert "2" in first.argv
    for rendered in (first, second):
        assert repr(rendered) == repr(_fresh(tree, ctx, taxonomy, rendered.config))
