"""The counts the renderer expands into one line or one item each, bounded.

A kv-store deployment's ``default_instances`` (one ``--backend-url`` per instance) and a
hardware profile's ``gpu_count`` (one id per GPU in a PD pool's ``CUDA_VISIBLE_DEVICES``)
are written in context files, and the site's renderer expands them as they are
(``Array.from({length: n})``): the schema gives no maximum, and a billion instances would
take the site's page, and this port, all its memory. Node counts need no bound here: the
site's builder stops at :data:`~validator.render.gates.MAX_NODES` nodes (four per PD
pool) and ``render --nodes`` at :data:`~validator.render.gates.RENDER_MAX_NODES`.

Past :data:`MAX_EXPANDED` (or for a value that is no number, which the site expands to no
line at all) a configuration that would expand the count is refused
(:class:`CountRefused`, reported as the :data:`COUNT_REFUSED` problem at the value's file
and line) instead of rendered; :func:`context_count_problems` names the same values of a
context file, for the file's own findings.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from validator.render import jsval
from validator.render.documents import ptr
from validator.render.gates import RENDER_MAX_NODES
from validator.render.jsval import get

MAX_EXPANDED = RENDER_MAX_NODES
"""Most items a count of a context file is expanded to (256): the nodes ``render
--nodes`` renders at most; each kv-store instance is at least one node, and no node has
more GPUs (real values: 2 instances, 1 to 8 GPUs)."""

COUNT_REFUSED = "count-refused"
"""The :class:`~validator.render.types.RenderProblem` code of a refused configuration."""


class CountRefused(jsval.JsTypeError):
    """A count the rendering would expand is past :data:`MAX_EXPANDED` or no number:
    the configuration is not rendered (``document``/``pointer``: the value)."""


def count_problem(value: Any, what: str) -> str | None:
    """Why ``value`` (``what`` it counts) cannot be expanded, else ``None``: it is no
    number (``Number(value)`` is ``NaN``) or more than :data:`MAX_EXPANDED`."""
    number = jsval.to_number(value)
    if math.isnan(number):
        return (f"{what} is {jsval.js_str(value)!r}, not a number: the site would render "
                "no line for it (and a broken command), so the configurations that expand it "
                "are not rendered")
    if number > MAX_EXPANDED:
        return (f"{what} is {jsval.js_str(value)}, more than the {MAX_EXPANDED} "
                "recipe-check renders: the site would write one entry for each "
                "(without end), so the configurations that expand it are not rendered")
    return None


def bounded(value: Any, what: str, document: str, pointer: str) -> int:
    """``Array.from({length: value})``'s length of a count the rendering expands, or
    :class:`CountRefused` (:func:`count_problem`)."""
    problem = count_problem(value, what)
    if problem is not None:
        raise CountRefused(problem, document, pointer)
    number = jsval.to_number(value)
    return int(number) if number > 0 else 0


def context_count_problems(kind: str, data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, why)`` of each count of a context document of ``kind`` that the site
    expands and recipe-check refuses to (:func:`count_problem`)."""
    if kind == "kv_store":
        value = get(data, "default_instances")
        if jsval.truthy(value) and get(data, "deploy_type") == "kv_store_lb":
            why = count_problem(value, "default_instances")
            if why is not None:
                yield "/default_instances", why
    elif kind == "taxonomy" and isinstance(get(data, "hardware_profiles"), dict):
        for hw_id, profile in get(data, "hardware_profiles").items():
            value = get(profile, "gpu_count")
            if jsval.is_number(value) and value > MAX_EXPANDED:
                yield (ptr("hardware_profiles", hw_id, "gpu_count"),
                       str(count_problem(value, f"hardware_profiles.{hw_id}.gpu_count")))

