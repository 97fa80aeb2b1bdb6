"""The install channel of a configuration or a guide section: which vLLM runs its commands.

A recipe's install range (:mod:`validator.analysis.install_range`: its minimum, up to what
its install paths pull) is what a user of the recipe as a whole gets. Some commands run
elsewhere, and the recipe says so:

* a hardware with an image of its own (``variants.<v>.hardware_overrides.<hw>.docker_image``,
  a brand-keyed ``docker_image: {amd: ...}``): a pinned release, a nightly, or a community
  or dev build carrying code of its own (DGX Spark's ``eugr/spark-vllm-b12x``);
* a feature (or one of its modes) whose description states its own minimum ("EAGLE3
  speculative decoding (requires vLLM >= 0.9.0)");
* a guide section that states a version, pins a release or an image, or installs source
  (:mod:`validator.analysis.guide_sections`, :mod:`validator.analysis.guide_images`).

Each such statement is a :class:`Stated`; :func:`channel_plan` turns the range and the
statements that apply into the :class:`~validator.analysis.cli_plan.VersionPlan` the ``FLAG``
and ``GUIDE`` engines check tokens against: a stated minimum above the recipe's replaces
it, a pinned release bounds the range, unreleased code without a stated release is checked
as ``nightly``. :func:`configuration_statements` gives the statements of one rendered
configuration (hardware, variant, features), :func:`layer_statements` those of one
argument list of the recipe, :func:`image_statement` what one image states (the guide's
section images read it too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from validator.analysis.cli_plan import VersionPlan, per_document, plan_for
from validator.analysis.install_range import PINNED, UNRELEASED_KINDS, classify_image
from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import (
    BRAND_KEYS,
    ImageSite,
    ascend_base,
    ascend_release,
    image_sites,
    official_vllm_image,
    parse_image,
)
from validator.analysis.version_prose import VersionStatement, version_statements
from validator.analysis.versions import NIGHTLY, MinVersion, format_version

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.data_source import CliRegistries


@dataclass(frozen=True)
class Stated:
    """What the recipe states about the vLLM that runs some of its commands.

    Attributes:
        minimum: the highest version stated as needed or validated (``None``: none).
        top: the release it pins (``vllm==X``, a ``vX`` image, "validated with X").
        unreleased: it runs code no release has (nightly, source, a community or dev
            build, a launch image).
        text: the statement, for messages.
        by: who states it, as messages name it ("its section", "feature 'mtp'").
        by_ref: the same in a hint ("the section", "feature 'mtp'").
    """

    minimum: Version | None
    top: Version | None
    unreleased: bool
    text: str
    by: str = "its section"
    by_ref: str = "the section"


def channel_plan(cli: CliRegistries, declared: MinVersion | None, family: str,
                 top: str | None, unreleased: bool, statements: Sequence[Stated]
                 ) -> VersionPlan:
    """The plan, on the run's registries ``cli``, of commands whose install range is
    (``declared``, ``top``, ``unreleased``) and that run in the channel ``statements``
    describe; with a stated minimum, the plan's
    :attr:`~validator.analysis.cli_plan.VersionPlan.floor` says what the messages compare
    with."""
    recipe, recipe_top, recipe_unreleased = declared, top, unreleased
    for stated in statements:
        declared, top, unreleased = _apply(declared, top, unreleased, stated)
    plan = plan_for(cli, declared, family, top, unreleased)
    unverifiable = [s for s in statements if s.unreleased and s.minimum is None]
    if plan.launch_day and unverifiable and not plan_for(
            cli, recipe, family, recipe_top, recipe_unreleased).launch_day:
        plan = replace(plan, channel=unverifiable[-1].text)
    with_minimum = [s for s in statements if s.minimum is not None]
    if with_minimum and plan.minimum is not None:
        highest = max(with_minimum, key=lambda s: s.minimum or Version("0"))
        plan = replace(plan, floor=_floor(recipe, declared, highest))
    return plan


def _apply(declared: MinVersion | None, top: str | None, unreleased: bool,
           stated: Stated) -> tuple[MinVersion | None, str | None, bool]:
    """``(minimum, top, unreleased)`` under one statement: a stated minimum above the
    recipe's replaces it, a pinned release bounds the range, nightly or source code
    without a stated release is checked as ``nightly``."""
    if stated.minimum is not None and (declared is None or (
            declared != NIGHTLY and stated.minimum > declared)):
        declared = stated.minimum
    if stated.top is not None:
        floor = declared if isinstance(declared, Version) else stated.top
        top = str(max(stated.top, floor))
    if stated.unreleased:
        unreleased = True
        if stated.minimum is None:
            declared, top = NIGHTLY, None
    return declared, top, unreleased


def _floor(recipe: MinVersion | None, declared: MinVersion | None,
           stated: Stated) -> tuple[str, str, str]:
    """:attr:`~validator.analysis.cli_plan.VersionPlan.floor` of commands whose channel
    states vLLM ``stated.minimum``: the messages say that it was taken into account,
    whether it raised the recipe's minimum ``recipe`` to ``declared`` or not."""
    named = "none" if recipe is None else format_version(recipe)
    if declared != recipe:
        return (f"the minimum {stated.by} states is", f" (the recipe's min_vllm_version is "
                f"{named})", f"the version {stated.by_ref} states (and min_vllm_version if "
                "every path needs it)")
    return ("the recipe's minimum is", f" ({stated.by} states vLLM {stated.minimum}, not "
            "above it)", "min_vllm_version")


