"""The image a guide section's commands run in, when the section is about one hardware.

A recipe may give each hardware brand its own image (``docker_image: {amd:
vllm/vllm-openai-rocm:v0.22.1}``, ``{amd: vllm/vllm-openai-rocm:nightly}``) or one
hardware of a variant its own (``hardware_overrides.dgx_spark_gb10.docker_image``, a
community build carrying a backend). A guide section headed for that hardware ("### AMD
MI350X/MI355X", "### DGX Spark (GB10)") is what users of it run, in that image: the
section's install channel is the image, not the recipe's minimum alone. A section that
states its own version or install command keeps what it states
(:func:`validator.analysis.guide_sections.section_context` comes first).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from validator.analysis import cli_plan
from validator.analysis.guide_sections import (
    BRAND_WORDS,
    SectionContext,
    in_code_block,
    section_context,
    section_span,
)
from validator.analysis.install_channel import image_for, image_statement
from validator.analysis.install_range import (
    LATEST,
    UNRELEASED_KINDS,
    classify_image,
    install_paths,
)
from validator.analysis.stated_versions import (
    ImageSite,
    image_sites,
    official_vllm_image,
    parse_image,
    tag_version,
)

if TYPE_CHECKING:
    from validator.guide.commands import ServeCommand
    from validator.load import LoadedDocument
    from validator.vllm_cli.data_source import CliRegistries


_WORD = re.compile(r"[a-z0-9]+")


def section_image(doc: LoadedDocument, guide: str, line: int,
                  variant: str | None) -> SectionContext | None:
    """What the image of the hardware the section of 0-based guide ``line`` is headed for
    states about its commands (:func:`~validator.analysis.install_channel.image_statement`:
    a pinned release, unreleased code, or a community or dev build). ``None`` when the
    headings name no one hardware with an image of its own, or that image is vLLM's
    ``:latest`` (the newest release, as the recipe's range has)."""
    chain, start, _ = section_span(guide, line)
    if not chain:
        return None
    site = _site_for(doc, " ".join(chain), variant)
    stated = image_statement(site) if site is not None else None
    if stated is None:
        return None
    return SectionContext(stated.minimum, stated.top, stated.unreleased, max(start - 1, 0),
                          stated.text)


def command_image(cli: CliRegistries, cmd: ServeCommand) -> SectionContext | None:
    """What a ``docker run`` command's own image states when it is vLLM's ``:latest``
    release image (``vllm/vllm-openai-rocm:latest``): the command runs the newest release
    of the window, whatever the recipe's minimum. ``None`` for other commands and images
    (a pinned or nightly image the section's own text already states)."""
    if cmd.image is None:
        return None
    ref = parse_image(cmd.image)
    path = classify_image(cmd.image, "/guide")
    versions = cli_plan.versions(cli)
    if ref is None or path is None or path.kind != LATEST or ref.digest is not None \
            or not official_vllm_image(ref) or not versions:
        return None
    newest = versions[-1]
    return SectionContext(newest, None, False, cmd.line,
                          f"the command runs {cmd.image} (the newest release, {newest})")


def command_release(cmd: ServeCommand) -> SectionContext | None:
    """What a ``docker run`` command's own image states when it is a release image of
    vLLM's own (``vllm/vllm-openai:v0.10.0``): the command runs that release, whatever
    its section says. ``None`` for other commands and images."""
    ref = parse_image(cmd.image) if cmd.image is not None else None
    if ref is None or ref.digest is not None or not official_vllm_image(ref):
        return None
    version = tag_version(ref)
    if version is None:
        return None
    return SectionContext(version, version, False, cmd.line, f"the command runs {cmd.image}")


def pinned_release(guide: str, cmd: ServeCommand) -> SectionContext | None:
    """The release a command runs by what the guide executes: its own image of vLLM's
    (:func:`command_release`), else the release its block pins on a line of code
    (``uv pip install "vllm==0.9.2"``, ``docker pull vllm/vllm-openai:v0.9.2``: the
    :func:`~validator.analysis.guide_sections.section_context` of the block when its
    statement is code, not prose such as "the verified run used a v0.18.0 image");
    ``None`` when neither pins one."""
    own = command_release(cmd)
    if own is not None:
        return own
    stated = section_context(guide, cmd.line)
    if stated is None or stated.top is None or not in_code_block(guide, stated.line):
        return None
    return stated


def _site_for(doc: LoadedDocument, headings: str, variant: str | None) -> ImageSite | None:
    """The image of the one hardware ``headings`` name
    (:func:`~validator.analysis.install_channel.image_for`): a hardware id's own image (all
    words of the id in the headings: ``dgx_spark_gb10`` in "DGX Spark (GB10)"), else the
    image keyed by the one brand they name; the variant's before the model's (any
    variant's for a command of the base model, ``variant`` ``None``)."""
    words = set(_WORD.findall(headings.lower()))
    sites = [s for s in image_sites(doc) if variant is None or s.variant in (variant, None)]
    brands = [b for b, pattern in BRAND_WORDS.items() if pattern.search(headings)]
    return image_for(sites, lambda hw: set(_WORD.findall(hw.lower())) <= words, brands)


def family_from_source(doc: LoadedDocument, guide: str, family: str) -> SectionContext | None:
    """What the recipe's install commands of the plugin ``family`` (``vllm-omni``) state
    for its commands: unreleased code when every command that installs it installs it
    from source or a nightly (``uv pip install git+https://github.com/vllm-project/
    vllm-omni.git``, a ``git clone``), so no release's options bound them; else ``None``."""
    paths = [p for p in install_paths(doc) if family in p.text.lower()]
    if not paths or any(p.kind not in UNRELEASED_KINDS for p in paths):
        return None
    lines = guide.splitlines()
    first = paths[0].text.splitlines()[0]
    line = next((i for i, text in enumerate(lines) if first in text), 0)
    return SectionContext(None, None, True, line, f"{family} is installed from {first}"[:120])
