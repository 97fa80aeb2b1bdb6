"""Which files a change asks recipe-check to check, and why.

The change is ``git diff <merge-base> <head>`` with rename detection (GitPython's
``Commit.diff``, which runs ``git diff-tree -M``), the same comparison GitHub shows on a
pull request ("three-dot" diff). From it:

* every recipe (``models/**.yaml``/``.yml``) the change adds, modifies or renames is
  checked at the head; deleted recipes are skipped (there is nothing left to check);
* a changed ``taxonomy.yaml``, ``strategies/*.yaml`` or ``kv_store/*.yaml`` that still
  exists at the head is itself checked (its loader and schema findings, and its
  ``vllm serve`` argument lists: :mod:`validator.rules.flag.context_files`);
* when ``taxonomy.yaml`` or a strategy/kv-store file changes, the entries that changed or
  disappeared are worked out (hardware profile ids, strategy names, tasks, KV offload
  options, and the brand/generation groups of changed hardware profiles) and every recipe
  at the head whose data names one of them (as a mapping key or a whole string value) is
  checked too, with the JSON pointer of the reference as the reason. Upstream's site
  build resolves these references by exact string match (``validateHardwareKeys`` and
  friends in ``scripts/build-recipes-api.mjs``), so exact matching is what matters;
* so is every recipe whose rendered commands read a hardware profile, strategy,
  kv-store deployment or KV offload option that changed, was removed or was added,
  although it does not name it (the hardware of its picker, the kv-stores every recipe
  is offered ...): :mod:`validator.pr.affected`, with ``renders with ...`` as the reason;
* so is every recipe whose ``related_recipes`` names a recipe the change deletes or
  renames away (:mod:`validator.pr.related`), with ``names the removed recipe ...``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import git

from validator.context import KV_STORE, MODELS, PLATFORMS, STRATEGIES, TAXONOMY
from validator.errors import UsageError
from validator.globs import FNMATCH, GlobError, compile_glob, unclosed_class
from validator.paths import is_recipe_path
from validator.pr.affected import reaches, renders_with, site_inputs
from validator.pr.entry_changes import (
    EntryChange,
    changed_fields,
    load_data,
    platform_changes,
    taxonomy_changes,
)
from validator.pr.related import loaded_recipes, naming_recipes, removed_recipe_ids
from validator.render.api_paths import quickstart_folder_entries
from validator.rules.prov.unread_files import NOT_UTF8
from validator.rules.ref.quickstart import is_quickstart_path
from validator.source.tree import RecipeTree
from validator.sourcemap import join_pointer

_STATUS = {"A": "added", "M": "modified", "T": "modified", "R": "renamed", "C": "added",
           "D": "deleted"}


@dataclass(frozen=True)
class Change:
    """One file the change touches.

    Attributes:
        status: ``added``, ``modified``, ``renamed``, ``deleted`` or ``unhandled`` (a
            change that cannot be handled, see ``problem``).
        path: path at the head (the old path for ``deleted``).
        old_path: path at the base for ``renamed``, else ``None``.
        problem: why an ``unhandled`` change cannot be handled.
    """

    status: str
    path: str
    old_path: str | None = None
    problem: str | None = None

    def describe(self) -> str:
        """``"modified"``, ``"renamed from models/a.yaml"`` ..."""
        return f"renamed from {self.old_path}" if self.old_path else self.status


@dataclass
class Selection:
    """The outcome: files to check with their reasons, and files skipped with why.

    Attributes:
        recipes: recipe path at the head -> reasons, in path order.
        context_files: changed context file at the head -> reasons.
        skipped: ``(path, why)`` of changed files not checked.
        unhandled: ``(path, why)`` of changed files that cannot be handled; each is an
            error finding (PROV006), so the run fails closed.
        entries: the changed/removed context entries that selected recipes.
        changes: every changed file.
    """

    recipes: dict[str, list[str]] = field(default_factory=dict)
    context_files: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unhandled: list[tuple[str, str]] = field(default_factory=list)
    entries: list[EntryChange] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def context_kind(path: str) -> str | None:
    """``"taxonomy"``, ``"strategy"``, ``"kv_store"``, ``"platforms"`` for a context file
    path, ``"quickstart"`` for a quickstart file (checked as one: the site's build writes it
    into its API, though no recipe reads it), else ``None``."""
    if path == TAXONOMY:
        return "taxonomy"
    if path == PLATFORMS:
        return "platforms"
    if is_quickstart_path(path):
        return "quickstart"
    p = PurePosixPath(path)
    if len(p.parts) == 2 and p.suffix in (".yaml", ".yml"):
        return {STRATEGIES: "strategy", KV_STORE: "kv_store"}.get(p.parts[0])
    return None


def _decode_path(raw: bytes) -> tuple[str, str | None]:
    """``(path, why it cannot be handled or None)`` for a path from git's ``-z`` output."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return (raw.decode("utf-8", "backslashreplace"),
                NOT_UTF8)


