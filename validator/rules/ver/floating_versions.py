"""``VER011``, ``VER003``, ``VER012``: a minimum or an image that floats instead of naming
a vLLM release: a ``nightly`` minimum, an image tag that pins no release, a launch or
nightly image while the minimum is unreleased."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis.install_channel import image_statement
from validator.analysis.stated_versions import (
    FLOATING_TAG,
    NIGHTLY_COMMIT,
    RELEASE_LIKE,
    TAG_VERSION,
    ImageSite,
    image_sites,
    min_version_pointers,
    nightly_required,
    official_vllm_image,
    parse_image,
    release_list,
    required_by,
    tag_version,
)
from validator.analysis.versions import NIGHTLY, MinVersion, max_version, parse_min_version
from validator.findings import Severity
from validator.rules.api import Hit, Reads, rule
from validator.rules.ver.cpu_image import replacement_repository

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("VER011", Severity.ERROR, "min_vllm_version is \"nightly\"",
      reads=frozenset({Reads.RELEASES}))
def minimum_is_nightly(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``min_vllm_version: "nightly"`` is not a version: the recipes site parses it as
    0.0.0, so the page tells readers that any vLLM runs the recipe, and no rule can say
    which release first has what the recipe uses. Upstream replaced these with the
    release expected to ship support plus ``nightly_required: true``.

    Failing::

        model:
          min_vllm_version: "nightly"

    Passing::

        model:
          min_vllm_version: "0.34.0"
          nightly_required: true

    With ``nightly_required: true`` (on the model, or on the variant that says
    ``nightly``) the site renders the nightly install, so readers get code that runs the
    recipe: not reported (``FLAG019`` says once that such a recipe cannot be verified
    against a released vLLM yet).

    How to fix: write the first release that will (or did) ship support, and set
    ``nightly_required: true`` while it is unreleased."""
    latest = release_list(ctx).latest
    nxt = f"{latest.version.major}.{latest.version.minor + 1}.0" if latest else "0.X.0"
    for pointer, raw, variant in min_version_pointers(doc):
        if parse_min_version(raw) == NIGHTLY and not nightly_required(doc.data, variant):
            yield Hit(pointer, "min_vllm_version is \"nightly\": the site reads it as 0.0.0, so "
                      "the page claims every vLLM release runs this recipe",
                      f"write the release expected to ship support (e.g. \"{nxt}\") and set "
                      "nightly_required: true")


# ---------------------------------------------------------------------------------------
# images that name no release


@dataclass(frozen=True)
class UnpinnedImage:
    """A ``docker_image`` that names no vLLM release, with what the recipe needs.

    ``needed``: the highest minimum of the variants that render it; ``unreleased``: that
    minimum is ``nightly`` or newer than every release of the run's list, so no release
    tag can serve the recipe yet; ``release``: the first release that meets it.
    """

    site: ImageSite
    message: str
    needed: MinVersion | None
    unreleased: bool
    release: str | None


def unpinned_images(doc: LoadedDocument, ctx: Context) -> Iterator[UnpinnedImage]:
    """Every image string of ``doc`` that names no vLLM release."""
    releases = release_list(ctx)
    for site in image_sites(doc):
        ref = parse_image(site.value)
        if ref is None or ref.digest is not None or tag_version(ref) is not None:
            continue
        if ref.tag is not None and not official_vllm_image(ref) and TAG_VERSION.match(ref.tag):
            continue  # a third-party image pinned to a release of its own (vllm-ascend v0.23.0)
        if ref.tag is not None and official_vllm_image(ref) and RELEASE_LIKE.match(ref.tag):
            continue  # a typo of a release tag (v0.11.l): VER015, an error
        if ref.tag is None:
            msg = f"image {site.value!r} has no tag (Docker pulls the moving 'latest')"
        elif NIGHTLY_COMMIT.fullmatch(ref.tag):
            msg = (f"image tag {ref.tag!r} of {site.value!r} is the nightly build of one vLLM "
                   "commit: fixed, but no release, so its version cannot be compared")
        elif FLOATING_TAG.search(ref.tag):
            msg = f"image tag {ref.tag!r} of {site.value!r} moves with every build"
        elif RELEASE_LIKE.match(ref.tag):
            msg = (f"image tag {ref.tag!r} of {site.value!r} starts like a release tag but "
                   "names no release (a typo?)")
        else:
            msg = (f"image tag {ref.tag!r} of {site.value!r} is a launch build for this model, "
                   "not a vLLM release")
        needs = [r.needed for r in required_by(doc, ctx, site)]
        needed = max_version(needs)
        first = None
        if isinstance(needed, Version):
            hit = releases.first_at_least(needed)
            first = str(hit.version) if hit is not None else None
        unreleased = needed == NIGHTLY or (needed is not None and first is None)
        yield UnpinnedImage(site, msg, needed, unreleased, first)


def _pin_hint(ctx: Context, site: ImageSite, release: str | None) -> str:
    """How to pin the image at ``site``: vLLM's own image by the first release that meets
    the minimum; an image the install-channel model reads as a build of code of its own
    (:func:`~validator.analysis.install_channel.image_statement`: a community or dev
    build, vLLM-Omni, a platform plugin's image), whose commands need that code, by a
    digest or a fixed tag of the same image: a vLLM release image is no replacement."""
    ref = parse_image(site.value)
    stated = image_statement(site)
    if ref is not None and not official_vllm_image(ref) and stated is not None \
            and stated.unreleased:
        return (f"pin a digest ({ref.repository}@sha256:...) or a fixed tag of "
                f"{ref.repository}: the recipe runs its commands in that build's own code, "
                "which a vLLM release image does not carry")
    repo = ref.repository if ref is not None and official_vllm_image(ref) else "vllm/vllm-openai"
    if ref is not None:  # vLLM's CPU image on GPUs (VER016): pin the GPUs' image instead
        repo = replacement_repository(ctx, site, ref) or repo
    tag = f"{repo}:v{release}" if release else f"{repo}:v0.23.0"
    return f"pin the release tag {tag} (the first release that meets the minimum) or a digest " \
        "(@sha256:...)"


@rule("VER003", Severity.WARNING, "Docker image is not pinned to a vLLM release",
      reads=frozenset({Reads.RELEASES, Reads.TAXONOMY}))
def docker_tag_pinned(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``docker_image`` should name a release once the recipe's minimum is released:
    ``latest``, ``nightly``, ``nightly-<sha>``, ``cu130-nightly``, no tag at all (Docker
    pulls ``latest``) or a model launch build (``vllm/vllm-openai:glm5``) change over time
    or cannot be matched to a vLLM release, so the command a reader copies today is not
    the one that was tested. A digest (``@sha256:...``) pins an image exactly and is
    accepted, and so is a third-party image tagged with a release of its own
    (``vllm-ascend:v0.23.0-a5``). While the minimum is unreleased this is ``VER012``.

    Failing::

        model:
          min_vllm_version: "0.25.0"     # released
          docker_image: "vllm/vllm-openai:glm5"

    Passing::

        model:
          min_vllm_version: "0.25.0"
          docker_image: "vllm/vllm-openai:v0.25.0"

    How to fix: use the release tag the hint names (the first release that meets the
    minimum), or a digest. An image that is a build of other code (a community or dev
    build, vLLM-Omni's or a platform plugin's image: what the install-channel model
    reads the recipe's commands running in) is pinned by its digest or a fixed tag of its
    own: a vLLM release image lacks that code."""
    for found in unpinned_images(doc, ctx):
        if not found.unreleased:
            yield Hit(found.site.pointer, found.message, _pin_hint(ctx, found.site, found.release))


@rule("VER012", Severity.INFO, "Launch or nightly image while the minimum is unreleased",
      reads=frozenset({Reads.RELEASES}))
def launch_image_before_release(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The image names no release (a model launch build such as
    ``vllm/vllm-openai:glm5``, or a nightly), and the recipe's minimum is not released
    yet: that is how day-0 support ships, so it is reported as information only. Once the
    minimum is released it becomes ``VER003`` and names the release tag to use. A digest
    pins the launch build meanwhile.

    Failing::

        model:
          min_vllm_version: "0.40.0"     # not released yet
          nightly_required: true
          docker_image: "vllm/vllm-openai:glm5"

    Passing::

        model:
          min_vllm_version: "0.40.0"
          nightly_required: true
          docker_image: >-
            vllm/vllm-openai@sha256:9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8

    After 0.40.0 ships the ``glm5`` image is ``VER003`` (a warning) and the hint names the
    release tag.

    How to fix: nothing until the release (or pin the launch build by its digest); then
    pin the release tag."""
    for found in unpinned_images(doc, ctx):
        if found.unreleased:
            yield Hit(found.site.pointer, found.message + f"; the recipe needs vLLM "
                      f"{found.needed}, which is not released yet", "pin the release tag "
                      "once it ships")
