"""Minimum vLLM versions a recipe declares, and the effective minimum of a selection.

A recipe can state a vLLM floor in four places; upstream's site build (``renderCommand``
in ``scripts/build-recipes-api.mjs`` of vllm-project/recipes) tells consumers to "take
max(recipe, variant, this)" where *this* is the kv-store deployment's own
``min_vllm_version`` (Mooncake's store connector ships in 0.21.0). This module is the one
place that computes that maximum, for the ``VER`` rules and for any other family (``FLAG``
checks flags against the vLLM the recipe really needs).

Values are compared with :class:`packaging.version.Version` (PEP 440), never as strings or
floats (``"0.10.0" > "0.9.2"``). ``"nightly"`` means "not in any release yet" and is higher
than every version.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from packaging.version import InvalidVersion, Version

from validator.analysis.recipe_data import get
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

NIGHTLY: Literal["nightly"] = "nightly"

MinVersion: TypeAlias = Version | Literal["nightly"]
"""A parsed minimum: a release version, or ``"nightly"`` (above every release)."""


def parse_min_version(value: Any) -> MinVersion | None:
    """Parse a ``min_vllm_version`` value.

    Args:
        value: the raw YAML value (normally a quoted string such as ``"0.23.0"``).

    Returns:
        ``"nightly"`` for the string ``nightly`` (any case, surrounding blanks ignored),
        a :class:`~packaging.version.Version` for a valid PEP 440 version string, ``None``
        for anything else (missing, a float such as ``0.1`` read from an unquoted ``0.10``,
        an invalid string). Never raises.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.lower() == NIGHTLY:
        return NIGHTLY
    try:
        return Version(text)
    except (InvalidVersion, ValueError, OverflowError):  # ValueError: over 4,300 digits
        return None


def version_key(value: MinVersion) -> tuple[int, Version]:
    """Sort key placing ``"nightly"`` above every release version."""
    if value == NIGHTLY:
        return (1, Version("0"))
    assert isinstance(value, Version)
    return (0, value)


def max_version(values: list[MinVersion]) -> MinVersion | None:
    """The highest of ``values`` (``"nightly"`` wins), ``None`` for an empty list."""
    if not values:
        return None
    return max(values, key=version_key)


def format_version(value: MinVersion) -> str:
    """``"0.23.0"`` or ``"nightly"`` for messages."""
    return str(value)


@dataclass(frozen=True)
class VersionSource:
    """One declared minimum that takes part in the effective minimum.

    Attributes:
        scope: ``"model"``, ``"variant"``, ``"strategy"`` or ``"kv_store"``.
        name: the variant, strategy or kv-store option name (``""`` for the model).
        value: the parsed minimum.
        raw: the value as written.
        path: document path holding it (the recipe, ``strategies/x.yaml``,
            ``kv_store/x.yaml``).
        pointer: JSON Pointer of the value inside that document.
    """

    scope: str
    name: str
    value: MinVersion
    raw: str
    path: str
    pointer: str


def _strategy_doc(ctx: Context, name: str) -> tuple[str, Any] | None:
    """``(path, data)`` of strategy or kv-store option ``name`` in ``ctx``."""
    for docs in (ctx.strategies, ctx.kv_stores):
        doc = docs.get(name)
        if doc is not None and doc.ok:
            return doc.path, doc.data
    return None


def version_sources(doc: LoadedDocument, ctx: Context, variant: str | None = None, *,
                    strategy: str | None = None,
                    kv_store: str | None = None) -> Iterator[VersionSource]:
    """Every parseable minimum that applies to one selection, in scope order.

    Args:
        doc: the loaded recipe.
        ctx: context of the same revision (strategies and kv-store options).
        variant: variant key (``variants.<variant>``); ``None`` = the recipe alone.
        strategy: serving strategy name (``strategies/<name>.yaml``); ``None`` = none.
        kv_store: kv-store option name (``kv_store/<name>.yaml``; also looked up among
            strategies, as upstream merges both maps); ``None`` = none.

    Unparseable or missing values are skipped (the ``VER`` rules report them).
    """
    raw = get(doc.data, "model", "min_vllm_version")
    parsed = parse_min_version(raw)
    if parsed is not None:
        yield VersionSource("model", "", parsed, str(raw), doc.path, "/model/min_vllm_version")
    if variant is not None:
        raw = get(doc.data, "variants", variant, "min_vllm_version")
        parsed = parse_min_version(raw)
        if parsed is not None:
            pointer = join_pointer(join_pointer("/variants", variant), "min_vllm_version")
            yield VersionSource("variant", variant, parsed, str(raw), doc.path, pointer)
    for scope, name in (("strategy", strategy), ("kv_store", kv_store)):
        if name is None:
            continue
        found = _strategy_doc(ctx, name)
        if found is None:
            continue
        path, data = found
        raw = get(data, "min_vllm_version")
        parsed = parse_min_version(raw)
        if parsed is not None:
            yield VersionSource(scope, name, parsed, str(raw), path, "/min_vllm_version")


def effective_min_version(doc: LoadedDocument, ctx: Context, variant: str | None = None, *,
                          strategy: str | None = None,
                          kv_store: str | None = None) -> MinVersion | None:
    """The effective minimum vLLM of a recipe selection.

    The highest of ``model.min_vllm_version``, ``variants.<variant>.min_vllm_version``,
    the selected strategy's and the selected kv-store option's ``min_vllm_version``
    (upstream: ``kv_min_vllm_version`` in ``scripts/build-recipes-api.mjs`` — "consumers
    should take max(recipe, variant, this)").

    Args:
        doc: the loaded recipe (may be schema-invalid; wrong shapes are ignored).
        ctx: the :class:`~validator.context.Context` of the same revision.
        variant: variant key, or ``None`` for the recipe-level minimum only.
        strategy: selected serving strategy name, or ``None``.
        kv_store: selected kv-store option name, or ``None``.

    Returns:
        A :class:`packaging.version.Version`, ``"nightly"`` when any applicable minimum
        is ``nightly`` (not in a release yet), or ``None`` when no applicable minimum is
        declared in a parseable form. Never raises.
    """
    return max_version([s.value for s in version_sources(doc, ctx, variant,
                                                          strategy=strategy,
                                                          kv_store=kv_store)])


__all__ = [
    "NIGHTLY",
    "MinVersion",
    "VersionSource",
    "effective_min_version",
    "format_version",
    "max_version",
    "parse_min_version",
    "version_key",
    "version_sources",
]
