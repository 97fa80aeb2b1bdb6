"""``VER002``, ``VER004``: ``docker_image`` strings are image references, and a tag
that pins a vLLM version meets the minimum of every variant that renders it."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from validator.checks.registry import RECIPE_ONLY, Hit, rule
from validator.checks.ver_model import image_sites, line_of, parse_image, required_by, tag_version
from validator.checks.versions import NIGHTLY, format_version
from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument

# ---------------------------------------------------------------------------------------
# Docker images


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
        for needed, who, min_ptr in required_by(doc, ctx, site):
            if needed == NIGHTLY or (isinstance(needed, Version) and pinned < needed):
                yield Hit(site.pointer,
                          f"image {site.value!r} is vLLM {pinned}, but {who} needs vLLM "
                          f"{format_version(needed)}",
                          f"use an image of vLLM {format_version(needed)} or newer"
                          if needed != NIGHTLY else "use a nightly image",
                          related=(Related(line_of(doc, min_ptr),
                                           f"minimum vLLM {format_version(needed)} "
                                           "declared here"),))
                break


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