# --------------------------------------------------------------------------- images


def image_statement(site: ImageSite) -> Stated | None:
    """What one image states about the commands that run in it: a pinned release (of
    vLLM, or of vLLM-Ascend: ``quay.io/ascend/vllm-ascend:v0.11.0`` pins the vLLM it is
    built on, whose vLLM-Ascend release the ``FLAG`` rules then judge the commands of an
    NPU at, as :func:`~validator.analysis.cli_plan.plan_for` maps any minimum), unreleased
    code (a nightly or launch image), or a community or dev build (the release its tag
    names, if any, and code of its own). ``None`` for vLLM's own ``:latest`` (the
    newest release, as the recipe's range has) or what is no image reference."""
    path = classify_image(site.value, site.pointer)
    if path is None:
        return None
    text = f"the recipe runs it in {site.value} ({site.pointer[1:].replace('/', '.')})"
    ref = parse_image(site.value)
    release = ascend_release(ref) if ref is not None else None
    if release is not None:  # vLLM-Ascend's release image: the vLLM that release is built on
        base = ascend_base(release)
        return Stated(base, base, False, text)
    # a community or dev build (not vLLM's own release images) carries code of its own
    # on top of the release its tag names, if any
    built = ref is not None and not official_vllm_image(ref)
    try:
        pinned = Version(path.version) if path.kind == PINNED and path.version else None
    except InvalidVersion:
        return None
    if path.kind in UNRELEASED_KINDS or built:
        return Stated(pinned, None, True, text)
    if pinned is None:
        return None
    return Stated(pinned, pinned, False, text)


def image_for(sites: Sequence[ImageSite], is_hardware: Callable[[str], bool],
              brands: Sequence[str]) -> ImageSite | None:
    """The image of a hardware among ``sites`` (a variant's first): the one a hardware
    override of an id ``is_hardware`` accepts gives, else the one keyed by the one brand
    of ``brands`` (``docker_image: {amd: ...}``, not one image for every hardware)."""
    ordered = sorted(sites, key=lambda s: s.variant is None)  # a variant's own first
    by_id = [s for s in ordered if s.brand not in BRAND_KEYS and is_hardware(s.brand)]
    if by_id:
        return by_id[0]
    if len(brands) != 1:
        return None
    keyed = [s for s in ordered if s.brand == brands[0] and brands[0] in
             s.pointer.split("/")[-2:]]
    return keyed[0] if keyed else None


def hardware_statement(doc: LoadedDocument, ctx: Context, variant: str | None,
                       hardware: str) -> Stated | None:
    """What the image the recipe gives ``hardware`` (a profile id, or a brand key as
    ``hardware_overrides`` use them) in ``variant`` states (:func:`image_statement`);
    ``None`` when that hardware has no image of its own."""
    memo: dict[tuple[str | None, str], Stated | None] = per_document(
        doc, ctx, "install_channel:hardware", dict)
    key = (variant, hardware)
    if key not in memo:
        memo[key] = _hardware_image(doc, ctx, variant, hardware)
    return memo[key]


