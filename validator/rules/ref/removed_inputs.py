"""``REF030``: a change removes a file or folder the site's build reads (emitted by
``recipe-check pr`` on the removed path).

The site's build (``scripts/build-recipes-api.mjs``) reads ``taxonomy.yaml`` and every
``strategies/*.yaml`` and ``kv_store/*.yaml``; without the taxonomy or one of the two
folders it stops, and ``render --api-out`` refuses such a tree the same way. No recipe
names these paths, so a pull request deleting one changes no recipe's findings in a way
that says what happened: the findings that looked names up in the taxonomy are simply no
longer made. ``pr`` reports the removal itself, on the removed path.
"""

from __future__ import annotations

from collections.abc import Sequence

from validator.context import KV_STORE, STRATEGIES, TAXONOMY
from validator.findings import Finding, Severity
from validator.rules.metadata import declare

REMOVED_INPUT = declare("REF030", Severity.ERROR,
                        "A change removes a file or folder the site's build reads", """
    A pull request deletes (or renames away) ``taxonomy.yaml``, or every file of
    ``strategies/`` or ``kv_store/``. The site's build reads all three and stops without
    them, so the recipes site cannot be built from the head; and no recipe is judged
    against a taxonomy that is gone. Reported by ``recipe-check pr`` on the removed path
    (``taxonomy.yaml``, ``strategies/``, ``kv_store/``); deleting one strategy or
    kv-store file is judged on the recipes that use it instead (``REF002``,
    ``REF003``). The findings of the merge base that the head no longer makes because
    the context they read is gone are listed as hidden, not counted as fixed.

    Failing: a pull request running ``git rm -r kv_store``.
    Passing: the same pull request keeping ``kv_store/`` (or moving its files within it).

    How to fix: restore the file or folder.
    """)

SITE_INPUTS: tuple[tuple[str, str], ...] = (
    (TAXONOMY, "taxonomy"), (STRATEGIES + "/", "strategy"), (KV_STORE + "/", "kv_store"))
"""The paths the site's build cannot do without (a folder with its ``/``), with the kind
of context file each is."""

_WHAT = {TAXONOMY: "its hardware profiles, tasks and KV offload options",
         STRATEGIES + "/": "every strategies/*.yaml",
         KV_STORE + "/": "every kv_store/*.yaml"}


def removed_input_finding(path: str) -> Finding:
    """The ``REF030`` error on ``path``, one of :data:`SITE_INPUTS`."""
    return Finding(rule=REMOVED_INPUT.id, severity=Severity.ERROR, path=path, pointer="",
                   line=1, column=1,
                   message=f"{path} is removed, but the site's build reads it ({_WHAT[path]}):"
                   " the recipes site cannot be built, and the recipes are not judged "
                   "against it",
                   hint=f"restore {path}")


def describe(removed: Sequence[str]) -> str:
    """``"not judged: the head removes taxonomy.yaml, which the site's build reads"``."""
    return (f"not judged: the head removes {' and '.join(removed)}, which the site's build "
            "reads")
