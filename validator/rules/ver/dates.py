"""``VER009``, ``VER010``: ``meta.date_added`` and ``meta.date_updated`` are dates, in
order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import line_of
from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, rule

# ---------------------------------------------------------------------------------------
# dates

_DATE = re.compile(r"^(?P<d>\d{4}-\d{2}-\d{2})(?:[Tt ][0-9:.]+(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$")


def parse_date(value: object) -> date | None:
    """A ``YYYY-MM-DD`` date (a YAML timestamp's date part), ``None`` otherwise."""
    if not isinstance(value, str):
        return None
    m = _DATE.match(value.strip())
    if m is None:
        return None
    try:
        return date.fromisoformat(m.group("d"))
    except ValueError:
        return None


@rule("VER009", Severity.WARNING, "date_added or date_updated is not a date",
      reads=RECIPE_ONLY)
def dates_are_dates(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``meta.date_added`` ("initial catalog addition; never change") and
    ``meta.date_updated`` ("latest material recipe change") are ``YYYY-MM-DD`` dates; the
    homepage ranks "Latest recipes" by them.

    Failing::

        meta:
          date_updated: "10 April 2026"

    Passing::

        meta:
          date_updated: 2026-04-10

    How to fix: write the date as ``YYYY-MM-DD``."""
    meta = get(doc.data, "meta")
    for key in ("date_added", "date_updated"):
        if isinstance(meta, dict) and key in meta and parse_date(meta[key]) is None:
            yield Hit(f"/meta/{key}", f"meta.{key} {meta[key]!r} is not a YYYY-MM-DD date",
                      "write the date as YYYY-MM-DD, e.g. 2026-04-20")


@rule("VER010", Severity.WARNING, "date_updated is earlier than date_added",
      reads=RECIPE_ONLY)
def updated_after_added(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A recipe cannot have been updated before it was added: ``meta.date_updated`` must be
    on or after ``meta.date_added``.

    Failing::

        meta:
          date_added: 2026-03-02
          date_updated: 2026-02-03

    Passing::

        meta:
          date_added: 2026-03-02
          date_updated: 2026-03-20

    How to fix: correct the swapped or mistyped date; ``date_added`` never changes and
    ``date_updated`` is the latest change."""
    added = parse_date(get(doc.data, "meta", "date_added"))
    updated = parse_date(get(doc.data, "meta", "date_updated"))
    if added is not None and updated is not None and updated < added:
        yield Hit("/meta/date_updated", f"date_updated {updated} is before date_added {added}",
                  "date_updated records the latest change; it is on or after date_added",
                  related=(Related(line_of(doc, "/meta/date_added"),
                                   f"date_added {added}"),))
