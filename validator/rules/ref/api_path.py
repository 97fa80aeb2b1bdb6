"""``REF017``: a variant ``model_id`` that the site promotes to its own files must be a
path of its API of its own, as ``render --api-out`` judges it (one predicate:
:func:`validator.render.api_paths.promoted_id_problem`; two ids of one recipe on one path
compare as :func:`validator.render.api_paths.path_key` does). ``REF020``: two recipe files
whose paths are one file where case is ignored."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import elements, get, items
from validator.context import Context
from validator.findings import Severity, printable
from validator.load import LoadedDocument
from validator.render.api_paths import path_key, promoted_id, promoted_id_problem
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule
from validator.rules.ref.facts import expected_model_id


@rule("REF017", Severity.ERROR, "A variant model_id is no path of the site's API",
      reads=RECIPE_ONLY)
def variant_model_id_is_an_api_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site publishes a variant whose ``model_id`` holds a ``/`` under that id: it
    clears the folder ``<model_id>/`` of its API and writes ``<model_id>.json`` and
    ``<model_id>/hw/...``. An id with ``..`` segments, a backslash or a leading ``/``
    names no folder of the API: ``../..`` would write outside it, ``org/..`` would clear
    the whole API; ``./taxonomy`` or ``strategies/x`` would replace or clear the API's
    own files. An id that differs from the recipe's own or another variant's only in
    letter case or Unicode form would write one path on macOS and Windows (where case is
    ignored, one file): the later clears the earlier's files. (Variants naming the very
    same id share that checkpoint's page, as upstream recipes do.)
    ``render --api-out`` refuses all of them and nothing is published.

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
    own = expected_model_id(doc.path)
    taken: dict[str, tuple[str, str]] = {} if own is None else {
        path_key(own): (own, "the recipe itself")}
    for key, variant, pointer in entries:
        model_id = promoted_id(get(variant, "model_id"))
        if model_id is None or model_id == own:  # the site does not promote its own id
            continue
        problem = promoted_id_problem(model_id)
        first = taken.setdefault(path_key(model_id), (model_id, f"variant {printable(key)!r}"))
        if problem is None and first[0] != model_id:  # the very same id: one page, shared
            problem = (f"is one path of the API with {printable(first[0])!r} of {first[1]} "
                       "on a file system that ignores letter case or Unicode form (macOS, "
                       "Windows)")
        if problem is not None:
            yield Hit(f"{pointer}/model_id",
                      f"model_id {printable(model_id)!r} of variant {printable(key)!r} "
                      f"{problem}: the site publishes the variant under that id, and "
                      "`render --api-out` refuses to write it",
                      "set model_id to the variant checkpoint's Hugging Face id "
                      "<org>/<repo>")


def _stem_key(path: str) -> str:
    return path_key(path.rsplit(".", 1)[0])


@rule("REF020", Severity.ERROR, "Recipe path is another recipe's where case is ignored",
      reads=frozenset({Reads.RECIPE_LIST}), needs_root=True)
def recipe_path_case_twin(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Two recipe files differ only in letter case or Unicode form
    (``models/google/x.yaml`` beside ``models/Google/x.yaml``), or only in ``.yaml`` /
    ``.yml``. On macOS and Windows (where case is ignored) they are one file: a checkout
    there holds only one of them, and both publish one page of the site's API, so
    ``render --api-out`` refuses the whole tree.

    Failing: ``models/example-org/example-chat-8b.yaml`` added beside
    ``models/example-org/Example-Chat-8B.yaml``.
    Passing: one recipe per model, at the path that spells its ``model_id``.

    How to fix: edit the existing recipe instead of adding a second file for it."""
    index: dict[str, list[str]] = ctx.memoised("REF020.index", lambda: _twins(ctx))
    others = [p for p in index.get(_stem_key(doc.path), []) if p != doc.path]
    if others:
        yield Hit("", f"the recipe path {printable(doc.path)!r} is one file with "
                  f"{', '.join(repr(printable(p)) for p in others)} on a file system that "
                  "ignores letter case or Unicode form (macOS, Windows), and both publish "
                  "one page of the site's API: `render --api-out` refuses the tree",
                  "keep one recipe per model: edit the existing file instead of adding one "
                  "whose path differs only in case")


def _twins(ctx: Context) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for path in sorted(ctx.recipe_paths):
        index.setdefault(_stem_key(path), []).append(path)
    return {k: v for k, v in index.items() if len(v) > 1}

