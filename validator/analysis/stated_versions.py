"""What the ``VER`` rules (``validator/rules/ver/``) and the install ranges read: the release
list of a run, the ``min_vllm_version`` fields, Docker image references and the texts that
state versions.

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
from typing import NamedTuple

from packaging.version import InvalidVersion, Version

from validator.analysis.recipe_data import as_dict, elements, get, items
from validator.analysis.versions import (
    MinVersion,
    effective_min_version,
    parse_min_version,
    version_key,
)
from validator.context import Context
from validator.load import LoadedDocument
from validator.releases import ReleaseList, load_release_list
from validator.sourcemap import join_pointer

BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")
CUDA_KEYS = ("cu129", "cu130")


def release_list(ctx: Context) -> ReleaseList:
    """The vLLM release list of the run (vendored or online, cut at ``--as-of``)."""
    full = load_release_list(online=ctx.settings.online_releases,
                             snapshot_dir=ctx.settings.vendored_dir)
    return full if ctx.settings.as_of is None else full.published_by(ctx.settings.as_of)


def line_of(doc: LoadedDocument, pointer: str) -> int:
    """The 1-based line of ``pointer`` in ``doc``."""
    return doc.source_map.position(pointer)[0]


def min_version_pointers(doc: LoadedDocument) -> Iterator[tuple[str, object, str | None]]:
    """``(pointer, raw value, variant or None)`` of every ``min_vllm_version`` in a recipe."""
    model = get(doc.data, "model")
    if isinstance(model, dict) and "min_vllm_version" in model:
        yield "/model/min_vllm_version", model["min_vllm_version"], None
    for vname, variant, vptr in items(get(doc.data, "variants"), "/variants"):
        if isinstance(variant, dict) and "min_vllm_version" in variant:
            yield vptr + "/min_vllm_version", variant["min_vllm_version"], vname


def nightly_required(data: object, variant: str | None = None) -> bool:
    """Whether the recipe (or ``variant``, which inherits the model's) sets
    ``nightly_required: true``: the site then renders the nightly wheel and image."""
    return get(data, "model", "nightly_required") is True or (
        variant is not None and get(data, "variants", variant, "nightly_required") is True)


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
TAG_VERSION = re.compile(
    r"^v?(?P<v>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:$|[-_+])", re.IGNORECASE)
_TAG_VLLM_VERSION = re.compile(
    r"(?:^|[-_])vllm[-_]?v?(?P<v>\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?)(?:$|[-_+])",
    re.IGNORECASE)
RELEASE_LIKE = re.compile(r"^v?\d+\.\d+")
"""A tag that starts like a release tag (``v0.11.l`` is a typo of one, no launch build)."""
FLOATING_TAG = re.compile(r"^(?:latest|nightly|main|dev)(?:$|[-_])|[-_](?:latest|nightly)$",
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
    repo = repository(ref)
    return repo.startswith("vllm/") and "omni" not in repo


OFFICIAL_REPOSITORIES: dict[str, str | None] = {
    "vllm/vllm-openai": "nvidia", "vllm/vllm-openai-rocm": "amd", "vllm/vllm-tpu": "tpu",
    "vllm/vllm-openai-xpu": "intel", "vllm/vllm-openai-cpu": None,
    "vllm/vllm-omni": "nvidia", "vllm/vllm-omni-rocm": "amd"}
"""vLLM's own image repositories on Docker Hub (the site's default images, ``_LATEST`` and
``_NIGHTLY`` of :mod:`validator.render.docker`, and those the corpus's recipes name) ->
the hardware brand key whose machines they run on (``None``: the CPU image, any x86)."""


def repository(ref: ImageRef) -> str:
    """``ref``'s repository without Docker Hub's default registry prefix."""
    return ref.repository.removeprefix("docker.io/").removeprefix("index.docker.io/")


def image_platform(ref: ImageRef) -> str | None:
    """The brand key (``nvidia``, ``amd``...) of the machines an image runs on: that of
    vLLM's own repositories (:data:`OFFICIAL_REPOSITORIES`), ``amd`` for another ROCm
    build (``rocm/vllm-dev``); ``None`` when the name does not say."""
    repo = repository(ref)
    if repo in OFFICIAL_REPOSITORIES:
        return OFFICIAL_REPOSITORIES[repo]
    return "amd" if re.search(r"(?:^|[/_.-])rocm(?:$|[/_.-])", repo) else None


def tag_version(ref: ImageRef) -> Version | None:
    """The vLLM version a tag pins: ``v0.23.0``, ``0.23.0``, ``v0.20.0-cu129`` on official
    images; ``vllm-0.23.1-rocm723-...`` (an explicit ``vllm-`` prefix) on any image."""
    if ref.tag is None:
        return None
    explicit = _TAG_VLLM_VERSION.search(ref.tag)
    m = explicit or (TAG_VERSION.match(ref.tag) if official_vllm_image(ref) else None)
    if m is None:
        return None
    try:
        return Version(m.group("v"))
    except InvalidVersion:
        return None


def ascend_release(ref: ImageRef) -> Version | None:
    """The vLLM-Ascend release a tag of vLLM-Ascend's image (``quay.io/ascend/vllm-ascend``,
    any registry) names: ``v0.11.0``, ``v0.11.0rc1``, ``v0.23.0-a5`` (a platform build of
    the release); ``None`` for another image or tag (``latest``, ``main``, a launch build
    such as ``qwen3.8-a5``). Its tags are vLLM-Ascend versions, not vLLM's."""
    if ref.tag is None or ref.digest is not None:
        return None
    if repository(ref).rsplit("/", 1)[-1] != "vllm-ascend":
        return None
    m = TAG_VERSION.match(ref.tag)
    try:
        return Version(m.group("v")) if m is not None else None
    except InvalidVersion:
        return None


