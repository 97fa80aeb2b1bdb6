"""``REF017``: a variant ``model_id`` that the site promotes to its own files must be a
path of its API of its own, as ``render --api-out`` judges it (one predicate:
:func:`validator.render.api_paths.promoted_id_problem`; two ids of one recipe on one path
compare as :func:`validator.render.api_paths.path_key` does). ``REF020``: two recipe files
whose paths are one file where case is ignored."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from validator.analysis.recipe_data import elements, get, items
from validator.api_claims import (
    VariantIds,
    names_blobs,
    own_id,
    store_of,
    tree_variant_ids_of,
    variant_ids,
    variant_ids_indexed,
    variant_ids_near,
)
from validator.context import Context
from validator.findings import Severity, printable
from validator.load import LoadedDocument
from validator.render.api_paths import (
    id_outputs_meet,
    path_key,
    promoted_id,
    promoted_id_problem,
)
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule
from validator.rules.ref.facts import expected_model_id
from validator.sourcemap import join_pointer


@rule("REF017", Severity.ERROR, "A variant model_id is no path of the site's API",
      reads=RECIPE_ONLY)
def variant_model_id_is_an_api_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site publishes a variant whose ``model_id`` holds a ``/`` under that id: it
    clears the folder ``<model_id>/`` of its API and writes ``<model_id>.json`` and
    ``<model_id>/hw/...``. An id with ``..`` segments, a backslash or a leading ``/``
    names no folder of the API: ``../..`` would write outside it, ``org/..`` would clear
    the whole API; ``./taxonomy`` or ``strategies/x`` would replace or clear the API's
    own files, and ``models.json/x`` would make a folder where the API's own
    ``models.json`` is. An id that differs from the recipe's own or another variant's only in
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
        mine, *theirs = _distinct_shown([doc.path, *others])
        yield Hit("", f"the recipe path {mine} is one file with "
                  f"{', '.join(theirs)} on a file system that "
                  "ignores letter case or Unicode form (macOS, Windows), and both publish "
                  "one page of the site's API: `render --api-out` refuses the tree",
                  "keep one recipe per model: edit the existing file instead of adding one "
                  "whose path differs only in case")


def _distinct_shown(paths: list[str]) -> list[str]:
    """``paths`` quoted as a message shows them (``repr`` of :func:`printable`), or, when
    two would look alike (Unicode form twins: ``é`` as one code point or as ``e`` and a
    combining accent), each quoted with its non-ASCII characters escaped
    (``'G\\xe9'``, ``'Ge\\u0301'``)."""
    if len({unicodedata.normalize("NFC", p) for p in paths}) == len(paths):
        return [repr(printable(p)) for p in paths]
    return ["'" + p.encode("ascii", "backslashreplace").decode("ascii") + "'" for p in paths]


def _twins(ctx: Context) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for path in sorted(ctx.recipe_paths):
        index.setdefault(_stem_key(path), []).append(path)
    return {k: v for k, v in index.items() if len(v) > 1}



@dataclass(frozen=True)
class _Claim:
    """One id another recipe publishes files under: the recipe, the id, what it is."""

    recipe: str
    model_id: str
    what: str


def _promoted(data: Any, path: str, recipe_ids: frozenset[str]) -> Iterator[tuple[str, str]]:
    """``(variant key, model_id)`` of each variant the site promotes to files of its own:
    an id with a ``/`` that is neither the recipe's own nor a recipe's of the tree (that
    variant the site leaves unpromoted)."""
    return ((key, model_id) for key, model_id in variant_ids(data, path)
            if model_id not in recipe_ids)


def _recipe_ids(ctx: Context) -> frozenset[str]:
    return frozenset(filter(None, map(own_id, ctx.recipe_paths)))


def _claims(ctx: Context, ids: dict[str, VariantIds]) -> list[_Claim]:
    """The ids the recipes of ``ids`` (path -> their variant ids) publish files under
    (``<id>.json``, ``<id>/``): each one's own (from its path) and each promoted
    variant's."""
    recipe_ids = ctx.memoised("REF025.ids", lambda: _recipe_ids(ctx))
    out = []
    for path, found in ids.items():
        own = own_id(path)
        if own is not None:
            out.append(_Claim(path, own, "the recipe itself"))
        out += [_Claim(path, model_id, f"its variant {printable(key)!r}")
                for key, model_id in found if model_id not in recipe_ids]
    return out


_NEAR_ONLY = 3
"""Recipes of a context whose rules find the other recipes that may meet their ids from
those recipes' text (:func:`validator.api_claims.variant_ids_near`); past them (a run over
many recipes) from every recipe's scalars, scanned once
(:func:`validator.api_claims.variant_ids_indexed`). Only the recipes that may meet them are
loaded; with the result cache's index, every recipe's ids are read once for all."""


