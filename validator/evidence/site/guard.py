"""Which folder ``publish --site DIR`` may replace by a catalogue.

The catalogue is swapped in whole (:func:`validator.evidence.site.build.build_site`), so
whatever ``DIR`` held is deleted. ``DIR`` may therefore only be a folder that does not
exist yet, an empty folder, or a catalogue an earlier build made: one holding the marker
file :data:`MARKER` the builder writes, which lists every file of that catalogue, and no
file that the list does not name (a file added to a catalogue by hand is not deleted in
silence either). ``DIR`` may never be, contain, or lie inside a folder the run works in
(the publish folder ``--out``, the snapshot store) and may not be the current folder or
one of its ancestors.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from validator.owned_folder import marker_bytes as owned_marker_bytes
from validator.owned_folder import ownership_problem

MARKER = ".recipe-check-catalogue.json"
"""The file every catalogue holds: ``{"made_by": MADE_BY, "files": [relative paths]}``."""

MADE_BY = "recipe-check publish --site"


def marker_bytes(files: Iterable[str]) -> bytes:
    """The marker of a catalogue holding ``files`` (POSIX paths relative to it)."""
    return owned_marker_bytes(MADE_BY, files)


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def _catalogue_problem(site: Path) -> str | None:
    """``None`` when ``site`` (an existing folder) is empty or an earlier catalogue."""
    return ownership_problem(site, MARKER, MADE_BY, "a catalogue",
                             "building the catalogue there")


def site_problem(site: Path, keep: Iterable[tuple[str, Path]] = ()) -> str | None:
    """Why the catalogue may not replace ``site`` (``None``: it may); ``keep`` are the
    folders the run reads or writes, each with what it is (``("the publish folder",
    out)``, the snapshot store), which ``site`` may not be, contain or lie inside. The
    current folder and its ancestors are refused too.
    """
    real = site.resolve()
    cwd = Path.cwd().resolve()
    if _inside(cwd, real):
        return ("is the current folder" if real == cwd else
                "holds the current folder") + "; building the catalogue there would delete it"
    for what, folder in keep:
        other = folder.resolve()
        if _inside(real, other) or _inside(other, real):
            how = ("is" if real == other else "lies inside" if _inside(real, other)
                   else "holds")
            return (f"{how} {folder}, {what}; building the catalogue there would delete "
                    "it: name a folder of its own for the catalogue")
    if not os.path.lexists(real):
        return None
    if not real.is_dir():
        return "exists and is not a folder; name a new or empty folder for the catalogue"
    return _catalogue_problem(real)
