"""Site renderings carried from one revision's context to the next
(:mod:`validator.render.carry`) are reused exactly where what they read is the same: every
rendering still equals the one a fresh ``render_all`` makes in the new context, renderings
of hardware whose profile did not change are the earlier objects, and a change of a value
a rendering read (a hardware profile value, a strategy argument, the taxonomy's kv-offload
options) is rendered anew (a key too coarse fails these tests)."""

from __future__ import annotations

import shutil
from collections import OrderedDict
from pathlib import Path

import pytest

from validator.context import Context, local_context
from validator.load import LoadedDocument, load_yaml
from validator.render.cache import rendered_configurations, share_renderings
from validator.render.carry import Table, inputs_digest
from validator.render.renderer import Rendered, render_all, site_strategies

RECIPE = "models/acme/Tiny-1B.yaml"


def _edited(tree: Path, tmp_path: Path, path: str, old: str, new: str) -> Path:
    """A copy of ``tree`` with ``old`` replaced by ``new`` in file ``path``."""
    copy = tmp_path / f"edited-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(tree, copy)
    text = (copy / path).read_text()
    assert old in text
    (copy / path).write_text(text.replace(old, new, 1))
    return copy


def _recipe(tree: Path) -> LoadedDocument:
    return load_yaml((tree / RECIPE).read_bytes(), RECIPE)


def _shares(a: Rendered, b: Rendered) -> bool:
    """Whether ``b`` holds ``a``'s site rendering (the same argv objects)."""
    return bool(a.processes) and all(
        p.argv is q.argv for p, q in zip(a.processes, b.processes, strict=True))


def _by_config(rendered: list[Rendered]) -> dict[str, Rendered]:
    return {repr(r.config): r for r in rendered}


def test_an_unchanged_hardware_reuses_and_a_changed_profile_value_renders_anew(
        tree: Path, tmp_path: Path) -> None:
    """``hx8``'s generation goes from hopper to blackwell (the recipe's blackwell
    overrides apply): its renderings change; every other hardware's are carried."""
    later = _edited(tree, tmp_path, "taxonomy.yaml", "generation: hopper",
                    "generation: blackwell")
    before_ctx, after_ctx = local_context(tree), local_context(later)
    carried: Table = {}
    before = render_all(_recipe(tree), before_ctx.taxonomy, site_strategies(before_ctx),
                        carried=carried)
    after = render_all(_recipe(later), after_ctx.taxonomy, site_strategies(after_ctx),
                       carried=carried)
    fresh = render_all(_recipe(later), after_ctx.taxonomy, site_strategies(after_ctx))
    assert [repr(r) for r in after] == [repr(r) for r in fresh]
    old = _by_config(before)
    reused = [r for r in after if repr(r.config) in old and _shares(old[repr(r.config)], r)]
    assert reused and all(r.config.hardware != "hx8" for r in reused)
    changed = [r for r in after if r.config.hardware == "hx8"
               and repr(r.config) in old and old[repr(r.config)].argv != r.argv]
    assert changed  # the value was read: without it the test would prove nothing


@pytest.mark.parametrize(("path", "old", "new"), [
    # a strategy's arguments (every single-node TP rendering reads them)
    ("strategies/single_node_tp.yaml", 'parallel_flag: "--tensor-parallel-size"',
     'parallel_flag: "--tensor-parallel-size"\nvllm_args: ["--enable-eplb"]'),
    # a hardware profile value
    ("taxonomy.yaml", "    gpu_count: 8\n    vram_gb: 640", "    gpu_count: 4\n    vram_gb: 640"),
])
def test_renderings_shared_across_contexts_equal_fresh_ones(
        tree: Path, tmp_path: Path, path: str, old: str, new: str) -> None:
    """Two revisions' contexts sharing one store, as the history worker's do: the second
    revision's renderings are those a context of its own makes, and differ from the
    first's (the edit is read)."""
    later = _edited(tree, tmp_path, path, old, new)
    store: OrderedDict[str, Table] = OrderedDict()
    doc = _recipe(tree)
    results = []
    for root in (tree, later):
        ctx: Context = local_context(root)
        share_renderings(ctx, OrderedDict(), store)
        results.append(rendered_configurations(doc, ctx))
    alone = rendered_configurations(doc, local_context(later))
    assert [repr(r) for r in results[1]] == [repr(r) for r in alone]
    assert [repr(r) for r in results[0]] != [repr(r) for r in results[1]]
    assert store  # the store was used


@pytest.mark.parametrize(("path", "old", "new", "moves"), [
    # what a site rendering reads of the taxonomy besides its hardware profile
    ("taxonomy.yaml", "TierConnector", "OtherConnector", True),
    ("strategies/single_node_tp.yaml", "single_node\n", "single_node\nvllm_args: [-x]\n",
     True),
    ("kv_store/kv_mooncake_test.yaml", "default_instances: 2", "default_instances: 3", True),
    # a profile: replayed per rendering instead
    ("taxonomy.yaml", "gpu_count: 8", "gpu_count: 4", False),
])
def test_the_carry_key_holds_every_input_but_the_hardware_profiles(
        tree: Path, tmp_path: Path, path: str, old: str, new: str, moves: bool) -> None:
    later = _edited(tree, tmp_path, path, old, new)
    keys = [inputs_digest(c.taxonomy, site_strategies(c))
            for c in (local_context(tree), local_context(later))]
    assert (keys[0] != keys[1]) == moves
