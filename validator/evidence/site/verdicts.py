"""Which findings of a record apply to which configuration of its recipe.

A finding points at a YAML node of the recipe (its JSON Pointer). When some
configuration's commands take an argument or environment token from the node (from
inside it, or from a node holding it), the finding applies to exactly those
configurations. A node no command takes a token from applies to the configurations that
select it: the Docker image they pull, or a layer they select (their variant's
``/variants/<v>``, an enabled feature's ``/features/<f>``, their strategy's
``/strategy_overrides/<s>``, and inside one a ``hardware_overrides`` entry of their
hardware) -- a planning minimum, a description. A finding on a node no configuration
selects -- the guide, the metadata, an override of a hardware group nothing rendered --
is about the recipe as a whole (:data:`WHOLE_RECIPE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from validator.render.renderer import Rendered
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


def _in_selected_layer(parts: list[str], r: Rendered) -> bool | None:
    """Whether the layer ``parts`` lies in is one ``r`` selects: its variant's, an enabled
    feature's or its strategy's, and inside it the hardware override of ``r``'s hardware;
    ``None`` when ``parts`` is in no such layer or in an override of a hardware group
    (which profiles a group key names is the renderer's to say, and no command used it)."""
    if len(parts) < 2 or parts[0] not in _SELECTED_LAYERS:
        return None
    chosen = getattr(r.config, _SELECTED_LAYERS[parts[0]])
    if not (parts[1] in chosen if isinstance(chosen, tuple) else parts[1] == chosen):
        return False
    if len(parts) > 3 and parts[2] == "hardware_overrides":
        return True if parts[3] == r.config.hardware else None
    return True


def _image(parts: list[str], data: Any) -> str | None:
    """The Docker image a pointer ending in ``docker_image`` (or one brand's entry of it)
    names in the recipe; ``None`` for any other pointer."""
    if "docker_image" not in parts:
        return None
    node = data
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, str) else None


def _selects(parts: list[str], data: Any, r: Rendered) -> bool | None:
    """For a node no command took a token from: whether ``r`` selects it (the image it
    pulls; a layer it selects); ``None`` when no configuration can be said to."""
    image = _image(parts, data)
    layer = _in_selected_layer(parts, r)
    if image is not None:
        return image == r.docker_image and layer is not False
    return layer


def scopes(pointers: Sequence[str], data: Any,
           renderings: Sequence[Rendered]) -> list[frozenset[int] | None]:
    """Per finding pointer: the indexes of the renderings it applies to -- those whose
    commands take a token from the node (or from inside it), else those selecting it
    (:func:`_selects`) -- or :data:`WHOLE_RECIPE` when it is about the recipe as a
    whole."""
    used: dict[frozenset[str], list[int]] = {}  # pointers used -> renderings using them
    for i, r in enumerate(renderings):
        used.setdefault(used_pointers(r), []).append(i)
    out: list[frozenset[int] | None] = []
    for pointer in pointers:
        try:
            parts = split_pointer(pointer)
        except ValueError:
            parts = []
        if not parts:  # the whole document, or no pointer at all
            out.append(WHOLE_RECIPE)
            continue
        reached = frozenset(i for pointers_of, users in used.items()
                            if any(_related(pointer, p) for p in pointers_of) for i in users)
        if not reached:
            reached = frozenset(i for i, r in enumerate(renderings)
                                if _selects(parts, data, r))
        out.append(reached or WHOLE_RECIPE)
    return out