def _others(ctx: Context, path: str, ids: list[str]) -> list[_Claim]:
    """The claims of every recipe but ``path`` that may meet one of ``ids``: without the
    result cache's index those of the recipes whose scalars may meet them (the rest are
    not loaded: checking one file loads no other recipe, a whole tree only the few that
    may meet); with it, those of every recipe (read once per context; their variant ids
    from :func:`validator.api_claims.tree_variant_ids_of`, across runs from the index)."""
    asked = ctx.memoised("REF025.asked", lambda: [0])
    asked[0] += 1
    if store_of(ctx) is None and not names_blobs(ctx):
        near = variant_ids_near if asked[0] <= _NEAR_ONLY else variant_ids_indexed
        return _claims(ctx, near(ctx, ids, path))
    every = ctx.memoised("REF025.claims", lambda: _claims(ctx, tree_variant_ids_of(ctx)))
    return [c for c in every if c.recipe != path]


def _overlap(mine: str, mine_key: str, claim: _Claim, claim_key: str) -> str | None:
    """How the API paths of id ``mine`` land on those of ``claim`` (``None``: apart);
    ``mine_key`` and ``claim_key``: the :func:`path_key` of each id."""
    meet = id_outputs_meet(mine_key, claim_key)
    if meet is None:
        return None
    theirs = (f"{printable(claim.model_id)!r}, {claim.what} of "
              f"{printable(claim.recipe)}")
    if meet == "same":
        return f"is {theirs}" + ("" if mine == claim.model_id else " where letter case or "
                                 "Unicode form is ignored (macOS, Windows)")
    return _HOW[meet] + theirs


def _path_keys(ctx: Context) -> Callable[[str], str]:
    """:func:`path_key`, once per id string of the context's run (a pure function of it:
    every recipe compares its variants' ids with every other recipe's)."""
    keys: dict[str, str] = ctx.memoised("REF025.path_keys", dict)

    def key_of(model_id: str) -> str:
        found = keys.get(model_id)
        if found is None:
            found = keys[model_id] = path_key(model_id)
        return found

    return key_of


_HOW = {"holds": "names a folder the site clears, which holds the files of ",
        "inside": "lies inside the folder the site clears for ",
        "file-holds": "names a file (<id>.json) where the site makes the folder of ",
        "under-file": "makes a folder where the site writes the file (<id>.json) of "}
"""How a variant's id meets another id's API paths (:func:`id_outputs_meet`), as the
start of REF025's message."""


@rule("REF025", Severity.ERROR, "A variant model_id takes another recipe's API files",
      reads=frozenset({Reads.RECIPE_LIST, Reads.VARIANT_CLAIMS}), needs_root=True)
def variant_model_id_takes_another_recipes_files(doc: LoadedDocument,
                                                 ctx: Context) -> Iterator[Hit]:
    """The site publishes a variant whose ``model_id`` holds a ``/`` under that id
    (``<model_id>.json``, the folder ``<model_id>/`` it clears first). An id that is
    another recipe's own in another letter case (``zai-org/glm-5`` in ``GLM-4.5.yaml``
    beside ``GLM-5.yaml``; the very same id the site does not promote: the recipe wins), or
    another recipe's variant's, or a folder holding or inside theirs (or inside the
    recipe's own), or a folder where their ``<id>.json`` file is (``zai-org/GLM-5.2.json``
    beside ``zai-org/GLM-5.2``), overwrites or deletes those pages: ``render --api-out``
    refuses the tree (one predicate, :func:`~validator.render.api_paths.id_outputs_meet`,
    refusing exactly what its output ledger refuses).

    ``example-org/example-moe-120b`` in ``Example-Chat-8B.yaml`` beside
    ``models/example-org/Example-MoE-120B.yaml`` is one; so is an id inside the folder of
    the recipe's own pages.

    Failing::

        variants:
          fp8:
            model_id: "example-org/Example-Chat-8B/fp8"

    Passing::

        variants:
          fp8:
            model_id: "example-org/Example-Chat-8B-FP8"

    How to fix: set ``model_id`` to the variant checkpoint's own Hugging Face id."""
    recipe_ids = ctx.memoised("REF025.ids", lambda: _recipe_ids(ctx))
    variants = list(_promoted(doc.data, doc.path, recipe_ids))
    if not variants:
        return
    own = own_id(doc.path)
    mine = [_Claim(doc.path, own, "the recipe itself")] if own else []
    mine += [_Claim(doc.path, model_id, f"its variant {printable(key)!r}")
             for key, model_id in variants]
    claims = mine + _others(ctx, doc.path, [model_id for _, model_id in variants])
    key_of = _path_keys(ctx)
    for key, model_id in variants:
        mine_key = key_of(model_id)
        for claim in claims:
            claim_key = key_of(claim.model_id)
            if claim.recipe == doc.path and mine_key == claim_key:
                continue  # one recipe's ids on one path: one page shared, or REF017's
            how = _overlap(model_id, mine_key, claim, claim_key)
            if how is None:
                continue
            yield Hit(join_pointer(join_pointer("/variants", key), "model_id"),
                      f"model_id {printable(model_id)!r} of variant {printable(key)!r} "
                      f"{how}: the site publishes both on one path of its API, so one "
                      "recipe's pages overwrite or delete the other's, and `render "
                      "--api-out` refuses the tree",
                      "set model_id to the variant checkpoint's own Hugging Face id")
            break