def diff_changes(repo: git.Repo, base: str, head: str) -> list[Change]:
    """Files changed from commit ``base`` to commit ``head`` (renames detected), by path.

    The list comes from ``git diff-tree -r -z -M --name-status``: NUL-separated, so any
    byte a file name may hold (newline, tab, quotes, escapes) is read as part of the name
    and no later file is lost. A change git reports that cannot be handled (a name that is
    not UTF-8, an unknown status letter) is a :class:`Change` of status ``unhandled``;
    :func:`select` turns it into an error, never a silent skip. A name that is not UTF-8
    is such a problem only where a check would read the file (a recipe or context path,
    in its ``\\xff`` form): ``check`` lists no other file, and a PR is not failed for
    one it does not check (its ``docs/`` picture, say).

    Raises:
        git.GitCommandError, ValueError: a revision is not in ``repo``.
    """
    base_sha = str(repo.commit(base).hexsha)
    head_sha = str(repo.commit(head).hexsha)
    raw = repo.git.execute(["git", "diff-tree", "-r", "-z", "-M", "--name-status",
                            "--no-color", base_sha, head_sha], stdout_as_string=False,
                           strip_newline_in_stdout=False)
    fields = bytes(raw).split(b"\0")
    if fields and fields[-1] == b"":
        fields.pop()
    out: list[Change] = []
    i = 0
    while i < len(fields):
        letter = fields[i].decode("ascii", "replace")[:1]
        count = 2 if letter in ("R", "C") else 1
        names = [_decode_path(f) for f in fields[i + 1:i + 1 + count]]
        i += 1 + count
        problems = [why for _, why in names if why]
        status = _STATUS.get(letter)
        if status is None:
            problems.append(f"git reports change status {letter!r}")
        if len(names) < count:
            problems.append("git's change list ended early")
        if not names:
            out.append(Change("unhandled", "<unknown path>", None, "; ".join(problems)))
            continue
        path = names[-1][0]
        old_path = names[0][0] if count == 2 else None
        if status is not None and len(names) == count and not any(
                is_recipe_path(name) or context_kind(name) for name, _ in names):
            problems = []  # an undecodable name no check reads: passed as any such file
        if problems or status is None:
            out.append(Change("unhandled", path, old_path, "; ".join(problems)))
        elif status == "renamed":
            out.append(Change(status, path, old_path))
        else:
            out.append(Change(status, path))
    return sorted(out, key=lambda c: c.path)


def check_patterns(patterns: Sequence[str]) -> None:
    """Refuse a ``--paths`` pattern that can only be a mistake, rather than let it match
    nothing and pass: a ``[`` that opens no class, or a reversed range (``[z-a]``).

    Raises:
        UsageError: naming the pattern and what is wrong with it.
    """
    for pat in patterns:
        pat = pat.strip().removeprefix("./")
        at = unclosed_class(pat, FNMATCH)
        if at is not None:
            raise UsageError(f"--paths {pat!r}: the '[' at column {at + 1} opens a character "
                             "class that is never closed (write '[[]' for a literal '[')")
        try:
            compile_glob(pat, FNMATCH)
        except GlobError as exc:
            raise UsageError(f"--paths {exc}") from exc


