"""Who owns each path of the API ``render --api-out`` writes, so that no input's output
lands on another's.

Every file the build writes and every folder it clears is claimed for the input it is
derived from (:class:`Owner`: a recipe, a promoted variant's ``model_id`` line, the
taxonomy, a strategy file, an index). Two owners on one path -- the same file, a file
where the other has a folder, a folder one clears (a variant's, whether or not it
writes anything in it) that holds or lies inside the other's files or folder -- is an
:class:`ApiCollision` naming both sources, raised before the API is put in place (the
build is staged, so nothing is written then). Paths are compared as a file system that
ignores letter case and Unicode normalisation (macOS, Windows) would store them
(:func:`~validator.render.api_paths.path_key`): ``Acme/x.json`` and ``acme/X.json`` are
one file there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from validator.render.api_out import ApiOutputError
from validator.render.api_paths import path_key, promoted_id_problem
from validator.sourcemap import SourceMap, join_pointer


@dataclass(frozen=True)
class Owner:
    """The input an output path is derived from: its file, the line that names the path
    (``None``: the whole file), what it is, and the name its paths come from (a recipe
    or variant id, a strategy name). Owners are equal when file and name are: variants
    of one recipe that name the very same id are one checkpoint's page, which the site
    writes once per variant, the last one standing (upstream recipes do so for a
    checkpoint served in two precisions); that is theirs to share."""

    path: str
    line: int | None = field(compare=False)
    what: str = field(compare=False)
    name: str = ""

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{self.what} ({where})"


def variant_owner(path: str, key: str, model_id: str, source_map: SourceMap) -> Owner:
    """The owner of a promoted variant's files: its ``model_id`` line.

    Raises:
        ApiOutputError: the id names no path of its own in the API (``REF017``).
    """
    line = source_map.position(join_pointer(join_pointer("/variants", key),
                                            "model_id"))[0]
    problem = promoted_id_problem(model_id)
    if problem is not None:
        raise ApiOutputError(f"{path}:{line}: model_id {model_id!r} of variant {key} "
                             f"{problem}: its files would be written outside the API "
                             "folder, over it, over the API's own files or under a name "
                             "not every system can hold; refused")
    return Owner(path, line, f"variant {key}'s model_id {model_id!r}", model_id)


def _ancestors(key: str) -> list[str]:
    """The folders of the path ``key``, outermost first: ``a/b/c`` -> ``a``, ``a/b``."""
    out: list[str] = []
    cut = key.find("/")
    while cut != -1:
        out.append(key[:cut])
        cut = key.find("/", cut + 1)
    return out


class ApiCollision(ApiOutputError):
    """Two inputs would write one path of the API (the message names both)."""


class ApiLedger:
    """The owner of every file written and folder made so far in one build."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[str, Owner]] = {}
        self._folders: dict[str, dict[Owner, str]] = {}
        """folder key -> each owner with files or a cleared folder below (or at) it, and
        one such path."""
        self._cleared: dict[str, tuple[str, Owner]] = {}
        """key of a folder an owner clears -> that folder and owner."""

    def claim_file(self, rel: str, owner: Owner) -> None:
        """Claim the file ``rel`` for ``owner``.

        Raises:
            ApiCollision: another owner wrote ``rel`` (or a path a case-insensitive file
                system takes for it), a file where ``rel`` needs a folder, or files under
                a folder of that name.
        """
        key = path_key(rel)
        ancestors = _ancestors(key)
        self._check_ancestors(rel, owner, ancestors)
        others = self._folders.get(key, {})
        for other, below in others.items():
            raise self._collision(rel, owner, f"it is a folder holding {below}", other, below)
        prior = self._files.get(key)
        if prior is not None and (prior[1] != owner or prior[0] != rel):
            raise self._collision(rel, owner, f"{prior[0]} is written", prior[1], prior[0])
        self._files[key] = (rel, owner)
        for folder in ancestors:
            self._folders.setdefault(folder, {}).setdefault(owner, rel)

    def claim_removal(self, rel: str, owner: Owner) -> None:
        """Let ``owner`` clear ``rel`` (a file or a folder).

        Raises:
            ApiCollision: ``rel`` is a file of another owner or holds one.
        """
        key = path_key(rel)
        ancestors = _ancestors(key)
        self._check_ancestors(rel, owner, ancestors)
        taken = self._files.get(key) or self._cleared.get(key)
        if taken is not None and taken[1] != owner:
            raise self._collision(rel, owner, f"clearing it removes {taken[0]}", taken[1],
                                  taken[0])
        for other, below in self._folders.get(key, {}).items():
            if other != owner:
                raise self._collision(rel, owner, f"clearing it removes {below}", other, below)
        self._cleared[key] = (rel, owner)
        for folder in [*ancestors, key]:
            self._folders.setdefault(folder, {}).setdefault(owner, rel)

    def _check_ancestors(self, rel: str, owner: Owner, ancestors: list[str]) -> None:
        """Refuse ``rel`` under a file, or inside a folder another owner clears
        (``ancestors``: the keys of its folders, :func:`_ancestors`)."""
        for folder in ancestors:
            taken = self._files.get(folder)
            if taken is not None:
                raise self._collision(rel, owner, f"{taken[0]} is a file", taken[1], taken[0])
            cleared = self._cleared.get(folder)
            if cleared is not None and cleared[1] != owner:
                raise self._collision(rel, owner, f"it lies inside {cleared[0]}, which the "
                                      "other clears", cleared[1], cleared[0])

    @staticmethod
    def _collision(rel: str, owner: Owner, how: str, other: Owner,
                   theirs: str) -> ApiCollision:
        """The error for ``owner``'s ``rel`` meeting ``other``'s path ``theirs``."""
        mine = rel.rstrip("/")
        same_text = theirs == mine or theirs.startswith(mine + "/") \
            or mine.startswith(theirs + "/")
        note = "" if same_text else \
            " (paths that differ only in letter case or Unicode form are one file on " \
            "macOS and Windows)"
        return ApiCollision(
            f"two inputs would write one path of the API: {rel!r} of {owner} collides with "
            f"the output of {other}: {how}{note}; give each its own id")
