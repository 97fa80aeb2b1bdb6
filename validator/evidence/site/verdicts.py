"""Which findings of a record apply to which configuration of its recipe.

A finding points at a YAML node of the recipe (its JSON Pointer). It applies to a
configuration when that configuration's commands use the node: an argument or
environment token of its rendering comes from the node, from inside it or from a node
holding it; or the node is inside a layer the configuration selects (its variant's
``/variants/<v>``, an enabled feature's ``/features/<f>``, its strategy's
``/strategy_overrides/<s>``) or is the Docker image it pulls (``/model/docker_image``).
A finding on a node no configuration uses -- the guide, the metadata, a claim, a layer
nothing renders -- is about the recipe as a whole (:data:`WHOLE_RECIPE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from validator.render.model import Rendered
from validator.sourcemap import split_pointer

WHOLE_RECIPE = None
"""The scope of a finding about the recipe as a whole (no one configuration)."""

_SELECTED_LAYERS = {"variants": "variant", "features": "features",
                    "strategy_overrides": "strategy"}


def used_pointers(r: Rendered) -> frozenset[str]:
    """The recipe nodes the rendering's commands take a token or an environment value
    from."""
    tokens = [*r.tokens, *r.env_sources.values()]
    for proc in r.processes:
        tokens += [*proc.tokens, *proc.env_sources.values()]
    return frozenset(t.pointer for t in tokens if t.document == r.recipe_path and t.pointer)


def _related(a: str, b: str) -> bool:
    """Whether one pointer is the other or inside it."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _in_selected_layer(parts: list[str], r: Rendered) -> bool:
    if len(parts) < 2 or parts[0] not in _SELECTED_LAYERS:
        return False
    chosen = getattr(r.config, _SELECTED_LAYERS[parts[0]])
    return parts[1] in chosen if isinstance(chosen, tuple) else parts[1] == chosen


def _pulls(pointer: str, parts: list[str], data: Any, r: Rendered) -> bool | None:
    """For a finding on ``/model/docker_image`` (or one brand's image): whether ``r``
    runs that image; ``None`` for any other pointer."""
    if parts[:2] != ["model", "docker_image"]:
        return None
    node = data
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else None
    return isinstance(node, str) and node == r.docker_image


def _applies(pointer: str, data: Any, r: Rendered, used: frozenset[str]) -> bool | None:
    """Whether a finding on ``pointer`` applies to ``r``; ``None`` when the pointer is not
    one a configuration selects (a layer only some configurations use, an image)."""
    try:
        parts = split_pointer(pointer)
    except ValueError:
        return None
    if not parts:
        return None  # the whole document
    if any(_related(pointer, p) for p in used):
        return True
    pulls = _pulls(pointer, parts, data, r)
    if pulls is not None:
        return pulls
    if parts and parts[0] in _SELECTED_LAYERS:
        return _in_selected_layer(parts, r)
    return None


def scopes(pointers: Sequence[str], data: Any,
           renderings: Sequence[Rendered]) -> list[frozenset[int] | None]:
    """Per finding pointer: the indexes of the renderings it applies to, or
    :data:`WHOLE_RECIPE` when it is about the recipe as a whole."""
    used = [used_pointers(r) for r in renderings]
    out: list[frozenset[int] | None] = []
    for pointer in pointers:
        hits = [(i, _applies(pointer, data, r, used[i])) for i, r in enumerate(renderings)]
        selected = frozenset(i for i, applies in hits if applies)
        decided = any(applies is not None for _, applies in hits)
        out.append(selected if decided and selected else WHOLE_RECIPE)
    return out