def ascend_base(release: Version) -> Version:
    """The vLLM release a vLLM-Ascend release is built on, by vLLM-Ascend's numbering
    (0.11.0rc1 and 0.11.0 on vLLM 0.11.0, 0.23.0.post1 on 0.23.0: the ``vllm_version`` of
    every vendored release, ``snapshots/vllm-cli/vllm-ascend/*.json``, is its base)."""
    return Version(release.base_version)


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


def variant_covers_brand(doc: LoadedDocument, variant: str, brand: str) -> bool:
    """Whether ``variant``'s ``docker_image`` gives an image for ``brand`` (``"nvidia"``,
    ``"amd"``): a plain string is NVIDIA's, a brand map names its brands, a CUDA map
    (``cu129``/``cu130``) is NVIDIA's."""
    image = get(doc.data, "variants", variant, "docker_image")
    if isinstance(image, str):
        return brand == "nvidia"
    mapping = as_dict(image)
    if any(k in mapping for k in BRAND_KEYS):
        return brand in mapping
    return brand == "nvidia" and any(k in mapping for k in CUDA_KEYS)


class Required(NamedTuple):
    """A minimum an image must meet (:func:`required_by`).

    Attributes:
        needed: the minimum.
        who: ``the recipe`` or ``variant 'fp8'``, for messages.
        pointer: where the minimum is declared.
        variant: the variant that needs it (``None``: the recipe's own minimum).
    """

    needed: MinVersion
    who: str
    pointer: str
    variant: str | None


def required_by(doc: LoadedDocument, ctx: Context, site: ImageSite) -> list[Required]:
    """The minimums an image must satisfy: the model's minimum, and that of every variant
    that may render this image (its own, or the model's where the variant's image does
    not cover the brand), from the recipe alone; which hardware really renders it is the
    site's picker (``VER002`` narrows with the renderings)."""
    out: list[Required] = []
    if site.variant is not None:
        needed = effective_min_version(doc, ctx, site.variant)
        if needed is not None:
            out.append(Required(needed, f"variant {site.variant!r}",
                                min_pointer(doc, site.variant), site.variant))
        return out
    model_min = effective_min_version(doc, ctx)
    if model_min is not None:
        out.append(Required(model_min, "the recipe", "/model/min_vllm_version", None))
    for vname in as_dict(get(doc.data, "variants")):
        if variant_covers_brand(doc, vname, site.brand):
            continue
        needed = effective_min_version(doc, ctx, vname)
        if needed is not None and (model_min is None
                                   or version_key(needed) > version_key(model_min)):
            out.append(Required(needed, f"variant {vname!r}", min_pointer(doc, vname), vname))
    return out


def min_pointer(doc: LoadedDocument, variant: str) -> str:
    """The JSON Pointer of the minimum that applies to ``variant``: its own
    ``min_vllm_version`` when it states a valid one, else the recipe's."""
    own = get(doc.data, "variants", variant, "min_vllm_version")
    if parse_min_version(own) is not None:
        return join_pointer(join_pointer("/variants", variant), "min_vllm_version")
    return "/model/min_vllm_version"


_TEXT_IMAGE = re.compile(r"(?<![\w./-])((?:(?:index\.)?docker\.io/)?vllm/[a-z0-9._-]+:\w[\w.-]*)",
                         re.IGNORECASE)


_TEXT_ASCEND_IMAGE = re.compile(r"(?<![\w./-])((?:[a-z0-9.-]+/)*vllm-ascend:\w[\w.-]*)",
                                re.IGNORECASE)


def text_ascend_images(text: str) -> Iterator[tuple[str, Version]]:
    """``(image, vLLM-Ascend release)`` of every vLLM-Ascend image with a release tag
    that a line of text names (``docker run ... quay.io/ascend/vllm-ascend:v0.11.0``)."""
    for m in _TEXT_ASCEND_IMAGE.finditer(text):
        image = m.group(1).rstrip(".")
        ref = parse_image(image)
        release = ascend_release(ref) if ref is not None else None
        if release is not None:
            yield image, release


def text_images(text: str) -> Iterator[tuple[str, Version]]:
    """``(image, release)`` of every image of vLLM's own with a release tag that a line
    of text names (``docker run ... vllm/vllm-openai:v0.20.2``, ``docker pull
    vllm/vllm-openai-rocm:v0.22.1``): the release the command runs."""
    for m in _TEXT_IMAGE.finditer(text):
        image = m.group(1).rstrip(".")
        ref = parse_image(image)
        version = tag_version(ref) if ref is not None and official_vllm_image(ref) else None
        if version is not None:
            yield image, version


NIGHTLY_COMMIT = re.compile(r"(?:[a-z0-9]+-)?nightly-[0-9a-f]{7,40}")


def text_sources(doc: LoadedDocument) -> Iterator[tuple[str, int | None, str]]:
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
