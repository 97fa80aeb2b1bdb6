"""Check what a pull request changes, at its head revision.

Files are read from git objects (:class:`~validator.source.git.GitTree`), never from a
working tree, so nothing of the pull request is executed or even checked out: the head's
recipes are checked against the head's own ``taxonomy.yaml`` and ``strategies/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from validator.checker import Checker, DocumentResult, RunResult
from validator.config import Config
from validator.context import MODELS, Settings
from validator.errors import RecipeCheckError
from validator.paths import is_recipe_path
from validator.pr import baseline
from validator.pr.offload_choice import chosen_by_change, chosen_options
from validator.pr.select import (
    Selection,
    check_patterns,
    context_kind,
    diff_changes,
    matches,
    select,
)
from validator.pr.user_changes import user_changes
from validator.rule_index import check_rules
from validator.rules.metadata import Rule
from validator.rules.ref.removed_inputs import SITE_INPUTS, removed_input_finding
from validator.session import Session
from validator.source.git import GitTree, present_commit
from validator.source.git_objects import unsupported_object_format
from validator.source.provenance import Provenance
from validator.source.tree import SourceError
from validator.source.verify import VerificationError
from validator.suppress import DirectiveKey, directive_keys

_GITHUB_REMOTE = re.compile(r"github\.com[:/]+([\w.-]+/[\w.-]+?)(?:\.git)?/?$")


class PrError(RecipeCheckError):
    """The repository or a revision cannot be used (message names which, and why)."""


@dataclass(frozen=True)
class Revisions:
    """The commits one PR-mode run compares.

    Attributes:
        head: full commit id checked.
        base: full commit id of the base as given, or ``None`` (every recipe is checked).
        merge_base: ``git merge-base base head``, or ``None`` without a base.
        head_given, base_given: the revisions as the user or the event named them.
    """

    head: str
    base: str | None
    merge_base: str | None
    head_given: str
    base_given: str | None


def open_repository(folder: Path) -> git.Repo:
    """The git repository whose work tree (or git dir) is ``folder``.

    Raises:
        PrError: ``folder`` is not a git repository, or not one in SHA-1 object format
            (:func:`validator.source.git_objects.unsupported_object_format`).
    """
    try:
        repo = git.Repo(folder)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise PrError(f"{folder}: not a git repository (pass --repo DIR)") from exc
    problem = unsupported_object_format(folder)
    if problem is not None:
        raise PrError(f"{folder}: {problem}")
    return repo


def _resolve(repo: git.Repo, rev: str, what: str) -> str:
    try:
        found = present_commit(repo, rev)
    except SourceError as exc:
        raise PrError(f"{what} revision: {exc}") from exc
    if found is None:
        hint = ""
        if Path(repo.git_dir, "shallow").exists():
            hint = (" (the clone is shallow: check out with 'fetch-depth: 0' so that the "
                    "base and head commits are present)")
        raise PrError(f"{what} revision {rev!r} is not a commit of {repo.git_dir}{hint}")
    return found


def resolve_revisions(repo: git.Repo, base: str | None, head: str) -> Revisions:
    """Full commit ids of ``base`` and ``head`` and their merge base.

    Raises:
        PrError: a revision is unknown or the two have no common ancestor.
    """
    head_sha = _resolve(repo, head, "head")
    if base is None:
        return Revisions(head_sha, None, None, head, None)
    base_sha = _resolve(repo, base, "base")
    bases = repo.merge_base(base_sha, head_sha)
    if not bases:
        raise PrError(f"{base} and {head} have no common ancestor")
    return Revisions(head_sha, base_sha, str(bases[0].hexsha), head, base)


def repository_name(repo: git.Repo, env: Mapping[str, str]) -> str | None:
    """``owner/name`` of the repository: ``GITHUB_REPOSITORY``, else the ``origin`` remote
    when it is a GitHub URL, else ``None``."""
    if env.get("GITHUB_REPOSITORY"):
        return env["GITHUB_REPOSITORY"]
    try:
        url = repo.remotes.origin.url
    except (AttributeError, IndexError, ValueError):
        return None
    m = _GITHUB_REMOTE.search(str(url))
    return m.group(1) if m else None


def check_selection(sel: Selection, tree: GitTree, settings: Settings,
                    rules: Sequence[Rule] | None = None, config: Config | None = None,
                    where: str = "the head", base: GitTree | None = None) -> Session:
    """Check the selected files at ``tree`` against its own context, with the run's
    configuration, through the one driver (:class:`validator.session.Session`; the head
    and the merge base are checked the same way). The session's ``result`` holds the
    findings, its ``checked`` the bytes :func:`suggested_patches` needs.

    A file that is gone at ``tree`` is moved to ``sel.skipped`` with the reason; one that
    is refused (symbolic link, too large) gets a ``PROV005`` error, as in ``check``.
    ``base``: the merge base of the head ``tree``: only the suppression comments its
    files have silence findings (:func:`base_comments`).
    """
    session = Session(settings, check_rules() if rules is None else rules, config=config,
                      trusted_comments=None if base is None else base_comments(sel, base))
    contexts = [(p, context_kind(p) or "taxonomy") for p in sel.context_files]
    sel.skipped += session.check_files(tree, sel.recipes, contexts, sel.unhandled, where)
    return session


def suggested_patches(result: RunResult,
                      checked: Mapping[str, tuple[Checker, bytes]]) -> dict[str, str]:
    """path -> the unified diff of the safe fixes of that recipe's *new* findings (empty
    documents left out): what the job summary suggests to the author of the change."""
    from validator.fix.engine import suggested_patch

    out: dict[str, str] = {}
    for doc in result.documents:
        new = [f for f in doc.findings if f.baseline == "new"]
        if not new or doc.path not in checked:
            continue
        checker, data = checked[doc.path]
        try:
            patch = suggested_patch(checker, doc.path, data, new)
        except Exception as exc:  # a bug in a fix must not lose the PR report
            result.internal_errors.append(f"suggested fixes for {doc.path}: {exc!r}")
            continue
        if patch:
            out[doc.path] = patch
    return out


def base_selection(sel: Selection, base_tree: GitTree) -> tuple[Selection, dict[str, str]]:
    """The files of ``sel`` as they were at the merge base (renamed files under their old
    name; files the change added are left out), and head path -> base path."""
    renamed = {ch.path: ch.old_path for ch in sel.changes if ch.old_path}
    out = Selection()
    paths: dict[str, str] = {}
    for table, base_table in ((sel.recipes, out.recipes),
                              (sel.context_files, out.context_files)):
        for path in table:
            old = renamed.get(path) or path
            if base_tree.exists(old):
                base_table[old] = ["baseline"]
                paths[path] = old
    return out, paths


def _diff_order(sel: Selection, base_paths: dict[str, str]) -> list[tuple[str, str | None]]:
    """Recipes to compare for the summary: changed files first, then those selected by a
    changed taxonomy/strategy entry."""
    changed = {ch.path for ch in sel.changes}
    order = sorted(sel.recipes, key=lambda p: (p not in changed, p))
    return [(p, base_paths.get(p)) for p in order]


def base_comments(sel: Selection, base: GitTree) -> Callable[[str], frozenset[DirectiveKey]]:
    """Head path -> the suppression comments of its file at ``base`` (a renamed file's
    under its old name; none for a file the change adds)."""
    renamed = {ch.path: ch.old_path for ch in sel.changes if ch.path and ch.old_path}

    def comments(path: str) -> frozenset[DirectiveKey]:
        try:
            return directive_keys(base.read(renamed.get(path, path)))
        except (OSError, SourceError):
            return frozenset()

    return comments


def run_pr(folder: Path, base: str | None, head: str, *, settings: Settings | None = None,
           patterns: Sequence[str] = (), env: Mapping[str, str] | None = None,
           rules: Sequence[Rule] | None = None, fail_on: str = "new",
           config: Config | None = None, user_diffs: bool = False) -> RunResult:
    """PR mode end to end: resolve, diff against the merge base, select, check at the
    head and at the merge base, and mark each finding new, existing or fixed
    (:mod:`validator.pr.baseline`).

    Without ``base`` every recipe under ``patterns`` at ``head`` is checked (every finding
    is then new). The result's ``context["pr"]`` records the revisions, each checked file
    with the reasons it was checked, the files skipped and the changed taxonomy/strategy
    entries; ``context["baseline"]`` the counts. ``fail_on`` is ``"new"`` (only errors
    the change introduces fail) or ``"all"``. With ``user_diffs`` the result's
    ``user_changes`` holds what the change does to the checked recipes' users.

    Raises:
        PrError: bad repository or revisions.
        SourceError: a context file of the head cannot be read.
    """
    check_patterns(patterns)
    env = os.environ if env is None else env
    settings = settings or Settings(rendered=True)  # the defaults of `recipe-check pr`
    repo = open_repository(folder)
    try:
        revs = resolve_revisions(repo, base, head)
        name = repository_name(repo, env)
        label = name or Path(repo.working_tree_dir or repo.git_dir).name
        head_tree = GitTree(label, revs.head, None, repo, str(folder))
        if revs.merge_base is None:
            sel = _every_recipe(head_tree, patterns)
            result = check_selection(sel, head_tree, settings, rules, config).result
            baseline.mark(result, RunResult(), {})
            result.context["baseline"]["compared_with"] = "nothing (no base revision)"
        else:
            base_tree = GitTree(label, revs.merge_base, None, repo, str(folder))
            sel = select(diff_changes(repo, revs.merge_base, revs.head), base_tree, head_tree,
                         patterns)
            head_run = check_selection(sel, head_tree, settings, rules, config,
                                       base=base_tree)
            result = head_run.result
            _compare_with_base(result, head_run, sel, (base_tree, head_tree), settings,
                               rules, config, user_diffs=user_diffs)
        result.fail_on = fail_on
        result.context["pr"] = pr_context(revs, sel, name, env)
        return result
    finally:
        repo.close()


def _every_recipe(head_tree: GitTree, patterns: Sequence[str]) -> Selection:
    """Without a base revision: every recipe under ``patterns`` at the head (and every
    path under ``models/`` that is not a file, for PROV005)."""
    sel = Selection()
    listed = head_tree.list(MODELS) + head_tree.not_files(MODELS)  # those: PROV005
    for path in sorted(listed):
        if is_recipe_path(path) and matches(path, patterns):
            sel.recipes[path] = ["no base revision: every recipe is checked"]
    return sel


def _compare_with_base(result: RunResult, head_run: Session, sel: Selection,
                       trees: tuple[GitTree, GitTree], settings: Settings,
                       rules: Sequence[Rule] | None, config: Config | None, *,
                       user_diffs: bool) -> None:
    """Check the merge base's counterparts of the selected files and mark each finding of
    ``result`` (the head's) new, existing or fixed (``trees``: the merge base's and the
    head's); with ``user_diffs`` add the suggested
    patches and what the change does to the recipes' users.

    Raises:
        PrError: the merge base cannot be checked.
    """
    base_tree, head_tree = trees
    base_sel, base_paths = base_selection(sel, base_tree)
    try:
        base_run = check_selection(base_sel, base_tree, settings, rules, config,
                                   where="the merge base")
    except (SourceError, VerificationError) as exc:
        raise PrError(f"the merge base {base_tree.commit[:12]} cannot be checked "
                      f"as the baseline: {exc}") from exc
    touched = {p for ch in sel.changes for p in (ch.path, ch.old_path) if p}
    removed = removed_inputs(head_run, base_tree, head_tree)
    base_result = base_run.result
    options = chosen_options(sel.entries)  # their unchosen findings: errors (both sides)
    chosen_by_change(result, options, head_run.policy(head_tree))
    chosen_by_change(base_result, options, base_run.policy(base_tree))
    baseline.mark(result, base_result, base_paths, touched,
                  {path: data for path, (_c, data) in head_run.checked.items()}, removed,
                  {path: data for path, (_c, data) in base_run.checked.items()})
    if user_diffs:
        result.suggested_patches = suggested_patches(result, head_run.checked)
        result.user_changes = user_changes(base_tree, head_tree,
                                           _diff_order(sel, base_paths))
    result.internal_errors += [f"at the merge base: {e}" for e in base_result.internal_errors]


def _present(tree: GitTree, path: str) -> bool:
    return bool(tree.list(path.rstrip("/"))) if path.endswith("/") else tree.exists(path)


def removed_site_inputs(base: GitTree, head: GitTree) -> list[tuple[str, str]]:
    """``(path, kind)`` of each of :data:`~validator.rules.ref.removed_inputs.SITE_INPUTS`
    that ``base`` has and ``head`` does not (a folder: no file left in it)."""
    return [(p, k) for p, k in SITE_INPUTS if _present(base, p) and not _present(head, p)]


def removed_inputs(head_run: Session, base_tree: GitTree, head_tree: GitTree) -> list[str]:
    """The files and folders the site's build reads that the head removes
    (:func:`removed_site_inputs`), each reported as a
    document of ``head_run``'s result with its ``REF030`` error (as the run's
    configuration selects it)."""
    removed = removed_site_inputs(base_tree, head_tree)
    policy = head_run.policy(head_tree)
    for path, kind in removed:
        findings = policy.apply(path, [removed_input_finding(path)], None)
        head_run.result.documents.append(DocumentResult(
            path, Provenance(path, "", "", commit=head_tree.revision), findings, kind))
    return [path for path, _kind in removed]


def pr_context(revs: Revisions, sel: Selection, repository: str | None,
               env: Mapping[str, str]) -> dict[str, Any]:
    """The JSON ``context.pr`` object of a run (see :func:`run_pr`)."""
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    files = [{"path": p, "kind": context_kind(p) or "taxonomy", "reasons": r}
             for p, r in sel.context_files.items()]
    files += [{"path": p, "kind": "recipe", "reasons": r} for p, r in sel.recipes.items()]
    skipped_paths = {p for p, _ in sel.skipped}
    return {
        "mode": "pr" if revs.base else "full",
        "repository": repository,
        "repository_uri": f"{server}/{repository}" if repository else None,
        "base": revs.base,
        "head": revs.head,
        "merge_base": revs.merge_base,
        "base_given": revs.base_given,
        "head_given": revs.head_given,
        "files": [f for f in files if f["path"] not in skipped_paths],
        "skipped": [{"path": p, "why": w} for p, w in sel.skipped],
        "unhandled": [{"path": p, "why": w} for p, w in sel.unhandled],
        "changed_entries": [{"kind": e.kind, "name": e.name, "change": e.change,
                             "source": e.source, "fields": list(e.fields)}
                            for e in sel.entries],
    }
