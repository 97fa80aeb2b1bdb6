"""The files of a recipes root beside its recipes and context documents that a run checks:
``platforms.yaml`` and the quickstart files (``quickstart/*.yaml``, which the site's build
writes into its API). A part of :class:`~validator.session.Session`, kept apart so the
session stays one screenful of driver code."""

from __future__ import annotations

import os
import sys

from validator.checker import Checker, DocumentResult, RunResult
from validator.context import KV_STORE, PLATFORMS, STRATEGIES, TAXONOMY, Settings, context_paths
from validator.load import load_yaml
from validator.paths import undecodable_name
from validator.render.api_paths import QUICKSTART, quickstart_folder_entries
from validator.rules.prov.unread_files import NOT_UTF8
from validator.rules.ref.quickstart import quickstart_folder_finding, quickstart_paths
from validator.source.provenance import Provenance
from validator.source.tree import LocalTree, RecipeTree

CONTEXT_FOLDERS = (STRATEGIES, KV_STORE)
ROOT_LINKS = (TAXONOMY, *CONTEXT_FOLDERS)
"""What :meth:`RootFileChecks._check_root_links` refuses when it is a link leaving the root."""


class RootFileChecks:
    """The checks of ``platforms.yaml`` and ``quickstart/``; the session provides
    :attr:`result`, :attr:`settings`, :meth:`_read` and :meth:`unhandled`."""

    result: RunResult
    settings: Settings

    def _read(self, tree: RecipeTree, path: str) -> tuple[bytes, Provenance] | None:
        raise NotImplementedError

    def unhandled(self, tree: RecipeTree, path: str, why: str, what: str = "changed file",
                  hint: str | None = None) -> DocumentResult:
        raise NotImplementedError

    def _check_platforms(self, tree: RecipeTree, checker: Checker) -> None:
        """``platforms.yaml`` of a recipes root, as the other context files: reported only
        when it has findings (its schema, links and install snippets); one that is there
        but no regular file inside the root (a link leaving it, a FIFO) is ``PROV005``, as
        the site's build would follow it."""
        there = tree.exists(PLATFORMS) or (isinstance(tree, LocalTree) and os.path.lexists(
            tree.root / PLATFORMS))
        if not tree.exists(TAXONOMY) or not there:
            return
        self._check_root_file(tree, PLATFORMS, "platforms", checker)

    def _check_quickstart(self, tree: RecipeTree, checker: Checker) -> None:
        """The quickstart files of a recipes root (``quickstart/*.yaml``, which the site's
        build writes into its API), each reported only when it has findings."""
        for entry in quickstart_folder_entries(tree.list(QUICKSTART)):
            self._quickstart_folder(tree, entry)
        for path in quickstart_paths(tree.list(QUICKSTART)):
            if (escaped := undecodable_name(path)) is not None:  # as for recipes (PROV006)
                self.unhandled(tree, escaped, NOT_UTF8, "file")
                continue
            self._check_root_file(tree, path, "quickstart", checker)

    def _check_root_links(self, tree: RecipeTree) -> bool:
        """``PROV005`` on ``taxonomy.yaml``, ``strategies/`` or ``kv_store/`` of a local
        root when it is a link leaving the root (or one that cannot be resolved), and on
        each strategy or kv-store document that is such a link or dangles: not followed,
        so the run fails naming it (also when only recipes are named, whose strategy it
        removes) rather than reading the root as one without it. Whether
        ``taxonomy.yaml`` was such a link."""
        if not isinstance(tree, LocalTree):
            return False
        refused = False
        for name in ROOT_LINKS:
            why = tree.refused_link(name)
            if why is not None and not any(d.path == name for d in self.result.documents):
                self.result.documents.append(DocumentResult.refused(name, why, tree.revision))
                refused = refused or name == TAXONOMY
        for folder in CONTEXT_FOLDERS:  # a strategy or kv-store file linked out of the root
            for path, why in tree.refused_links(folder).items():
                if undecodable_name(path) is None:  # else PROV006 names it
                    self.result.documents.append(
                        DocumentResult.refused(path, why, tree.revision))
        return refused

    def _warn_without_taxonomy(self, tree: RecipeTree, skipped: list[str],
                               refused: bool) -> None:
        """The warning of a root without a readable taxonomy: the rules ``skipped``."""
        why = (": its taxonomy.yaml is a link leaving the root, not followed (PROV005)"
               if refused else " has no taxonomy.yaml, so it is not a recipes root")
        print(f"recipe-check: warning: {tree.label}{why}: the rules that look names up in "
              "the root's taxonomy, strategies/ and models/ were skipped "
              f"({', '.join(skipped) or 'none selected'})", file=sys.stderr)

    def _check_undecodable_context(self, tree: RecipeTree) -> None:
        """``PROV006`` on each strategy or kv-store file whose name is not valid UTF-8:
        it is not read (:func:`validator.context.build_context` leaves it out), as a
        recipe of such a name is not, and the run fails rather than passing it by."""
        for folder in CONTEXT_FOLDERS:
            for path in context_paths(tree, folder):
                if (escaped := undecodable_name(path)) is not None:
                    self.unhandled(tree, escaped, NOT_UTF8, "file")

    def _check_root_file(self, tree: RecipeTree, path: str, kind: str,
                         checker: Checker) -> None:
        """Read ``path`` (a file it cannot read is reported by :meth:`_read`), load it and
        check it as a context document of ``kind``."""
        read = self._read(tree, path)
        if read is not None:
            doc = load_yaml(read[0], path, max_bytes=self.settings.max_bytes)
            checker.check_context_document(doc, kind, self.result)

    def _quickstart_folder(self, tree: RecipeTree, entry: str) -> None:
        """``REF028`` on ``entry``, a folder named as a quickstart file (the site's build
        stops there)."""
        self.result.documents.append(DocumentResult(
            entry, Provenance(entry, "", "", commit=tree.revision),
            [quickstart_folder_finding(entry)], "quickstart"))
