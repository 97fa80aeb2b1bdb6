"""What a rendering points at: the display paths of the documents it reads
(:class:`Documents`) and the JSON Pointers (:func:`ptr`) and layer names (:func:`dotted`)
of the YAML nodes its arguments come from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from validator.render import jsval
from validator.sourcemap import join_pointer


@dataclass(frozen=True)
class Documents:
    """Display paths of the documents a rendering reads (for token provenance)."""

    recipe: str = "recipe.yaml"
    taxonomy: str = "taxonomy.yaml"
    strategies: dict[str, str] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Argument layers already built from the recipe's data (pointer -> (value, args)):
    shared by the renderings of one recipe (see :func:`validator.render.renderer.render_all`);
    a layer is reused only while the YAML node is the very same object."""

    def strategy(self, name: Any) -> str:
        """Path of strategy (or kv-store deployment) ``name``."""
        return self.strategies.get(jsval.js_str(name), f"strategies/{jsval.js_str(name)}.yaml")


def ptr(*tokens: Any) -> str:
    """JSON Pointer from raw tokens."""
    out = ""
    for token in tokens:
        text = token if type(token) is str else jsval.js_str(token)
        out = join_pointer(out, text) if "~" in text or "/" in text else f"{out}/{text}"
    return out


def dotted(pointer: str) -> str:
    """Layer name of a pointer: ``/variants/fp8/extra_args`` -> ``variants.fp8.extra_args``."""
    return pointer.lstrip("/").replace("/", ".")
