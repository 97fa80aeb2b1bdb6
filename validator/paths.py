"""Where the project's data folders are: ``schemas/`` and ``snapshots/``.

In a checkout (editable install, tests, the GitHub Action) they are the folders at the
project root. A regular install (a wheel, as pre-commit makes) carries a copy inside the
package, ``validator/_data/<name>``, put there by ``setup.py`` at build time.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT_DIR = PACKAGE_DIR.parent


def in_checkout() -> bool:
    """True when running from a source checkout (the project's ``pyproject.toml`` is beside
    the package)."""
    return (CHECKOUT_DIR / "pyproject.toml").is_file() and (CHECKOUT_DIR / "schemas").is_dir()


def data_dir(name: str) -> Path:
    """The folder ``name`` (``"schemas"`` or ``"snapshots"``): the checkout's, else the copy
    inside the installed package."""
    for base in (CHECKOUT_DIR / name, PACKAGE_DIR / "_data" / name):
        if base.is_dir():
            return base
    return CHECKOUT_DIR / name


SCHEMAS_DIR = data_dir("schemas")
"""JSON Schemas (read-only)."""

SNAPSHOTS_DIR = data_dir("snapshots")
"""Vendored, digest-pinned data: vLLM CLI registries, the release list, the SARIF schema
(read-only once installed)."""


STORE_ENV = "RECIPE_CHECK_STORE"
"""Environment variable naming the recipe snapshot store folder."""
LOCK_NAME = "recipes.lock.json"
"""The lock file of a snapshot store, at its top (:mod:`validator.source.lockfile`)."""


def default_store_dir() -> Path:
    """Default folder of the recipe snapshot store (``fetch`` writes it; ``snapshot``,
    ``check --offline``, ``record --offline`` and ``publish`` read it): ``$RECIPE_CHECK_STORE``
    when set, else ``$XDG_DATA_HOME/recipe-check/snapshots/recipes`` (XDG default
    ``~/.local/share``). The same for an editable install, a wheel and the Action, and
    independent of the working folder; ``recipe-check snapshot path`` prints it."""
    if os.environ.get(STORE_ENV):
        return Path(os.environ[STORE_ENV])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "recipe-check" / "snapshots" / "recipes"


def name_bytes(text: str) -> bytes:
    """``text`` (a path, or a key or digest input holding paths) as UTF-8, each byte of a
    file name that is not UTF-8 (``surrogateescape``, as the file system and git give it)
    back as that byte: the same bytes as ``text.encode()`` for every valid name, and no
    ``UnicodeEncodeError`` for the others (they are reported ``PROV006``, never a crash
    of the digest that keys them)."""
    return text.encode("utf-8", "surrogateescape")


def is_recipe_path(path: str) -> bool:
    """Whether ``path`` (relative to a recipes root) is a recipe: under ``models/``, named
    ``.yaml`` or ``.yml`` (the recipes repository's pre-commit hook's
    ``^models/.*\\.ya?ml$``)."""
    return path.startswith("models/") and path.endswith((".yaml", ".yml"))


def site_hf_id(path: str) -> tuple[str, str] | None:
    """``(org, repo)`` the recipes site files the recipe ``models/<org>/.../<repo>.yaml``
    under (its build walks ``models/`` recursively and takes the first folder and the last
    file name, so a recipe moved one folder deeper is published under another id);
    ``None`` for a file directly under ``models/`` (the site gives it no id)."""
    parts = path.split("/")[1:]
    if len(parts) < 2:
        return None
    name = parts[-1]
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    return parts[0], name


def undecodable_name(path: str) -> str | None:
    """``path`` as text a report can hold (each byte that is not UTF-8 written ``\\xff``)
    when the file system gave it with such bytes (``surrogateescape``), else ``None``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return None


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/recipe-check`` (``~/.cache/recipe-check`` when unset), per the
    XDG Base Directory specification."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "recipe-check"


def option_path(text: str) -> Path:
    """The ``argparse`` type of an option naming a file or folder: the path, refusing an
    empty value (``--cache-dir "$CACHE"`` with ``CACHE`` unset), which :class:`Path` would
    silently take for the current folder.

    Raises:
        argparse.ArgumentTypeError: ``text`` is empty.
    """
    if not text:
        import argparse

        raise argparse.ArgumentTypeError("an empty name (an unset variable?): give a path")
    return Path(text)
