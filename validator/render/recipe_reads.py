"""What a site rendering reads of its recipe, so that the site renderings made for one
text of a recipe are reused for another text of it (a candidate fix, the next blob of the
path in the history, the head of a pull request) exactly where what they read is equal.

A site rendering (:func:`~validator.render.site_renderings.shared_site_rendering`: the
call of :func:`~validator.render.site.site_rendering_traced` and everything it calls:
:mod:`~validator.render.synthesis`, :mod:`~validator.render.layers`,
:mod:`~validator.render.envs`, :func:`~validator.render.docker.compute_docker_meta`, the
:mod:`~validator.render.gates` and :mod:`~validator.render.offload_gates` it calls) reads
the recipe only through ``get(recipe, "<literal key>")`` and what those values hold. Of
the top-level keys it never reads:

- ``guide`` (no code of :mod:`validator.render` names it);
- ``meta``: it is read by the planning of the configurations
  (:func:`~validator.render.site.plan_variant`, :mod:`~validator.render.configuration`),
  the picker (:func:`~validator.render.gates.picker_hardware`,
  :func:`~validator.render.gates.pick_default_hardware`), the configuration problems and
  the omni test (:func:`~validator.render.omni.is_omni`), which all run again for each
  text: their results enter a site rendering only through its
  :class:`~validator.render.configuration.Configuration`, which is part of its key.

Of ``model`` it reads ``base_args`` (:mod:`~validator.render.layers`), ``base_env``
(:mod:`~validator.render.envs`), ``model_id`` (:mod:`~validator.render.synthesis`),
``docker_image`` and ``nightly_required``
(:func:`~validator.render.docker.compute_docker_meta`) only: ``install`` and
``min_vllm_version`` are read by :func:`~validator.render.docker.synthesize_install`,
which :func:`~validator.render.renderer.render` calls for each text besides the site
rendering, and the rest of ``model`` (its description, sizes, context length...) by no
renderer.

And of ``variants`` a rendering of variant ``V`` reads ``variants.V`` only, and
``variants.default`` where ``variants.V`` is falsy (``variants[V] || variants.default ||
{}`` in :func:`~validator.render.synthesis._new_composer` and
:func:`~validator.render.site.site_rendering_traced`; every other reader of ``variants``
-- :func:`~validator.render.gates.pick_fitting_variant`, the default features -- is the
planning's). Of ``strategy_overrides`` a rendering of strategy ``S`` reads the entry
``S`` (:attr:`~validator.render.layers.Composer.overrides`,
:func:`~validator.render.gates.resolve_single_node_tp`, both with the rendering's
strategy) and ``pd_cluster`` (:func:`~validator.render.gates.pd_pool_modes`) only (the
planning reads ``pd_cluster`` too). So the site renderings of a recipe text are kept in
a table (:mod:`validator.render.carry`) under :func:`text_digest` -- the recipe's data
without ``guide``, ``meta``, the content of a mapping ``variants`` or
``strategy_overrides``; of a mapping ``model``, the keys of :data:`MODEL_READ` -- and
each entry of the table under its configuration and :func:`read_fingerprint`
(``variants.V``, and ``variants.default`` where that is falsy; ``strategy_overrides.S``
and ``strategy_overrides.pd_cluster``). Equal values of equal types: ``repr`` of the data the loader
makes (dicts, lists, strings, numbers, booleans, ``None``) keeps ``1``, ``1.0`` and
``True`` apart and mapping keys in order.

The renderings of a text hold no line or column: their tokens name recipe nodes by JSON
pointer, and a pointer names the same path in every text (the rules map it to the lines
of the text they check).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from validator.render.jsval import get, truthy

UNREAD = frozenset({"guide", "meta"})
"""Top-level keys of a recipe that no site rendering reads (see the module docstring)."""

VARIANTS = "variants"
STRATEGY_OVERRIDES = "strategy_overrides"
MODEL = "model"
MODEL_READ = frozenset({"base_args", "base_env", "model_id", "docker_image",
                        "nightly_required"})
"""The keys of ``model`` a site rendering reads (see the module docstring)."""


def text_digest(data: Any) -> str:
    """Digest of everything of a recipe's ``data`` a site rendering of any configuration
    may read, but the content of a mapping ``variants`` or ``strategy_overrides``
    (:func:`read_fingerprint`):
    every top-level key but those of :data:`UNREAD`, in order, with its value (of a
    mapping ``model``, its keys of :data:`MODEL_READ`)."""
    if type(data) is not dict:
        return hashlib.sha256(repr(data).encode()).hexdigest()
    parts: list[tuple[Any, ...]] = []
    for key, value in data.items():
        if key in UNREAD:
            continue
        if key in (VARIANTS, STRATEGY_OVERRIDES) and type(value) is dict:
            parts.append((key, "mapping"))
        elif key == MODEL and type(value) is dict:
            parts.append((key, "mapping", [(k, v) for k, v in value.items()
                                           if k in MODEL_READ]))
        else:
            parts.append((key, value))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def rendering_digest(ok: bool, data: Any) -> str:
    """Digest of everything of a recipe a ``render_all`` of it reads: whether it loaded
    and its data but ``guide`` (:data:`UNREAD`; the planning reads ``meta``, so it is
    kept), each top-level key in order with its value (``repr``, as :func:`text_digest`).
    The renderings of two texts of one recipe with the same digest are the same: a fix of
    the guide keeps those of the text it edits
    (:func:`validator.render.cache.rendered_configurations`)."""
    if type(data) is not dict:
        return hashlib.sha256(repr((ok, data)).encode()).hexdigest()
    parts = [(k, v) for k, v in data.items() if k != "guide"]
    return hashlib.sha256(repr((ok, parts)).encode()).hexdigest()


def read_fingerprint(data: Any, variant: Any, strategy: Any, memo: dict[Any, Any]) -> Any:
    """What a site rendering of ``variant`` and ``strategy`` reads of ``data`` where
    :func:`text_digest` leaves it out: of a mapping ``variants``, ``repr`` of
    ``variants.<variant>``, and of ``variants.default`` too where the first is falsy; of
    a mapping ``strategy_overrides``, ``repr`` of its ``<strategy>`` and ``pd_cluster``
    entries (``None`` for a part the digest holds whole). Made once per variant and
    strategy in ``memo`` (the rendering memo of one text)."""
    key = ("recipe-read", repr(variant), repr(strategy))  # repr: 1, 1.0 and True apart
    found = memo.get(key)
    if found is None:
        found = memo[key] = (_variant_read(get(data, VARIANTS), variant),
                             _strategy_read(get(data, STRATEGY_OVERRIDES), strategy))
    return found


def _variant_read(variants: Any, variant: Any) -> str | None:
    if type(variants) is not dict:
        return None
    own = get(variants, variant)
    return repr(own) if truthy(own) else repr((own, get(variants, "default")))


def _strategy_read(overrides: Any, strategy: Any) -> str | None:
    if type(overrides) is not dict:
        return None
    return repr((get(overrides, strategy), get(overrides, "pd_cluster")))


PER_PATH = 8
"""How many tables (texts × non-hardware contexts) of the recipe rendered last a store
keeps: a fix tries some dozen texts of one recipe, and comes back to earlier ones (a fix
of the guide keeps the renderings of the text it edits)."""

OTHER_PATHS = 1
"""How many tables of other recipes a store keeps besides: a corpus run renders each
recipe once, and would otherwise hold :data:`PER_PATH` recipes' renderings."""


def kept_table(store: OrderedDict[tuple[str, str, str], Any],
               key: tuple[str, str, str]) -> Any:
    """The table of ``key`` (``(path, text digest, inputs digest)``) in ``store``, a new
    one when absent; ``store`` then keeps the :data:`PER_PATH` tables of ``key``'s path
    used last and the :data:`OTHER_PATHS` of other paths used last."""
    table = store.pop(key, None)
    store[key] = table = {} if table is None else table
    same = other = 0
    for kept in reversed(list(store)):
        if kept[0] == key[0]:
            same += 1
            if same > PER_PATH:
                del store[kept]
        else:
            other += 1
            if other > OTHER_PATHS:
                del store[kept]
    return table
