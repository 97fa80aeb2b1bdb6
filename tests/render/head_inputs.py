"""What the site's build of a pull-request head renders that no other build rendered.

The site's build renders each recipe from its bytes, its path, the context files
(``taxonomy.yaml``, ``strategies/``, ``kv_store/``, ``platforms.yaml``, ``quickstart/``)
and, across recipes, only one thing: whether a variant's ``model_id`` is the id of a
recipe of the tree (then that variant is not promoted). A recipe's *rendered input* is
therefore (context digest, path, blob, the recipe ids of the tree its text names).

Most pull-request heads change one recipe of a tree that corpus ``main`` or an earlier
head already had, with the same context: building the whole head again renders 170
recipes to check one. :func:`plan_head_builds` builds each head as a *reduced tree*:
its context files, the recipes whose rendered input no earlier build rendered, and the
recipes whose ids those name (so every collision the full head has, the reduced tree has
too). A reduced tree is a valid recipes tree, so the site's build and ours must agree on
it exactly as on the full head; a head with nothing new needs no build at all.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tarfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

CONTEXT_PARTS = ("taxonomy.yaml", "strategies", "kv_store", "platforms.yaml", "quickstart")
MODELS = "models/"

RenderedInput = tuple[str, str, str, frozenset[str]]
"""(context digest, recipe path, blob id, ids of the tree's recipes its text names)."""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def tree_entries(repo: Path, rev: str) -> dict[str, str]:
    """Path -> blob id of every file the site's build reads at ``rev``."""
    out: dict[str, str] = {}
    for line in _git(repo, "ls-tree", "-r", rev, "--", "models", *CONTEXT_PARTS).splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out


def recipe_id(path: str) -> str:
    """The id the site gives ``models/<org>/.../<repo>.yaml``: ``<org>/<repo>``."""
    parts = path.removeprefix(MODELS).split("/")
    return f"{parts[0]}/{re.sub(r'[.](yaml|yml)$', '', parts[-1])}"


def rendered_inputs(repo: Path, rev: str) -> dict[str, RenderedInput]:
    """Recipe path -> its rendered input at ``rev``."""
    entries = tree_entries(repo, rev)
    context = sorted((p, b) for p, b in entries.items() if not p.startswith(MODELS))
    digest = hashlib.sha256(repr(context).encode()).hexdigest()
    recipes = {p: b for p, b in entries.items()
               if p.startswith(MODELS) and p.endswith((".yaml", ".yml")) and p.count("/") >= 2}
    ids = {recipe_id(p) for p in recipes}
    texts = _blobs(repo, sorted(set(recipes.values())))
    return {p: (digest, p, b, frozenset(i for i in ids if i in texts[b]))
            for p, b in recipes.items()}


def _blobs(repo: Path, ids: list[str]) -> dict[str, str]:
    """Blob id -> its text, read with one ``git cat-file --batch``."""
    done = subprocess.run(["git", "cat-file", "--batch"], cwd=repo, check=True,
                          input="".join(f"{i}\n" for i in ids).encode(), capture_output=True)
    out, data, pos = {}, done.stdout, 0
    for blob in ids:
        header_end = data.index(b"\n", pos)
        size = int(data[pos:header_end].split()[2])
        out[blob] = data[header_end + 1: header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
    return out


@dataclass(frozen=True)
class HeadBuild:
    """How one head is built: ``recipes`` None means the whole tree."""

    number: int
    recipes: tuple[str, ...] | None
    new_inputs: int
    head_recipes: int


def plan_head_builds(repo: Path, heads: list[int], whole: set[int],
                     seen_rev: str = "main",
                     sample: Mapping[int, Collection[str]] | None = None) -> list[HeadBuild]:
    """One :class:`HeadBuild` per head that renders something new, in ``heads`` order;
    ``seen_rev`` (corpus ``main``, compared in full by its own test) counts as built.
    The heads in ``whole`` are built whole (trees the site's build rejects). A head in
    ``sample`` is built with only those of its new recipes (and the recipes they name),
    each of which must be new to the build."""
    seen = set(rendered_inputs(repo, seen_rev).values())
    builds: list[HeadBuild] = []
    for number in heads:
        rev = f"refs/pull/{number}/head"
        if number in whole:
            builds.append(HeadBuild(number, None, 0, 0))
            continue
        inputs = rendered_inputs(repo, rev)
        new = [p for p, key in inputs.items() if key not in seen]
        seen.update(inputs.values())
        if sample is not None and number in sample:
            missing = set(sample[number]) - set(new)
            assert not missing, f"PR {number}: not new to the build: {sorted(missing)}"
            new = [p for p in new if p in sample[number]]
        if not new:
            continue
        by_id = {recipe_id(p): p for p in inputs}
        partners = {by_id[i] for p in new for i in inputs[p][3]}
        builds.append(HeadBuild(number, tuple(sorted({*new, *partners})), len(new),
                                len(inputs)))
    return builds


def export_build(repo: Path, build: HeadBuild, dest: Path) -> Path:
    """The files of ``build``'s head that the site's build reads, as a folder ``dest``:
    the context files and the planned recipes (all of them for a whole build)."""
    dest.mkdir(parents=True)
    rev = f"refs/pull/{build.number}/head"
    paths = ["models", *CONTEXT_PARTS] if build.recipes is None else \
        [*CONTEXT_PARTS, *build.recipes]
    present = set(_git(repo, "ls-tree", "--name-only", rev, "--", *paths).split("\n"))
    wanted = [p for p in paths if p in present or "/" in p]
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "--", *wanted],
                             cwd=repo, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest
