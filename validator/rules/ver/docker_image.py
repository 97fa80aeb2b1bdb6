"""``VER002``, ``VER004``: ``docker_image`` strings are image references, and a tag
that pins a vLLM version meets the minimum of every variant that renders it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from packaging.version import Version

from validator.analysis.install_channel import feature_statement, image_statement
from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import (
    ImageSite,
    ascend_release,
    image_sites,
    line_of,
    official_vllm_image,
    parse_image,
    release_list,
    required_by,
)
from validator.analysis.versions import NIGHTLY, MinVersion, format_version
from validator.context import Context
from validator.findings import Related, Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, replace_in_scalar, value_at
from validator.load import LoadedDocument
from validator.releases import ReleaseList
from validator.render.jsval import JsTypeError
from validator.rules.api import CONTEXT_FILES, RECIPE_ONLY, Hit, Reads, rule
from validator.sourcemap import join_pointer

# ---------------------------------------------------------------------------------------
# Docker images


@rule("VER002", Severity.ERROR, "Docker image tag is older than the minimum vLLM version",
      reads=CONTEXT_FILES | {Reads.RELEASES})  # a dev build's newer-than-released tag
def docker_tag_meets_minimum(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``docker_image`` whose tag is a vLLM version (``v0.23.0``, ``0.23.0``,
    ``v0.23.0-cu129``, or ``vllm-0.23.1-...`` on third-party images) must be at least the
    recipe's minimum, and the effective minimum of every variant the site renders it for
    (see :func:`validator.analysis.versions.effective_min_version`): an older image cannot
    run the recipe. Which image a variant gets on which hardware is the site's choice
    (variant hardware override > variant > model, by the profile's brand), judged on the
    configurations the site renders (:func:`validator.render.cache.rendered_configurations`):
    a model-level ROCm image is not blamed on a variant the picker shows on NVIDIA
    hardware only. The message names the hardware. What an image is comes from the
    install-channel model (:func:`~validator.analysis.install_channel.image_statement`,
    as the ``FLAG`` and ``GUIDE`` rules read it): a release image pins its release; a
    community or dev build (``rocm/vllm-dev:vllm-0.23.1-...``) carries code past the
    release its tag names, so a minimum no release has yet is not held against it; a
    nightly or launch image, or a tag that names no vLLM release (``vllm/vllm-omni`` tags
    are vLLM-Omni versions), is not compared. vLLM-Ascend's image
    (``quay.io/ascend/vllm-ascend:v0.9.1``) is compared by the vLLM its release is built
    on (vLLM-Ascend follows vLLM's numbering: 0.9.1 is built on vLLM 0.9.1). A
    configuration needs what its features state too ("EAGLE3 (requires vLLM >= 0.9.0)"),
    as the ``FLAG`` rules check its commands at it. A ``nightly`` minimum is never met by
    a release tag of vLLM's own images.

    Failing::

        model:
          min_vllm_version: "0.12.0"
          docker_image: "vllm/vllm-openai:v0.11.0"

    Failing (an NPU's vLLM-Ascend image)::

        model:
          min_vllm_version: "0.10.0"
        variants:
          default:
            hardware_overrides:
              ascend_950pr:
                docker_image: "quay.io/ascend/vllm-ascend:v0.9.1"

    Passing::

        model:
          min_vllm_version: "0.12.0"
          docker_image: "vllm/vllm-openai:v0.12.0"

    Passing (vLLM-Ascend 0.11.0 is built on vLLM 0.11.0)::

        model:
          min_vllm_version: "0.10.0"
        variants:
          default:
            hardware_overrides:
              ascend_950pr:
                docker_image: "quay.io/ascend/vllm-ascend:v0.11.0"

    How to fix: use an image of the minimum release or newer (or lower the minimum if the
    older image really serves the model)."""
    rendered = rendered_images(doc, ctx)
    releases = release_list(ctx)
    for site in image_sites(doc):
        stated = image_statement(site)
        if stated is None or stated.minimum is None:
            continue
        pinned = stated.minimum
        ref = parse_image(site.value)
        plugin = ascend_release(ref) if ref is not None else None
        what = f"vLLM {pinned}" if plugin is None else \
            f"vLLM-Ascend {plugin} (built on vLLM {pinned})"
        for needed, who, min_ptr, where in _requirements(doc, ctx, site, rendered):
            if stated.unreleased and _unreleased(needed, releases):
                continue  # a build past its tag may carry what no release has yet
            if needed == NIGHTLY or (isinstance(needed, Version) and pinned < needed):
                yield Hit(site.pointer,
                          f"image {site.value!r} is {what}, but {who}{where} needs "
                          f"vLLM {format_version(needed)}",
                          _newer_image(needed, plugin is not None),
                          related=(Related(line_of(doc, min_ptr),
                                           f"minimum vLLM {format_version(needed)} "
                                           "declared here"),))
                break


def _newer_image(needed: MinVersion, ascend: bool) -> str:
    """The hint of an image older than ``needed``: a newer image of its kind (of
    vLLM-Ascend when ``ascend``: its release built on that vLLM or a later one)."""
    if needed == NIGHTLY:
        return "use a nightly image"
    if ascend:
        return (f"use a vLLM-Ascend image of a release built on vLLM {format_version(needed)} "
                "or newer")
    return f"use an image of vLLM {format_version(needed)} or newer"


def _unreleased(needed: MinVersion, releases: ReleaseList) -> bool:
    """Whether minimum ``needed`` is in no release of the run's list yet (``nightly``, or
    newer than the newest release)."""
    latest = releases.latest
    return needed == NIGHTLY or latest is None or needed > latest.version


def _requirements(doc: LoadedDocument, ctx: Context, site: ImageSite,
                  rendered: RenderedImages | None,
                  ) -> Iterator[tuple[MinVersion, str, str, str]]:
    """``(minimum, who, pointer, where)`` an image must meet: :func:`required_by`, with a
    variant's minimum kept only where the site renders the image for that variant
    (``where``: `` (rendered with it on b200, b300)``, put before "needs vLLM X", which
    ends the message for the ``VER002`` fix). A variant's own image keeps its
    minimum; without renderings (no taxonomy, a recipe the site cannot plan, more
    configurations than are rendered) a variant they do not show keeps the recipe-only
    reading of :func:`required_by`."""
    for req in required_by(doc, ctx, site):
        if req.variant is None or rendered is None:
            yield req.needed, req.who, req.pointer, ""
            continue
        hardware = rendered.hardware(site.pointer, str(req.variant))
        if hardware:
            yield req.needed, req.who, req.pointer, f" (rendered with it on {_listed(hardware)})"
        elif site.variant is not None or (str(req.variant) not in rendered.variants
                                          and not rendered.complete):
            yield req.needed, req.who, req.pointer, ""
    if rendered is not None:
        yield from _feature_requirements(doc, site, rendered)


def _feature_requirements(doc: LoadedDocument, site: ImageSite, rendered: RenderedImages,
                          ) -> Iterator[tuple[MinVersion, str, str, str]]:
    """What the features the site renders with the image state they need (the
    install-channel model's :func:`~validator.analysis.install_channel.feature_statement`:
    "requires vLLM >= 0.9.0"), named with the hardware they are rendered on."""
    for (feature, mode), hardware in rendered.features_with(site.pointer).items():
        stated = feature_statement(doc, feature, mode)
        if stated is None or stated.minimum is None:
            continue
        node = join_pointer("/features", feature)
        if mode is not None and get(doc.data, "features", feature, "modes", mode) is not None:
            own = get(doc.data, "features", feature, "modes", mode, "description")
            if isinstance(own, str) and stated.text in own:
                node = join_pointer(join_pointer(node, "modes"), mode)
        yield (stated.minimum, stated.by, join_pointer(node, "description"),
               f" (rendered with it on {_listed(hardware)})")


@dataclass
class RenderedImages:
    """Which recipe image node the site renders for each variant on each hardware.

    Attributes:
        nodes: pointer of an image node (``/model/docker_image/amd``,
            ``/variants/fp8/docker_image``, ``.../hardware_overrides/mi300x/docker_image``)
            -> variant -> hardware ids, in rendering order.
        variants: the variants rendered on some hardware.
        complete: every configuration was rendered (none past the renderer's limit).
    """

    nodes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    variants: set[str] = field(default_factory=set)
    complete: bool = True
    features: dict[str, dict[tuple[str, str | None], list[str]]] = field(default_factory=dict)
    """Pointer of an image node -> (feature, mode or ``None``) rendered with it -> the
    hardware ids it is rendered on."""

    def hardware(self, pointer: str, variant: str) -> list[str]:
        """The hardware on which ``variant`` renders the image string at ``pointer`` (a
        CUDA map's entries belong to the map's node)."""
        out: list[str] = []
        for node, by_variant in self.nodes.items():
            if pointer == node or pointer.startswith(node + "/"):
                out += [hw for hw in by_variant.get(variant, []) if hw not in out]
        return out

    def features_with(self, pointer: str) -> dict[tuple[str, str | None], list[str]]:
        """(feature, mode) -> the hardware on which the image string at ``pointer`` is
        rendered with it."""
        out: dict[tuple[str, str | None], list[str]] = {}
        for node, by_feature in self.features.items():
            if pointer == node or pointer.startswith(node + "/"):
                for key, hardware in by_feature.items():
                    have = out.setdefault(key, [])
                    have += [hw for hw in hardware if hw not in have]
        return out


