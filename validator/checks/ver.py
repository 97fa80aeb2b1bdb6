"""``VER``: minimum vLLM versions, the nightly flag, Docker image tags, the guide's stated
version, and the recipe dates.

What each field means comes from upstream's documented format (``CONTRIBUTING.md`` and
``CLAUDE.md`` of vllm-project/recipes): ``model.min_vllm_version`` is "the earliest vLLM
release that supports this model", a quoted string; ``nightly_required: true`` is "set when
``min_vllm_version`` hasn't shipped yet" and switches the install block to the nightly wheel
("vLLM X isn't released yet — nightly required", ``synthesizeInstall`` in
``scripts/build-recipes-api.mjs``); ``docker_image`` is a string (NVIDIA), a brand map
``{nvidia, amd, tpu, intel}``, or a CUDA map ``{cu129, cu130}``, also per variant and per
variant hardware override (``computeDockerMeta`` in ``src/lib/command-synthesis.js``).
The release list is :mod:`validator.releases` (vendored by default).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from packaging.version import InvalidVersion, Version

from validator.checks._data import as_dict, elements, get, items
from validator.checks.registry import RECIPE_ONLY, Hit, Reads, rule
from validator.checks.versions import (
    NIGHTLY,
    MinVersion,
    effective_min_version,
    format_version,
    parse_min_version,
    version_key,
)
from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument
from validator.releases import ReleaseList, load_release_list
from validator.sourcemap import join_pointer

BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")
CUDA_KEYS = ("cu129", "cu130")


def _release_list(ctx: Context) -> ReleaseList:
    full = load_release_list(online=ctx.settings.online_releases,
                             snapshot_dir=ctx.settings.snapshot_dir)
    return full if ctx.settings.as_of is None else full.published_by(ctx.settings.as_of)


def _line(doc: LoadedDocument, pointer: str) -> int:
    return doc.source_map.position(pointer)[0]


# ---------------------------------------------------------------------------------------
# VER001 min_vllm_version value


def min_version_pointers(doc: LoadedDocument) -> Iterator[tuple[str, object, str | None]]:
    """``(pointer, raw value, variant or None)`` of every ``min_vllm_version`` in a recipe."""
    model = get(doc.data, "model")
    if isinstance(model, dict) and "min_vllm_version" in model:
        yield "/model/min_vllm_version", model["min_vllm_version"], None
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        if isinstance(variant, dict) and "min_vllm_version" in variant:
            yield vptr + "/min_vllm_version", variant["min_vllm_version"], vname


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
# Docker images


@dataclass(frozen=True)
class ImageRef:
    """A parsed ``[registry/]repository[:tag][@digest]`` reference.

    Attributes:
        repository: everything before the tag, lower-cased (``vllm/vllm-openai``).
        tag: the tag or ``None`` (Docker then pulls ``latest``).
        digest: ``sha256:...`` or ``None``.
    """

    repository: str
    tag: str | None
    digest: str | None


_REF = re.compile(r"^(?P<repo>[a-z0-9][a-z0-9._/:-]*?)(?::(?P<tag>[\w][\w.-]{0,127}))?"
                  r"(?:@(?P<digest>[a-z0-9]+:[0-9a-f]{32,}))?$", re.IGNORECASE)
_TAG_VERSION = re.compile(
    r"^v?(?P<v>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:$|[-_+])", re.IGNORECASE)
_TAG_VLLM_VERSION = re.compile(
    r"(?:^|[-_])vllm[-_]?v?(?P<v>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:$|[-_+])",
    re.IGNORECASE)
_FLOATING = re.compile(r"^(?:latest|nightly|main|dev)(?:$|[-_])|[-_](?:latest|nightly)$",
                       re.IGNORECASE)


def parse_image(text: str) -> ImageRef | None:
    """Parse an image reference; ``None`` when ``text`` is not one (blanks, a command)."""
    m = _REF.match(text.strip()) if text.strip() == text else None
    if m is None or not m.group("repo") or m.group("repo").endswith(("/", ":")):
        return None
    return ImageRef(m.group("repo").lower(), m.group("tag"), m.group("digest"))


def official_vllm_image(ref: ImageRef) -> bool:
    """Whether the image's tags are vLLM release versions: ``vllm/*`` on Docker Hub
    (``vllm/vllm-openai``, ``-rocm``, ``vllm-tpu``...), except vLLM-Omni, whose tags are
    vLLM-Omni versions."""
    repo = ref.repository.removeprefix("docker.io/").removeprefix("index.docker.io/")
    return repo.startswith("vllm/") and "omni" not in repo


def tag_version(ref: ImageRef) -> Version | None:
    """The vLLM version a tag pins: ``v0.23.0``, ``0.23.0``, ``v0.20.0-cu129`` on official
    images; ``vllm-0.23.1-rocm723-...`` (an explicit ``vllm-`` prefix) on any image."""
    if ref.tag is None:
        return None
    explicit = _TAG_VLLM_VERSION.search(ref.tag)
    m = explicit or (_TAG_VERSION.match(ref.tag) if official_vllm_image(ref) else None)
    if m is None:
        return None
    try:
        return Version(m.group("v"))
    except InvalidVersion:
        return None


@dataclass(frozen=True)
class ImageSite:
    """One ``docker_image`` string of a recipe.

    Attributes:
        pointer: JSON Pointer of the string.
        value: the string.
        brand: ``nvidia``/``amd``/``tpu``/``intel`` the image serves (``nvidia`` for the
            string and CUDA-map forms), or a hardware id for a variant hardware override.
        variant: the variant declaring it, ``None`` at model level.
    """

    pointer: str
    value: str
    brand: str
    variant: str | None


def _image_strings(node: object, pointer: str, variant: str | None) -> Iterator[ImageSite]:
    if isinstance(node, str):
        yield ImageSite(pointer, node, "nvidia", variant)
        return
    mapping = as_dict(node)
    if any(k in mapping for k in BRAND_KEYS):
        for brand in BRAND_KEYS:
            value = mapping.get(brand)
            bptr = join_pointer(pointer, brand)
            if isinstance(value, str):
                yield ImageSite(bptr, value, brand, variant)
            elif isinstance(value, dict):
                for cu in CUDA_KEYS:
                    if isinstance(value.get(cu), str):
                        yield ImageSite(join_pointer(bptr, cu), value[cu], brand, variant)
    else:
        for cu in CUDA_KEYS:
            if isinstance(mapping.get(cu), str):
                yield ImageSite(join_pointer(pointer, cu), mapping[cu], "nvidia", variant)


def image_sites(doc: LoadedDocument) -> Iterator[ImageSite]:
    """Every Docker image string: ``model.docker_image``, ``variants.<v>.docker_image`` and
    ``variants.<v>.hardware_overrides.<hw>.docker_image``, in every documented shape."""
    yield from _image_strings(get(doc.data, "model", "docker_image"), "/model/docker_image",
                              None)
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        yield from _image_strings(get(variant, "docker_image"), vptr + "/docker_image", vname)
        for hw, override, hptr in items(get(variant, "hardware_overrides"),
                                        vptr + "/hardware_overrides"):
            value = get(override, "docker_image")
            if isinstance(value, str):
                yield ImageSite(hptr + "/docker_image", value, hw, vname)


def _variant_covers_brand(doc: LoadedDocument, variant: str, brand: str) -> bool:
    image = get(doc.data, "variants", variant, "docker_image")
    if isinstance(image, str):
        return brand == "nvidia"
    mapping = as_dict(image)
    if any(k in mapping for k in BRAND_KEYS):
        return brand in mapping
    return brand == "nvidia" and any(k in mapping for k in CUDA_KEYS)


def _required_by(doc: LoadedDocument, ctx: Context,
                 site: ImageSite) -> list[tuple[MinVersion, str, str]]:
    """``(minimum, who, pointer)`` that an image must satisfy: the model's minimum, and
    every variant that renders this image (its own, or the model's where it has none)."""
    out: list[tuple[MinVersion, str, str]] = []
    if site.variant is not None:
        needed = effective_min_version(doc, ctx, site.variant)
        if needed is not None:
            out.append((needed, f"variant {site.variant!r}", _min_pointer(doc, site.variant)))
        return out
    model_min = effective_min_version(doc, ctx)
    if model_min is not None:
        out.append((model_min, "the recipe", "/model/min_vllm_version"))
    for vname in as_dict(get(doc.data, "variants")):
        if _variant_covers_brand(doc, vname, site.brand):
            continue
        needed = effective_min_version(doc, ctx, vname)
        if needed is not None and (model_min is None
                                   or version_key(needed) > version_key(model_min)):
            out.append((needed, f"variant {vname!r}", _min_pointer(doc, vname)))
    return out


def _min_pointer(doc: LoadedDocument, variant: str) -> str:
    own = get(doc.data, "variants", variant, "min_vllm_version")
    if parse_min_version(own) is not None:
        return join_pointer(join_pointer("/variants", variant), "min_vllm_version")
    return "/model/min_vllm_version"


@rule("VER002", Severity.ERROR, "Docker image tag is older than the minimum vLLM version",
      reads=RECIPE_ONLY)
def docker_tag_meets_minimum(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``docker_image`` whose tag is a vLLM version (``v0.23.0``, ``0.23.0``,
    ``v0.23.0-cu129``, or ``vllm-0.23.1-...`` on third-party images) must be at least the
    effective minimum of every variant that renders it (model, variant, see
    :func:`validator.checks.versions.effective_min_version`): an older image cannot run
    the recipe. A ``nightly`` minimum is never met by a release tag. Tags of
    ``vllm/vllm-omni`` are vLLM-Omni versions and are not compared.

    Failing::

        model:
          min_vllm_version: "0.12.0"
          docker_image: "vllm/vllm-openai:v0.11.0"

    Passing::

        model:
          min_vllm_version: "0.12.0"
          docker_image: "vllm/vllm-openai:v0.12.0"

    How to fix: use an image of the minimum release or newer (or lower the minimum if the
    older image really serves the model)."""
    for site in image_sites(doc):
        ref = parse_image(site.value)
        pinned = tag_version(ref) if ref else None
        if pinned is None:
            continue
        for needed, who, min_ptr in _required_by(doc, ctx, site):
            if needed == NIGHTLY or (isinstance(needed, Version) and pinned < needed):
                yield Hit(site.pointer,
                          f"image {site.value!r} is vLLM {pinned}, but {who} needs vLLM "
                          f"{format_version(needed)}",
                          f"use an image of vLLM {format_version(needed)} or newer"
                          if needed != NIGHTLY else "use a nightly image",
                          related=(Related(_line(doc, min_ptr),
                                           f"minimum vLLM {format_version(needed)} "
                                           "declared here"),))
                break


_NIGHTLY_COMMIT = re.compile(r"(?:[a-z0-9]+-)?nightly-[0-9a-f]{7,40}")


@rule("VER004", Severity.ERROR, "docker_image is not an image reference",
      reads=RECIPE_ONLY)
def docker_image_is_reference(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``docker_image`` holds an image reference (``vllm/vllm-openai:v0.23.0``); the site
    builds ``docker pull <image>`` and ``docker run ... <image>`` from it, so a command
    (``docker pull vllm/...``), blanks or other text produce a broken command.

    Failing::

        model:
          docker_image: "docker pull vllm/vllm-openai:v0.12.0"

    Passing::

        model:
          docker_image: "vllm/vllm-openai:v0.12.0"

    How to fix: write only the image reference; the site adds the ``docker`` commands."""
    for site in image_sites(doc):
        if parse_image(site.value) is None:
            fixed = site.value.strip().split()[-1] if site.value.strip() else ""
            hint = (f"write only the image: {fixed!r}" if parse_image(fixed) else
                    "write an image reference such as vllm/vllm-openai:v0.23.0")
            yield Hit(site.pointer, f"docker_image {site.value!r} is not an image reference",
                      hint)


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
    releases = _release_list(ctx)
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
    releases = _release_list(ctx)
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
    releases = _release_list(ctx)
    latest = releases.latest
    for pointer, raw, _ in min_version_pointers(doc):
        value = parse_min_version(raw)
        if (not isinstance(value, Version) or latest is None or value > latest.version
                or releases.is_released(value)):
            continue
        nxt = releases.first_at_least(value)
        hint = f"the next release is {nxt.version} ({nxt.date})" if nxt else None
        yield Hit(pointer, f"vLLM {value} was never released on the package index", hint)


# ---------------------------------------------------------------------------------------
# VER008 the guide's stated version

_VERSION_TEXT = r"v?(?P<ver>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\+[\w.]+)?)"
_PIN = re.compile(r"(?<![\w./-])vllm(?:\[[\w,\s-]*\])?\s*(?P<op>==|>=|~=|≥)\s*" + _VERSION_TEXT,
                  re.IGNORECASE)
_PROSE = re.compile(
    r"(?<![\w./-])vllm(?![\w-])(?P<kw>\s+version)?(?P<sep>[\s*:`]*?)(?P<op>>=|≥)?[\s*`]*"
    + _VERSION_TEXT
    + r"(?P<post>\+|[\s*`]*,?\s*or\s+(?:newer|later|above|higher))?",
    re.IGNORECASE)
_NEGATED = re.compile(r"[\s*`]*(?:does\s+not|doesn't|do\s+not|is\s+not|isn't|lacks|cannot|"
                      r"can't|has\s+an?\s+(?:known\s+)?(?:bug|regression|issue))", re.IGNORECASE)
_LINE_START = re.compile(r"^[\s>*#|`-]*(?:\d+\.\s*)?[\s*`]*$")


@dataclass(frozen=True)
class VersionStatement:
    """A vLLM version stated in free text.

    Attributes:
        version: the version stated (local part such as ``+rocm721`` dropped).
        kind: ``"pin"`` (``vllm==X``) or ``"minimum"`` (``vllm>=X``, "vLLM X or newer",
            "vLLM version: X").
        text: the matched text.
        leading: the statement opens its line (a prerequisites-list item).
    """

    version: Version
    kind: str
    text: str
    leading: bool


def version_statements(line: str) -> list[VersionStatement]:
    """The vLLM version statements of one line of text.

    Recognised: pip specifiers ``vllm==X``, ``vllm>=X``, ``vllm~=X`` (``vllm-omni``,
    ``vllm_ascend`` are other packages and are skipped) and prose ``vLLM >= X``,
    ``vLLM ≥ X``, ``vLLM X or newer/later``, ``vLLM X+``, ``vLLM version: X``. A bare
    mention ("vLLM 0.12.0 has a regression") is not a statement of the requirement.
    """
    out: list[VersionStatement] = []
    spans: list[tuple[int, int]] = []
    for m in _PIN.finditer(line):
        spans.append(m.span())
        kind = "pin" if m.group("op") == "==" else "minimum"
        _add_statement(out, m.group("ver"), kind, m.group(0), line[:m.start()])
    for m in _PROSE.finditer(line):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        qualified = m.group("op") or m.group("post") or ":" in (m.group("sep") or "")
        if qualified and not _NEGATED.match(line[m.end():]):
            _add_statement(out, m.group("ver"), "minimum", m.group(0), line[:m.start()])
    return out


def _add_statement(out: list[VersionStatement], text: str, kind: str, matched: str,
                   before: str) -> None:
    try:
        version = Version(Version(text).public)
    except InvalidVersion:
        return
    out.append(VersionStatement(version, kind, matched.strip(), bool(_LINE_START.match(before))))


def _text_sources(doc: LoadedDocument) -> Iterator[tuple[str, int | None, str]]:
    """``(pointer, block_index or None, line text)`` for the guide and install texts."""
    guide = get(doc.data, "guide")
    if isinstance(guide, str):
        for index, text in enumerate(guide.split("\n")):
            yield "/guide", index, text
    for _, dep, dptr in elements(get(doc.data, "dependencies"), "/dependencies"):
        for key in ("command", "note"):
            if isinstance(get(dep, key), str):
                yield dptr + "/" + key, None, dep[key]
    for mode in ("pip", "docker"):
        for key in ("command", "note"):
            value = get(doc.data, "model", "install", mode, key)
            if isinstance(value, str):
                yield f"/model/install/{mode}/{key}", None, value


@rule("VER008", Severity.WARNING, "The guide states another vLLM version than min_vllm_version",
      reads=RECIPE_ONLY)
def guide_version_agrees(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The guide (and the install commands and notes) should not contradict
    ``min_vllm_version``. Reported: a pin (``vllm==X``) or a stated minimum (``vllm>=X``,
    "vLLM X or newer", "vLLM version: X") *below* the declared minimum — the reader
    installs a vLLM the recipe says cannot serve it (e.g. a GLM-5.3 page declaring 0.29.0
    whose guide installs 0.28.0); and a prerequisites-style minimum (a line that opens
    with it) *above* every declared minimum — then the declared floor is too low. Pins
    above the minimum and feature-scoped remarks ("EAGLE3 requires vLLM >= 0.9.0") are
    not contradictions. Both lines are reported.

    Failing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.11.0
          ```

    Passing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.12.0
          ```

    How to fix: state the declared minimum in the text, or change ``min_vllm_version`` if
    the text is right."""
    model_raw = get(doc.data, "model", "min_vllm_version")
    declared = parse_min_version(model_raw)
    if declared is None:
        return
    variant_mins = {v for _, raw, var in min_version_pointers(doc)
                    if var is not None and isinstance(v := parse_min_version(raw), Version)}
    related = (Related(_line(doc, "/model/min_vllm_version"),
                       f"min_vllm_version {format_version(declared)} declared here"),)
    for pointer, index, text in _text_sources(doc):
        seen: set[Version] = set()
        for st in version_statements(text):
            if st.version in seen:
                continue
            seen.add(st.version)
            below = declared == NIGHTLY or (isinstance(declared, Version)
                                            and st.version < declared)
            above = (isinstance(declared, Version) and st.kind == "minimum" and st.leading
                     and st.version > declared and st.version not in variant_mins)
            if not (below or above):
                continue
            verb = "installs" if st.kind == "pin" else "states"
            where = "the guide" if pointer == "/guide" else pointer
            hint = (f"state vLLM {format_version(declared)} (the declared minimum) here, or "
                    f"lower min_vllm_version if {st.version} really serves the model"
                    if below else f"raise min_vllm_version to {st.version}, or correct "
                    "the text")
            yield Hit(pointer, f"{where} {verb} vLLM {st.version} (`{st.text}`) but "
                      f"min_vllm_version is {format_version(declared)}", hint,
                      block_index=index, related=related)


# ---------------------------------------------------------------------------------------
# dates

_DATE = re.compile(r"^(?P<d>\d{4}-\d{2}-\d{2})(?:[Tt ][0-9:.]+(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$")


def parse_date(value: object) -> date | None:
    """A ``YYYY-MM-DD`` date (a YAML timestamp's date part), ``None`` otherwise."""
    if not isinstance(value, str):
        return None
    m = _DATE.match(value.strip())
    if m is None:
        return None
    try:
        return date.fromisoformat(m.group("d"))
    except ValueError:
        return None


@rule("VER009", Severity.WARNING, "date_added or date_updated is not a date",
      reads=RECIPE_ONLY)
def dates_are_dates(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``meta.date_added`` ("initial catalog addition; never change") and
    ``meta.date_updated`` ("latest material recipe change") are ``YYYY-MM-DD`` dates; the
    homepage ranks "Latest recipes" by them.

    Failing::

        meta:
          date_updated: "10 April 2026"

    Passing::

        meta:
          date_updated: 2026-04-10

    How to fix: write the date as ``YYYY-MM-DD``."""
    meta = get(doc.data, "meta")
    for key in ("date_added", "date_updated"):
        if isinstance(meta, dict) and key in meta and parse_date(meta[key]) is None:
            yield Hit(f"/meta/{key}", f"meta.{key} {meta[key]!r} is not a YYYY-MM-DD date",
                      "write the date as YYYY-MM-DD, e.g. 2026-04-20")


@rule("VER010", Severity.WARNING, "date_updated is earlier than date_added",
      reads=RECIPE_ONLY)
def updated_after_added(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A recipe cannot have been updated before it was added: ``meta.date_updated`` must be
    on or after ``meta.date_added``.

    Failing::

        meta:
          date_added: 2026-03-02
          date_updated: 2026-02-03

    Passing::

        meta:
          date_added: 2026-03-02
          date_updated: 2026-03-20

    How to fix: correct the swapped or mistyped date; ``date_added`` never changes and
    ``date_updated`` is the latest change."""
    added = parse_date(get(doc.data, "meta", "date_added"))
    updated = parse_date(get(doc.data, "meta", "date_updated"))
    if added is not None and updated is not None and updated < added:
        yield Hit("/meta/date_updated", f"date_updated {updated} is before date_added {added}",
                  "date_updated records the latest change; it is on or after date_added",
                  related=(Related(_line(doc, "/meta/date_added"),
                                   f"date_added {added}"),))
