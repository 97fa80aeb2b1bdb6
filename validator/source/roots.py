"""Where a run's folders are, found with the standard library only: the recipes root
above a path, and the cache folder. The command line's warm path
(:mod:`validator.run_cache`) finds them before any other module is imported."""

from __future__ import annotations

from pathlib import Path

from validator.paths import default_cache_dir as default_cache_dir  # re-exported

TAXONOMY = "taxonomy.yaml"
"""The taxonomy file at the recipes root."""
STRATEGIES = "strategies"
"""The folder of strategy files at the recipes root."""
PLATFORMS = "platforms.yaml"
"""The platforms of the deploy dialog at the recipes root: a context file no rendering
reads (the site copies it to ``platforms.json``), checked on its own (schema, links,
install snippets); REF026 reads its ids."""


def find_root(start: Path) -> Path | None:
    """Walk up from ``start`` to the recipes root: the first folder holding both
    ``taxonomy.yaml`` and ``strategies/``. ``None`` when there is none."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / TAXONOMY).is_file() and (folder / STRATEGIES).is_dir():
            return folder
    return None
