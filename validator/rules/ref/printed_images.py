"""The Docker images the recipes site prints unquoted (``REF018``): every image a
rendering can show -- each CUDA build of a CUDA-keyed map, the record page's toggle
re-picking it -- and the install's ``docker pull``, at the recipe value each comes from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import get
from validator.analysis.shell_hazards import IMAGE_OPERAND, Hazard, printed_word_hazards
from validator.context import Context
from validator.load import LoadedDocument
from validator.render import jsval
from validator.render.docker import (
    BASE_CUDA,
    CUDA_BUILDS,
    compute_docker_meta,
    install_image_source,
    synthesize_install,
)
from validator.render.documents import ptr
from validator.render.renderer import Rendered
from validator.rules.ref.printed import SITE, Printed


def rendered_images(doc: LoadedDocument, ctx: Context, rendered: Rendered) -> Iterator[Printed]:
    """The Docker image of each CUDA build the site can show for ``rendered``'s hardware
    and variant (:data:`CUDA_BUILDS`: the record page's CUDA toggle re-picks the image,
    so the ``cu129`` entry of a CUDA map is printed as the ``cu130`` one is), at the
    recipe's value it comes from; the site's own default image is not the recipe's."""
    profile = get(ctx.taxonomy.data if ctx.taxonomy and ctx.taxonomy.ok else None,
                  "hardware_profiles", rendered.hardware)
    variant = get(doc.data, "variants", rendered.variant)
    shown: dict[str, set[str]] = {}
    for cuda in (BASE_CUDA, *(c for c in CUDA_BUILDS if c != BASE_CUDA)):
        meta = compute_docker_meta(doc.data, variant, profile, rendered.hardware, cuda)
        image = meta.image
        if meta.source is None or not isinstance(image, str):
            continue  # the site's own default image
        level, brand = meta.source
        base = {"hardware": ("variants", rendered.variant, "hardware_overrides",
                             rendered.hardware, "docker_image"),
                "variant": ("variants", rendered.variant, "docker_image"),
                "model": ("model", "docker_image")}[level]
        parts: tuple[Any, ...] = (*base, *((brand,) if brand else ()),
                                  *((meta.cuda_key,) if meta.cuda_key else ()))
        pointer = ptr(*parts)
        if not new_image(shown, pointer, image):
            continue
        how = f"{SITE} prints it unquoted in `docker run`"
        if cuda != BASE_CUDA:
            how += f" of CUDA build {cuda} (the record page's CUDA toggle)"
        yield Printed(doc.path, pointer, image, "the Docker image", how,
                      positional=IMAGE_OPERAND)


def new_image(shown: dict[str, set[str]], pointer: str, image: str) -> bool:
    """Whether ``image``, printed from the value at ``pointer``, is to be judged: a text
    of that value not yet judged, while none judged so far has a hazard (a plain tag's
    ``-cu129`` form: ``tag$`` is literal, ``tag$-cu129`` expands ``$-``) -- one finding
    per value. ``shown`` (pointer -> the texts judged) is updated."""
    texts = shown.setdefault(pointer, set())
    if image in texts or any(_image_hazards(text) for text in texts):
        return False
    texts.add(image)
    return True


def _image_hazards(image: str) -> list[Hazard]:
    return printed_word_hazards(image, literal=True, split=True, positional=IMAGE_OPERAND)


def install_images(doc: LoadedDocument) -> Iterator[Printed]:
    """The image of the install's ``docker pull`` (the JSON API and the record page show
    it for each CUDA build) when the site writes that command and the image is the
    recipe's ``model.docker_image`` value."""
    docker = get(doc.data, "model", "install", "docker")
    if docker is False or jsval.truthy(get(docker, "command") if jsval.truthy(docker)
                                       else None):
        return
    for cuda in CUDA_BUILDS:
        install = synthesize_install(doc.data, cuda) or {}
        image, parts = install_image_source(doc.data, cuda)
        command = get(install, "docker", "command")
        if parts is None or not isinstance(image, str) or not isinstance(command, str):
            continue
        printed = command.removeprefix("docker pull ")
        yield Printed(doc.path, ptr(*parts), printed, "the Docker image",
                      f"{SITE} prints it unquoted in the install command `docker pull "
                      f"IMAGE` (CUDA build {cuda})", positional=IMAGE_OPERAND)
