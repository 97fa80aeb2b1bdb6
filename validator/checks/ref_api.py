"""``REF017``: a variant ``model_id`` that the site promotes to its own files must be a
path of its API, as ``render --api-out`` judges it (one predicate:
:func:`validator.render.api_paths.promoted_id_problem`)."""

from __future__ import annotations

from collections.abc import Iterator

from validator.checks._data import elements, get, items
from validator.checks.registry import RECIPE_ONLY, Hit, rule
from validator.context import Context
from validator.findings import Severity, printable
from validator.load import LoadedDocument
from validator.render.api_paths import promoted_id, promoted_id_problem


@rule("REF017", Severity.ERROR, "A variant model_id is no path of the site's API",
      reads=RECIPE_ONLY)
def variant_model_id_is_an_api_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site publishes a variant whose ``model_id`` holds a ``/`` under that id: it
    clears the folder ``<model_id>/`` of its API and writes ``<model_id>.json`` and
    ``<model_id>/hw/...``. An id with ``..`` segments, a backslash or a leading ``/``
    names no folder of the API: ``../..`` would write outside it, ``org/..`` would clear
    the whole API; ``render --api-out`` refuses it and nothing is published.

    Failing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: 10
            model_id: "../.."

    Passing::

        variants:
          fp8:
            precision: fp8
            vram_minimum_gb: 10
            model_id: "example-org/Example-Chat-8B-FP8"

    How to fix: set ``model_id`` to the variant checkpoint's Hugging Face id
    ``<org>/<repo>``."""
    variants = get(doc.data, "variants")
    entries = [(str(k), v, p) for k, v, p in items(variants, "/variants")] or \
        [(str(i), v, p) for i, v, p in elements(variants, "/variants")]
    for key, variant, pointer in entries:
        model_id = promoted_id(get(variant, "model_id"))
        problem = None if model_id is None else promoted_id_problem(model_id)
        if model_id is not None and problem is not None:
            yield Hit(f"{pointer}/model_id",
                      f"model_id {printable(model_id)!r} of variant {printable(key)!r} "
                      f"{problem}: the site publishes the variant under that id, and "
                      "`render --api-out` refuses to write it",
                      "set model_id to the variant checkpoint's Hugging Face id "
                      "<org>/<repo>")