def matches(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` falls under one of ``patterns``: a folder prefix (``models/``,
    ``models/zai-org``) or an :mod:`fnmatch` pattern (``models/*/GLM-*.yaml``, matched by
    :mod:`validator.globs` in linear time). An empty sequence matches everything."""
    if not patterns:
        return True
    for pat in patterns:
        pat = pat.strip()
        if pat in ("", ".", "./"):
            return True
        pat = pat.removeprefix("./")
        if any(ch in pat for ch in "*?["):
            if compile_glob(pat, FNMATCH).match(path):
                return True
        elif path == pat.rstrip("/") or path.startswith(pat.rstrip("/") + "/"):
            return True
    return False


# -- strategy and kv-store entry changes (taxonomy and platforms: validator.pr.entry_changes) --


def named_file_changes(changes: Sequence[Change], base: RecipeTree,
                       head: RecipeTree) -> list[EntryChange]:
    """Strategies and kv-store options that a change modified, removed or added: by file
    stem, and by the ``name`` field the site keys them by where that differs. A change
    of comments or layout only is no change of the entry."""
    out: list[EntryChange] = []
    for ch in changes:
        candidates = [(ch.path, "removed" if ch.status == "deleted" else
                       "added" if ch.status in ("added", "renamed") else "changed")]
        if ch.old_path:
            candidates.append((ch.old_path, "removed"))  # the old name is gone
        for path, change in candidates:
            kind = context_kind(path)
            if kind not in ("strategy", "kv_store"):
                continue
            label = "strategy" if kind == "strategy" else "KV store"
            old, new = load_data(base, path), load_data(head, path)
            if change == "changed" and old == new:
                continue
            fields = changed_fields(old[1], new[1]) if change == "changed" else ()
            names = [PurePosixPath(path).stem]
            names += [n for _present, data in (old, new) if isinstance(data, dict)
                      and isinstance(n := data.get("name"), str) and n not in names]
            out += [EntryChange(label, name, change, path, fields) for name in names]
    return out


def references(data: Any, names: set[str], pointer: str = "") -> Iterator[tuple[str, str]]:
    """``(name, pointer)`` for every mapping key or whole string value in ``data`` that
    equals one of ``names`` (pointer of the key's value, or of the string)."""
    if isinstance(data, dict):
        for key, value in data.items():
            child = join_pointer(pointer, key)
            if key in names:
                yield key, child
            yield from references(value, names, child)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from references(value, names, join_pointer(pointer, i))
    elif isinstance(data, str) and data in names:
        yield data, pointer


def select(changes: Sequence[Change], base: RecipeTree, head: RecipeTree,
           patterns: Sequence[str] = ()) -> Selection:
    """Pick the files to check for ``changes`` (base = the merge base's tree).

    ``patterns`` limits the recipes considered (see :func:`matches`); context files are
    always considered.
    """
    sel = Selection(changes=list(changes))
    context_changed = _sort_changed_files(sel, changes, patterns)
    _add_related_recipes(sel, changes, head, patterns)
    if not context_changed:
        return sel
    entries: list[EntryChange] = []
    if any(ch.path == TAXONOMY or ch.old_path == TAXONOMY for ch in changes):
        entries += taxonomy_changes(base, head)
    entries += named_file_changes(changes, base, head)
    if any(PLATFORMS in (ch.path, ch.old_path) for ch in changes):
        entries += platform_changes(base, head)
    sel.entries = entries
    _describe_entry_changes(sel.context_files, entries)
    _add_affected_recipes(sel, entries, base, head, patterns)
    return sel


def _add_related_recipes(sel: Selection, changes: Sequence[Change], head: RecipeTree,
                         patterns: Sequence[str]) -> None:
    """Add every recipe at the head whose ``related_recipes`` names a recipe the change
    deletes or renames away (:mod:`validator.pr.related`), with the reasons."""
    gone = [ch.old_path or ch.path for ch in changes
            if ch.status == "deleted" or (ch.status == "renamed" and ch.old_path)]
    removed = removed_recipe_ids(gone, head)
    if not removed:
        return
    paths = [p for p in head.list(MODELS) if is_recipe_path(p) and matches(p, patterns)]
    for path, reasons in naming_recipes(removed, head, paths).items():
        sel.recipes.setdefault(path, []).extend(reasons)
    sel.recipes = dict(sorted(sel.recipes.items()))


def _sort_changed_files(sel: Selection, changes: Sequence[Change],
                        patterns: Sequence[str]) -> bool:
    """Sort each changed file into ``sel``'s recipes, context files, skipped or unhandled
    files; whether a context file (taxonomy, strategy, kv-store) changed."""
    context_changed = False
    for ch in changes:
        kind = context_kind(ch.path) or (context_kind(ch.old_path) if ch.old_path else None)
        if ch.status == "unhandled":
            sel.unhandled.append((ch.path, ch.problem or "cannot be handled"))
        elif ch.status != "deleted" and quickstart_folder_entries([ch.path]):
            sel.context_files.setdefault(quickstart_folder_entries([ch.path])[0],
                                         []).append(ch.describe())  # REF028: a folder
        elif is_recipe_path(ch.path):
            if ch.status == "deleted":
                sel.skipped.append((ch.path, "deleted"))
            elif not matches(ch.path, patterns):
                sel.skipped.append((ch.path, "outside the paths checked"))
            else:
                sel.recipes.setdefault(ch.path, []).append(ch.describe())
        elif kind is not None:
            context_changed = context_changed or kind != "quickstart"  # no recipe reads one
            if ch.status == "deleted" or context_kind(ch.path) is None:
                sel.skipped.append((ch.old_path or ch.path, "deleted"
                                    if ch.status == "deleted" else f"renamed to {ch.path}"))
            else:
                sel.context_files.setdefault(ch.path, []).append(ch.describe())
        else:
            sel.skipped.append((ch.path, "not a recipe, taxonomy, strategy or kv-store file"))
    return context_changed


def _describe_entry_changes(context_files: dict[str, list[str]],
                            entries: Sequence[EntryChange]) -> None:
    """Add to each changed context file's reasons the entries it changed, removed, added."""
    for path, reasons in context_files.items():
        for change in ("changed", "removed", "added"):
            names = [f"{e.kind} {e.name!r}" + (f" ({', '.join(e.fields)})" if e.fields else "")
                     for e in entries if e.source == path and e.change == change]
            if names:
                reasons.append(f"{change}: {', '.join(names)}")


def _add_affected_recipes(sel: Selection, entries: Sequence[EntryChange], base: RecipeTree,
                          head: RecipeTree, patterns: Sequence[str]) -> None:
    """Add every recipe at the head that names a changed or removed entry, or whose
    rendered commands read one, with the reasons; sort the recipes by path."""
    by_name: dict[str, list[EntryChange]] = {}
    for e in entries:
        if e.change != "added":
            by_name.setdefault(e.name, []).append(e)
    rendered = [e for e in entries if RENDERED_KINDS.get(e.kind) == (e.source == TAXONOMY)]
    if not by_name and not rendered:
        return
    sites = (site_inputs(base), site_inputs(head)) if rendered else ()
    changed = set(sel.recipes)  # checked in full anyway: "modified" says why
    listed = [p for p in head.list(MODELS) if is_recipe_path(p) and matches(p, patterns)]
    for path, doc in loaded_recipes(head, listed):
        reasons, cited = _reference_reasons(doc.data, by_name)
        if rendered and path not in changed:
            found = reaches(doc.data, sites)
            reasons += [f"renders with {e.describe()}" for e in rendered if e not in cited
                        and renders_with(e.kind, e.name, e.change, e.fields, found)]
        if reasons:
            sel.recipes.setdefault(path, []).extend(reasons)
    sel.recipes = dict(sorted(sel.recipes.items()))


RENDERED_KINDS = {"hardware profile": True, "KV offload option": True, "strategy": False,
                  "KV store": False}
"""Entry kinds the rendered commands read (:mod:`validator.pr.affected`) -> whether the
taxonomy defines them (else a strategy or kv-store file does; the taxonomy's own list of
strategy names is not read by the renderer)."""


def _reference_reasons(data: Any, by_name: dict[str, list[EntryChange]]
                       ) -> tuple[list[str], set[EntryChange]]:
    """Why a recipe's data selects it: each changed or removed entry it names, and those
    entries."""
    seen: dict[str, list[str]] = {}
    for name, pointer in references(data, set(by_name)):
        seen.setdefault(name, []).append(pointer)
    out, cited = [], set()
    for name, pointers in seen.items():
        more = f" and {len(pointers) - 1} more place(s)" if len(pointers) > 1 else ""
        out += [f"references {e.describe()} at {pointers[0]}{more}" for e in by_name[name]]
        cited.update(by_name[name])
    return out, cited
