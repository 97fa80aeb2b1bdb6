"""``REF027``: a strategy or kv-store file claims a name that is not its own (emitted by
:meth:`validator.checker.Checker.context_findings` on the file itself).

The site's build files every ``strategies/*.yaml`` and ``kv_store/*.yaml`` under its
``name`` field, in one map the renderer looks each strategy and deployment up in (a later
file replaces an earlier one, kv-store files after strategies), and writes
``strategies/<name>.json``. So a new file whose ``name`` is an existing strategy's
silently replaces that strategy in the commands of every recipe rendering it, and its
file name appears nowhere. Every file of the recipes repository, at every commit and
pull-request head, has ``name`` equal to its file name (the schemas say so), so any other
``name`` is an error. The rendering (:meth:`~validator.context.Context.strategy_document`)
and the rules follow the site: what the file puts into those commands is judged on the
recipes and reported on the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from validator.context import Context, claimed_name
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.paths import name_bytes
from validator.rules.metadata import Hit, declare

NAME_CLAIM = declare("REF027", Severity.ERROR,
                     "A strategy or kv-store file's name is not its file name", """
    The ``name`` of ``strategies/<file>.yaml`` and ``kv_store/<file>.yaml`` must be
    ``<file>``, and no two such files may claim one name. The site keys strategies and
    kv-store deployments by ``name`` (kv-store files after strategies, a later file
    replacing an earlier one), so a file claiming another's name replaces it in the
    rendered commands of every recipe using it, under a file name no recipe names.
    Reported on the file's ``name`` line; a ``# recipe-check:`` comment in the file does
    not silence it.

    Failing (``strategies/zz_fast.yaml``)::

        name: single_node_tp

    Passing (``strategies/zz_fast.yaml``)::

        name: zz_fast

    How to fix: set ``name`` to the file name (a new strategy), or change the existing
    file that owns the name.
    """)


def _site_order(ctx: Context) -> list[LoadedDocument]:
    """The strategy and kv-store documents in the order the site's build reads them."""
    def ordered(docs: Iterable[LoadedDocument]) -> list[LoadedDocument]:
        return sorted(docs, key=lambda d: name_bytes(d.path))
    return ordered(ctx.strategies.values()) + ordered(ctx.kv_stores.values())


def name_claim_hits(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``REF027`` hits of the strategy or kv-store document ``doc`` of ``ctx``: its
    ``name`` differs from its file name, or another file claims the same name."""
    data = doc.data
    if not doc.ok or not isinstance(data, dict) or data.get("name") is None:
        return  # a missing name is the schema's (SCHEMA002)
    name = claimed_name(doc)
    stem = _stem(doc.path)
    order = _site_order(ctx)
    rivals = [d.path for d in order if d.path != doc.path and claimed_name(d) == name]
    kept = next((d.path for d in reversed(order) if claimed_name(d) == name), doc.path)
    if name != stem:
        owner = f"replacing {', '.join(rivals)} " if rivals else ""
        yield Hit("/name", f"name {name!r} is not this file's name {stem!r}: the site files "
                  f"it as {name!r}, {owner}in the commands of every recipe using {name!r}",
                  f"set name: {stem} (a new strategy), or edit the file that owns {name!r}")
        return
    twins = [p for p in rivals if _stem(p) == name]  # a rival with a wrong name is its own
    if twins:
        yield Hit("/name", f"name {name!r} is also claimed by {', '.join(twins)}: the site "
                  f"renders {kept} for every recipe using {name!r}",
                  "give each file its own name, equal to its file name")


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
