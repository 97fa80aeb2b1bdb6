"""``VER001``, ``VER005``-``VER007``: ``min_vllm_version`` is a version, and the
release list agrees with it (``nightly_required`` set exactly while it is unreleased;
an older minimum is a real release)."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from validator.analysis.recipe_data import get, items
from validator.analysis.stated_versions import min_version_pointers, release_list
from validator.analysis.versions import (
    NIGHTLY,
    MinVersion,
    effective_min_version,
    format_version,
    parse_min_version,
)
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule

# ---------------------------------------------------------------------------------------
# VER001 min_vllm_version value


@rule("VER001", Severity.ERROR, "min_vllm_version is not a version or 'nightly'",
      reads=RECIPE_ONLY)
def min_version_valid(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``model.min_vllm_version`` and ``variants.<v>.min_vllm_version`` must be a quoted
    string holding a PEP 440 version (``"0.23.0"``) or ``"nightly"``. The site prints it
    verbatim ("vLLM X isn't released yet") and compares it as a version; anything else
    cannot be compared. (An unquoted ``0.10`` is a float and is reported by ``YAML004``;
    a wrong type by ``SCHEMA001``; this rule judges string values.)

    Failing::

        model:
          min_vllm_version: ">=0.12.0"

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: write the bare release (``"0.12.0"``) as a quoted string."""
    for pointer, raw, _ in min_version_pointers(doc):
        if isinstance(raw, str) and parse_min_version(raw) is None:
            yield Hit(pointer, f"min_vllm_version {raw!r} is neither a version nor 'nightly'",
                      'write a released vLLM version such as "0.23.0", or "nightly"')


# ---------------------------------------------------------------------------------------
# nightly_required vs the release list


def _flag(node: object) -> bool:
    return get(node, "nightly_required") is True


@rule("VER005", Severity.ERROR, "Minimum vLLM is not released but nightly_required is not set",
      reads=frozenset({Reads.RELEASES}))
def unreleased_needs_nightly(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """When the (effective) minimum vLLM is ``nightly`` or a version newer than the
    latest release on the package index, ``pip install vllm`` cannot satisfy it:
    ``nightly_required: true`` must be set (model-level for the recipe's own minimum,
    model- or variant-level for a variant's), so that the site renders the nightly wheel
    and image (upstream ``synthesizeInstall``/``computeDockerMeta``).

    Failing::

        model:
          min_vllm_version: "0.40.0"       # newer than any release

    Passing::

        model:
          min_vllm_version: "0.40.0"
          nightly_required: true

    How to fix: set ``nightly_required: true`` (on the model, or on the variant whose
    minimum is unreleased) until the release ships."""
    releases = release_list(ctx)
    latest = releases.latest
    model = get(doc.data, "model")
    for pointer, raw, variant in min_version_pointers(doc):
        value = parse_min_version(raw)
        if value is None:
            continue
        flagged = _flag(model) or (variant is not None
                                   and _flag(get(doc.data, "variants", variant)))
        unreleased = value == NIGHTLY or (isinstance(value, Version) and latest is not None
                                          and value > latest.version
                                          and not releases.is_released(value))
        if unreleased and not flagged:
            where = "model" if variant is None else f"variants.{variant} (or model)"
            newest = (f"the newest release is {latest.version} ({latest.date})"
                      if latest else "no release is known")
            yield Hit(pointer, f"vLLM {format_version(value)} is not released ({newest}) "
                      "but nightly_required is not set",
                      f"set nightly_required: true under {where}")


@rule("VER006", Severity.WARNING, "nightly_required is set but the minimum vLLM is released",
      reads=frozenset({Reads.RELEASES}))
def stale_nightly_flag(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``nightly_required: true`` is for a minimum that "hasn't shipped yet". Once the
    minimum is on the package index the flag is stale: the site keeps sending readers to
    nightly wheels and ``:nightly`` images instead of the release. The message names the
    release and its date (first upload).

    Failing::

        model:
          min_vllm_version: "0.12.0"       # released
          nightly_required: true

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: remove ``nightly_required`` once its minimum is on the package index."""
    releases = release_list(ctx)
    targets: list[tuple[str, MinVersion | None]] = []
    if _flag(get(doc.data, "model")):
        targets.append(("/model/nightly_required", effective_min_version(doc, ctx)))
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        if _flag(variant):
            targets.append((vptr + "/nightly_required", effective_min_version(doc, ctx, vname)))
    for pointer, needed in targets:
        if not isinstance(needed, Version):
            continue
        rel = releases.get(needed)
        if rel is not None:
            yield Hit(pointer, f"vLLM {needed} was released on {rel.date}, so "
                      "nightly_required is stale",
                      f"remove nightly_required (pip install vllm>={needed} works)")


@rule("VER007", Severity.ERROR, "min_vllm_version names a vLLM version that was never released",
      reads=frozenset({Reads.RELEASES}))
def minimum_was_released(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A minimum older than the newest release must itself be a release: ``0.11.3`` when
    the index went from ``0.11.2`` to ``0.12.0`` cannot be installed, and the site would
    print it as the version to install.

    Failing::

        model:
          min_vllm_version: "0.11.3"       # 0.11.2 was followed by 0.12.0

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: write a release that exists (the hint names the next one)."""
    releases = release_list(ctx)
    latest = releases.latest
    for pointer, raw, _ in min_version_pointers(doc):
        value = parse_min_version(raw)
        if (not isinstance(value, Version) or latest is None or value > latest.version
                or releases.is_released(value)):
            continue
        nxt = releases.first_at_least(value)
        hint = f"the next release is {nxt.version} ({nxt.date})" if nxt else None
        yield Hit(pointer, f"vLLM {value} was never released on the package index", hint)