def _hardware_image(doc: LoadedDocument, ctx: Context, variant: str | None,
                    hardware: str) -> Stated | None:
    # the image strings of the document content: read once however many (variant,
    # hardware) pairs its configurations ask about
    sites = per_document(doc, ctx, "install_channel:image_sites",
                         lambda: tuple(image_sites(doc)))
    if variant is None:  # a list of every variant: the channel all of them agree on
        variants = get(doc.data, "variants")
        names = [v for v in variants if isinstance(v, str)] if isinstance(variants, dict) \
            else []
        each = [hardware_statement(doc, ctx, v, hardware) for v in names]
        same = {(s.minimum, s.top, s.unreleased) if s else None for s in each}
        if each and len(same) == 1 and each[0] is not None:
            return each[0]
    site = image_for([s for s in sites if s.variant in (variant, None)],
                     hardware.__eq__, _brands(ctx, hardware))
    return image_statement(site) if site is not None else None


def _brands(ctx: Context, key: str) -> list[str]:
    """The image brand key (``nvidia``, ``amd`` ...) of a hardware profile id or of a
    brand key itself; none for a key the taxonomy does not know (a generation)."""
    if key in BRAND_KEYS:
        return [key]
    brand = get(ctx.hardware_profiles.get(key), "brand")
    return [brand.lower()] if isinstance(brand, str) and brand.lower() in BRAND_KEYS else []


# --------------------------------------------------------------------------- features


def feature_statement(doc: LoadedDocument, feature: str, mode: str | None = None
                      ) -> Stated | None:
    """The minimum a feature's own description (or that of its mode ``mode``) states as
    needed ("EAGLE3 speculative decoding (requires vLLM >= 0.9.0)"), else ``None``."""
    node = get(doc.data, "features", feature)
    texts = [get(node, "description")]
    if mode is not None:
        texts.append(get(get(get(node, "modes"), mode), "description"))
    found = [st for text in texts if isinstance(text, str) and (st := _needs(text))]
    if not found:
        return None
    top = max(found, key=lambda st: st.version)
    name = f"feature '{feature}'" + (f" mode '{mode}'" if mode is not None else "")
    return Stated(top.version, None, False, top.text, name, name)


@lru_cache(maxsize=1024)
def _needs(text: str) -> VersionStatement | None:
    """The highest minimum ``text`` states as needed (``None``: none); one read per
    description, however many configurations enable the feature."""
    found = [st for st in version_statements(text) if st.kind == "minimum" and st.requirement]
    return max(found, key=lambda st: st.version) if found else None


def configuration_statements(doc: LoadedDocument, ctx: Context, variant: str | None,
                             hardware: str, features: Iterable[str],
                             modes: Iterable[tuple[str, str]] = ()) -> tuple[Stated, ...]:
    """The statements that apply to one rendered configuration: the image of its
    hardware, the minimums its features (and their modes) state."""
    image = hardware_statement(doc, ctx, variant, hardware)
    stated = feature_statements(doc, features, modes)
    return (image, *stated) if image is not None else stated


def feature_statements(doc: LoadedDocument, features: Iterable[str],
                       modes: Iterable[tuple[str, str]] = ()) -> tuple[Stated, ...]:
    """The minimums ``features`` (and their ``modes``) state, in feature order."""
    chosen = dict(modes)
    found = (feature_statement(doc, f, chosen.get(f)) for f in features)
    return tuple(s for s in found if s is not None)


_FEATURE_LIST = re.compile(r"^/features/(?P<feature>[^/]+)(?:/modes/(?P<mode>[^/]+))?/")


def layer_statements(doc: LoadedDocument, ctx: Context, pointer: str, variant: str | None,
                     hardware: str | None) -> tuple[Stated, ...]:
    """The statements that apply to every configuration rendering the argument list at
    ``pointer`` (a feature's or mode's list: what they state; a list of one hardware:
    its image)."""
    found: list[Stated | None] = []
    m = _FEATURE_LIST.match(pointer)
    if m is not None:
        found.append(feature_statement(doc, _unescape(m["feature"]),
                                       _unescape(m["mode"]) if m["mode"] else None))
    if hardware is not None:
        found.append(hardware_statement(doc, ctx, variant, hardware))
    return tuple(s for s in found if s is not None)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")