def rendered_images(doc: LoadedDocument, ctx: Context) -> RenderedImages | None:
    """The :class:`RenderedImages` of ``doc`` from the configurations the site renders
    (``None`` when it renders none: no taxonomy profile, a recipe it cannot plan)."""
    from validator.render.cache import rendered_configurations
    from validator.render.renderer import CONFIGURATION_LIMIT

    out = RenderedImages()
    nodes: dict[tuple[str, str], str | None] = {}
    for r in rendered_configurations(doc, ctx):
        if any(p.code == CONFIGURATION_LIMIT for p in r.problems):
            out.complete = False
        pair = (r.variant, r.hardware)
        if not r.hardware:
            continue
        if pair not in nodes:
            nodes[pair] = _image_node(doc, ctx, r.variant, r.hardware, out)
        node = nodes[pair]
        if node is None:
            continue
        modes = dict(r.config.feature_modes)
        by_feature = out.features.setdefault(node, {})
        for feature in r.config.features:
            hardware = by_feature.setdefault((feature, modes.get(feature)), [])
            if r.hardware not in hardware:
                hardware.append(r.hardware)
    return out if out.variants else None


def _image_node(doc: LoadedDocument, ctx: Context, variant_key: str, hardware: str,
                out: RenderedImages) -> str | None:
    """The image node the site renders for ``variant_key`` on ``hardware`` (``None``:
    none), recorded in ``out``."""
    from validator.render.docker import compute_docker_meta

    out.variants.add(variant_key)
    profile = ctx.hardware_profiles.get(hardware)
    variant = get(doc.data, "variants", variant_key)
    try:
        meta = compute_docker_meta(doc.data, variant, profile, hardware)
    except JsTypeError:
        return None
    if meta.source is None:
        return None
    level, key = meta.source
    node = ("/model/docker_image" if level == "model" else
            join_pointer(join_pointer("/variants", variant_key), "docker_image")
            if level == "variant" else
            join_pointer(join_pointer(join_pointer(join_pointer(
                "/variants", variant_key), "hardware_overrides"), hardware),
                "docker_image"))
    if key is not None:
        node = join_pointer(node, key)
    out.nodes.setdefault(node, {}).setdefault(variant_key, []).append(hardware)
    return node


def _listed(hardware: list[str]) -> str:
    shown = ", ".join(hardware[:SHOWN_HARDWARE])
    more = len(hardware) - SHOWN_HARDWARE
    return shown + (f" and {more} more" if more > 0 else "")


#: How many hardware profiles a ``VER002`` message names.
SHOWN_HARDWARE = 4


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
            fixed = _image_in(site.value)
            hint = (f"write only the image: {fixed!r}" if fixed else
                    "write an image reference such as vllm/vllm-openai:v0.23.0")
            yield Hit(site.pointer, f"docker_image {site.value!r} is not an image reference",
                      hint)


def _image_in(text: str) -> str | None:
    """The one word of ``text`` that is an image reference with a repository path
    (``org/name...``), not an option or an option's value (``-p 1:1``), or ``None`` when
    there is not exactly one: the image a ``docker pull ...`` or ``image --flag x`` value
    holds."""
    words = text.split()
    found = [w for i, w in enumerate(words) if "/" in w and not w.startswith("-")
             and not (i and words[i - 1].startswith("-") and "=" not in words[i - 1])
             and parse_image(w) is not None]
    return found[0] if len(found) == 1 else None


_RELEASE_TAG = re.compile(r"v?\d+\.\d+\.\d+")
_NEEDS = re.compile(r"needs vLLM ([0-9][0-9A-Za-z.+]*[0-9A-Za-z])\s*$")


@fixer("VER002", applicability=Applicability.UNSAFE,
       summary="bump the image's release tag to the minimum")
def bump_image_tag(req: FixRequest) -> FixResult:
    """``vllm/vllm-openai:v0.11.0`` -> ``vllm/vllm-openai:v0.13.0`` when the recipe needs
    0.13.0. Only plain release tags of vLLM's own images (published for every release);
    a tag with a build suffix (``-cu129``) or a third-party image is left alone."""
    m = _NEEDS.search(req.finding.message)
    if m is None:
        raise NotApplicable("the needed release is not a version (nightly?)")
    value = value_at(req.doc, req.finding.pointer)
    ref = parse_image(value) if isinstance(value, str) else None
    if ref is None or ref.tag is None or ref.digest is not None:
        raise NotApplicable("the image has no tag to bump")
    if not official_vllm_image(ref) or not _RELEASE_TAG.fullmatch(ref.tag):
        raise NotApplicable(f"tag `{ref.tag}` is not a plain release tag of a vLLM image; "
                            "which tag to use is not known")
    assert isinstance(value, str)
    if not value.endswith(ref.tag):
        raise NotApplicable("the tag is not at the end of the image reference")
    new = value[:len(value) - len(ref.tag)] + ("v" if ref.tag.startswith("v") else "") \
        + m.group(1)
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, value, new)
    return f"`{value}` -> `{new}`", [edit], [change]
