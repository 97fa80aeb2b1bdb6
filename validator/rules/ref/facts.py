"""Names of recipes for the ``REF`` rules (:mod:`validator.rules.ref.features_and_modes`):
the recipe id a file path gives, why an id names no recipe file, and the ``did you mean``
suggestions (:class:`RecipeIndex` for the recipes of a revision)."""

from __future__ import annotations

from collections.abc import Iterable

from validator.paths import is_recipe_path, site_hf_id


def expected_model_id(path: str) -> str | None:
    """``"org/name"``, the id the site files the recipe ``models/org/.../name.yaml`` under
    (:func:`validator.paths.site_hf_id`: a nested file too), ``None`` for other layouts."""
    ident = site_hf_id(path) if is_recipe_path(path) else None
    return f"{ident[0]}/{ident[1]}" if ident else None


def recipe_ids(recipe_paths: Iterable[str]) -> frozenset[str]:
    """The ids (``org/name``) the site files the recipes ``recipe_paths`` under
    (:func:`expected_model_id` of each)."""
    return frozenset(filter(None, map(expected_model_id, recipe_paths)))


def not_a_file_name(model_id: str) -> str | None:
    """Why ``models/<model_id>.yaml`` is no recipe path of the repository (``None``: it
    is one): a Hugging Face id is ``org/name``, two plain path segments."""
    parts = model_id.split("/")
    if "\\" in model_id:
        return "holds a backslash (a folder separator on Windows)"
    if model_id.startswith("/"):
        return "is an absolute path, outside the repository"
    if ".." in parts:
        return ("leaves the models/ folder ('..' segments)"
                + (" and the repository" if _depth(parts) < -1 else ""))
    if len(parts) != 2 or not all(parts) or "." in parts:
        return "is not of the form org/name (a Hugging Face id has one '/')"
    return None


def _depth(parts: list[str]) -> int:
    """Lowest folder depth below models/ that walking ``parts`` reaches (-1: the
    repository root)."""
    depth = lowest = 0
    for part in parts:
        depth += -1 if part == ".." else 0 if part in ("", ".") else 1
        lowest = min(lowest, depth)
    return lowest


def nearest_hint(name: str, known: Iterable[str]) -> str | None:
    """``did you mean: a, b?`` naming up to three of ``known`` close to ``name``, or
    ``None``."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    return f"did you mean: {', '.join(close)}?" if close else None


class RecipeIndex:
    """The recipe ids (``org/name``) of one revision, indexed for ``did you mean``.

    A suggestion for a missing ``org/name`` is looked for among the recipes of the same
    org or of up to three orgs of a similar name, of the same name in any org, and of the
    same id in another letter case (the mistakes seen in related_recipes), all compared
    case-insensitively; so one look-up costs the size of those groups and of the org list,
    not of the whole tree (REF013 on every recipe was quadratic in the number of
    recipes). Answers are memoised per name.
    """

    def __init__(self, recipe_paths: Iterable[str]) -> None:
        self._groups: dict[tuple[str, str], list[str]] = {}
        for path in sorted(recipe_paths):
            rid = expected_model_id(path)
            if rid is None:
                continue
            org, _, name = rid.lower().partition("/")
            for key in (("org", org), ("name", name), ("id", rid.lower())):
                self._groups.setdefault(key, []).append(rid)
        self._orgs = sorted({key for kind, key in self._groups if kind == "org"})
        self._hints: dict[str, str | None] = {}

    def candidates(self, ref: str) -> list[str]:
        """Ids that may be what ``ref`` meant: same or similar org, same name or same id,
        ignoring letter case (sorted, no repeats)."""
        import difflib

        org, _, name = ref.lower().partition("/")
        orgs = {org, *difflib.get_close_matches(org, self._orgs, n=3, cutoff=0.6)}
        keys = [*(("org", o) for o in orgs), ("name", name or org), ("id", ref.lower())]
        return sorted({rid for key in keys for rid in self._groups.get(key, ())})

    def hint(self, ref: str) -> str | None:
        """``did you mean: ...?`` for a missing ``ref``, or ``None``."""
        if ref not in self._hints:
            self._hints[ref] = nearest_hint(ref, self.candidates(ref))
        return self._hints[ref]
