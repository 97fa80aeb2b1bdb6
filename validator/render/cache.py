"""Renderings memoised on a :class:`~validator.context.Context`, so that every rule (and
every family) checking one recipe shares one ``render_all`` of it.

Only the renderings of the last :data:`KEPT` documents are kept: the rules of one recipe
run together, and a run over the whole corpus would otherwise hold every configuration of
every recipe (most of its memory) until it ends.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from validator.context import Context
from validator.load import LoadedDocument
from validator.render.carry import Table, carry_key, inputs_digest
from validator.render.problems import RenderProblem
from validator.render.recipe_reads import kept_table, rendering_digest
from validator.render.renderer import Rendered, render_all, site_strategies

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def kept_recent(table: OrderedDict[K, V], key: K, make: Callable[[], V], size: int) -> V:
    """``table[key]``, made with ``make()`` when absent; the table keeps its ``size`` most
    recently used entries (a renderings store here, the history worker's contexts)."""
    found = table.get(key)
    if found is None:
        found = table[key] = make()
        while len(table) > size:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    return found


def context_strategies(ctx: Context) -> dict[str, LoadedDocument]:
    """:func:`~validator.render.renderer.site_strategies` of ``ctx``, computed once."""
    return ctx.memoised("render:strategies", lambda: site_strategies(ctx))


def rendered_configurations(doc: LoadedDocument, ctx: Context) -> list[Rendered]:
    """``render_all(doc)`` (with feature sets) against ``ctx``, computed once per document
    content and context. Without the ``docker run`` forms and the ``vllm serve`` command
    texts: no rule reads them (``render`` and the evidence pages render for themselves),
    and formatting them was 4-5 % of a cold ``check`` (the docker forms) and 4-5 % of
    ``render_all`` (the texts)."""
    def all_configurations() -> list[Rendered]:
        try:
            return render_all(doc, ctx.taxonomy, context_strategies(ctx),
                              carried=_carried(doc, ctx), docker_forms=False,
                              command_texts=False)
        except (OverflowError, TypeError, ValueError, KeyError, AttributeError):
            # a value of a type or size the port does not expect where the schema already
            # fails (a number no float holds, a mapping where a name belongs): the SCHEMA
            # and HW rules report it; the render rules have nothing to add
            return []

    recent: OrderedDict[str, list[Rendered]] = ctx.memoised("render:recent", OrderedDict)
    return kept_recent(recent, _rendering_key(doc, ctx), all_configurations, KEPT)


def _rendering_key(doc: LoadedDocument, ctx: Context) -> str:
    """The key of ``doc``'s renderings in the store of ``ctx``: its path and what a
    ``render_all`` reads of it (:func:`~validator.render.recipe_reads.rendering_digest`;
    it reads the document's path, ``ok`` and data, never its text or source map), so
    texts that differ only in the guide (the fixes of the guide a fix run tries) are
    rendered once. Made once per document content (dropped with its other per-document
    state, :meth:`~validator.context.Context.forget_document`); a document built by hand
    (no digest) keeps the key of its path alone, as before."""
    if not doc.sha256:
        return f"{doc.path}:"
    return ctx.memoised(f"render:key:{doc.path}:{doc.sha256}:",
                        lambda: f"{doc.path}:{rendering_digest(doc.ok, doc.data)}")


def share_renderings(ctx: Context, store: OrderedDict[str, list[Rendered]],
                     carried: OrderedDict[Any, Table] | None = None) -> None:
    """Let ``ctx`` keep its renderings in ``store``, which the caller shares between
    contexts with the same taxonomy, strategy and kv-store bytes (the only inputs of a
    rendering besides the recipe): the history audit's contexts of one revision's files
    in different release windows, or limited to different rule groups, then render a blob
    once. Call it before any rendering on ``ctx``; a context whose taxonomy, strategies or
    kv stores are unreadable must not share (its rules are to fail when they render).

    ``carried``, shared by every context of the caller, keeps the site renderings of the
    recipe texts rendered last (:func:`~validator.render.recipe_reads.kept_table`) for the
    next context that renders them, or another text of the recipe
    (:mod:`validator.render.carry`: reused where what they read holds); without it the
    context uses the store it was built with (:attr:`~validator.context.Context.renderings`)."""
    ctx.memoised("render:recent", lambda: store)
    ctx.memoised("render:carried", lambda: carried)


def _carried(doc: LoadedDocument, ctx: Context) -> Table | None:
    """The carried site renderings of ``doc`` under ``ctx``'s non-hardware inputs: from
    the store ``ctx`` shares (:func:`share_renderings`), else from the one it was built
    with (:attr:`~validator.context.Context.renderings`: the run's, which the texts of
    one recipe that a fix tries, a pull request's base and head, checked in contexts of
    their own, share)."""
    store: OrderedDict[Any, Table] | None = ctx.memoised("render:carried", lambda: None)
    inputs = ctx.memoised("render:inputs",
                          lambda: inputs_digest(ctx.taxonomy, context_strategies(ctx)))
    key = carry_key(doc, inputs)
    if key is None:
        return None
    found: Table = kept_table(ctx.renderings if store is None else store, key)
    return found


def recent_renderings(doc: LoadedDocument, ctx: Context) -> list[Rendered]:
    """The renderings of ``doc`` its rules made, while ``ctx`` keeps them (else none)."""
    recent: OrderedDict[str, list[Rendered]] = ctx.memoised("render:recent", OrderedDict)
    if not recent:  # no rule rendered: no key to make
        return []
    return recent.get(_rendering_key(doc, ctx)) or []


#: How many documents' renderings a context keeps: a recipe's base and head in ``pr``.
#: Each one more keeps an earlier recipe's renderings alive in a ``models/`` run (2.3 MB
#: of peak RSS on corpus ``main``).
KEPT = 2


def problems_by_node(doc: LoadedDocument, ctx: Context, codes: frozenset[str],
                     ) -> dict[tuple[str, str, str], list[tuple[RenderProblem, Rendered]]]:
    """Problems of the given codes over every rendered configuration, grouped by (document,
    pointer, code), each with the renderings that show it, in rendering order."""
    out: dict[tuple[str, str, str], list[tuple[RenderProblem, Rendered]]] = {}
    for rendered in rendered_configurations(doc, ctx):
        for problem in rendered.problems:
            if problem.code in codes:
                key = (problem.document, problem.pointer, problem.code)
                out.setdefault(key, []).append((problem, rendered))
    return out
