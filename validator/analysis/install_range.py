"""The install range of a recipe configuration: which vLLM a user actually gets.

A recipe says "vLLM >= min_vllm_version"; its install paths decide the top of the range.
The site renders two install blocks (``synthesizeInstall`` in upstream's
``scripts/build-recipes-api.mjs``): ``model.install.pip.command`` or the default
``uv pip install -U vllm`` (the nightly wheel when ``nightly_required``), and
``model.install.docker.command`` or ``docker pull`` of the resolved image
(``docker_image`` of the variant or model, else ``vllm/vllm-openai:latest`` — ``:nightly``
when ``nightly_required``). Install commands written in the guide count too.

Each path is one :class:`InstallPath`:

* ``latest`` — ``-U vllm``, an unpinned ``pip install vllm``, ``:latest`` or no tag: the
  newest release (of the run's window, see :class:`validator.vllm_cli.data_source.Window`);
* ``pinned`` — ``vllm==X``, an image tagged ``vX``: release X (vLLM-Ascend's image
  ``vllm-ascend:vX``: the vLLM release X is built on);
* ``nightly`` — ``--pre`` / the nightly wheel index, ``:nightly`` images: unreleased code;
* ``source`` — ``git clone`` of vLLM (or vLLM-Omni) and ``pip install -e .``: unreleased;
* ``custom`` — a model launch image (``vllm/vllm-openai:glm5``): a day-0 build, unreleased.

:func:`install_range` gives the :class:`InstallRange` of a configuration (variant and
strategy raise the minimum; a variant pins its own image), which the ``FLAG`` and
``GUIDE`` rules check every token against, and which ``--format json`` reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from validator.analysis.cli_plan import VLLM, VersionPlan, per_document, plan_for, versions
from validator.analysis.recipe_data import as_dict, as_list, get
from validator.analysis.stated_versions import (
    ImageSite,
    ascend_base,
    ascend_release,
    image_sites,
    nightly_required,
    parse_image,
    tag_version,
)
from validator.analysis.versions import effective_min_version
from validator.rules.metadata import Reads

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

LATEST, PINNED, NIGHTLY, SOURCE, CUSTOM = "latest", "pinned", "nightly", "source", "custom"
#: Kinds of install path that pull code no release has.
UNRELEASED_KINDS = frozenset({NIGHTLY, SOURCE, CUSTOM})

_PIP_PIN = re.compile(r"\bvllm(?:\[[^\]]*\])?\s*==\s*v?(\d+(?:\.\d+)+(?:\.post\d+)?)\b")
_PIP_VLLM = re.compile(r"\bpip\s+install\b[^\n]*?(?<![\w/.-])vllm(?![\w-])")
_NIGHTLY = re.compile(r"--pre\b|wheels\.vllm\.ai/nightly|nightly", re.IGNORECASE)
_SOURCE = re.compile(r"git\s+clone\s+\S*vllm|pip\s+install\s+(?:-e\s+)?\.(?:\s|$|\[)|"
                     r"git\+https://github\.com/vllm-project/vllm", re.IGNORECASE)
_DOCKER_REF = re.compile(r"docker\s+(?:pull|run)\b[^\n]*?\s(\S*vllm\S*:\S+|\S*vllm[\w/-]*)\s*$",
                         re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class InstallPath:
    """One way the recipe tells a user to install vLLM.

    ``kind``: see the module docstring; ``version``: the release a ``pinned`` path pulls;
    ``source``: where it is stated (a JSON Pointer, ``"site default"``, or ``/guide``).
    """

    kind: str
    text: str
    source: str
    version: str | None = None

    def describe(self) -> dict[str, Any]:
        """JSON form for ``--format json``."""
        out: dict[str, Any] = {"kind": self.kind, "text": self.text, "source": self.source}
        if self.version is not None:
            out["version"] = self.version
        return out


@dataclass(frozen=True)
class InstallRange:
    """The releases one configuration claims, and how a user gets vLLM for it.

    ``minimum``: the effective minimum as declared (``"0.12.0"``, ``"nightly"``,
    ``None``); ``top``: the highest release a path pulls (``None`` = the newest of the
    window); ``unreleased``: a path pulls unreleased code; ``plan``: the registries the
    tokens are checked at.
    """

    variant: str | None
    strategy: str | None
    minimum: str | None
    paths: tuple[InstallPath, ...]
    top: str | None
    unreleased: bool
    plan: VersionPlan

    def describe(self) -> dict[str, Any]:
        """JSON form: the configuration, the paths and the releases checked."""
        checked = ([self.plan.minimum.version] if self.plan.minimum is not None else []) + list(
            self.plan.checked)
        win = self.plan.cli.window
        return {
            "variant": self.variant, "strategy": self.strategy, "min_vllm_version": self.minimum,
            "install_paths": [p.describe() for p in self.paths],
            "newest_pulled": self.top or (str(newest[-1]) if (newest := versions(self.plan.cli))
                                                 else None),
            "unreleased": self.unreleased,
            "releases_checked": {"first": checked[0] if checked else None,
                                 "last": checked[-1] if checked else None,
                                 "count": len(checked)},
            "as_of": win.as_of.isoformat() if win.as_of else None,
            "vllm": win.vllm,
        }


def classify_command(text: str, source: str) -> InstallPath | None:
    """The install path of one pip/uv/docker/git command, ``None`` when it installs no
    vLLM (``pip install vllm-router``, ``pip install transformers``)."""
    if _SOURCE.search(text):
        return InstallPath(SOURCE, text.strip(), source)
    pin = _PIP_PIN.search(text)
    if pin is not None:
        return InstallPath(PINNED, text.strip(), source, pin.group(1))
    if _PIP_VLLM.search(text):
        kind = NIGHTLY if _NIGHTLY.search(text) else LATEST
        return InstallPath(kind, text.strip(), source)
    m = _DOCKER_REF.search(text)
    if m is not None:
        return classify_image(m.group(1), source)
    return None


def classify_image(image: str, source: str) -> InstallPath | None:
    """The install path of a Docker image reference (``None`` when it is not one)."""
    ref = parse_image(image)
    if ref is None:
        return None
    release = ascend_release(ref)
    if release is not None:  # vLLM-Ascend's release image: the vLLM it is built on
        return InstallPath(PINNED, image, source, str(ascend_base(release)))
    pinned = tag_version(ref)
    if pinned is not None:
        return InstallPath(PINNED, image, source, str(pinned))
    tag = (ref.tag or "latest").lower()
    if "nightly" in tag:
        return InstallPath(NIGHTLY, image, source)
    if tag.startswith("latest") or ref.digest is not None:
        return InstallPath(LATEST, image, source)
    return InstallPath(CUSTOM, image, source)


def _guide_paths(doc: LoadedDocument) -> tuple[InstallPath, ...]:
    text = get(doc.data, "guide")
    return _guide_text_paths(text) if isinstance(text, str) else ()


@lru_cache(maxsize=16)
def _guide_text_paths(text: str) -> tuple[InstallPath, ...]:
    """The install paths of the commands of guide ``text``: read once per text, not once
    per (variant, strategy) install range of its recipe."""
    out = []
    for line in text.replace("\\\n", " ").splitlines():
        if "install" in line or "docker" in line or "clone" in line:
            found = classify_command(line, "/guide")
            if found is not None:
                out.append(found)
    return tuple(out)


def install_paths(doc: LoadedDocument, variant: str | None = None,
                  sites: ImageSites | None = None) -> tuple[InstallPath, ...]:
    """Every install path of ``variant`` (``None``: the recipe's defaults): the site's pip
    and docker blocks, the variant's and model's images, and the guide's commands.
    ``sites``: the document's :func:`images_by_variant`, when already at hand."""
    data = doc.data
    nightly = nightly_required(data, variant)
    install = as_dict(get(data, "model", "install"))
    out: list[InstallPath] = []
    pip = install.get("pip")
    if pip is not False:
        cmd = get(pip, "command")
        if isinstance(cmd, str):
            found = classify_command(cmd, "/model/install/pip/command")
            if found is not None:
                out.append(found)
        else:
            out.append(InstallPath(NIGHTLY, "uv pip install -U vllm --pre (nightly wheel)",
                                   "site default") if nightly else
                       InstallPath(LATEST, "uv pip install -U vllm", "site default"))
    docker = install.get("docker")
    if docker is not False:
        cmd = get(docker, "command")
        found = classify_command(cmd, "/model/install/docker/command") if isinstance(
            cmd, str) else None
        if found is not None:
            out.append(found)
        else:
            out += _image_paths(images_by_variant(doc) if sites is None else sites,
                                variant, nightly)
    out += _guide_paths(doc)
    return tuple(dict.fromkeys(out))


ImageSites = dict[str | None, list[ImageSite]]
"""A document's Docker image sites by variant (``None``: the model's own)."""


def images_by_variant(doc: LoadedDocument) -> ImageSites:
    """:func:`~validator.analysis.stated_versions.image_sites` grouped by variant, in order (one
    walk of the document, not one per variant: 2,000 variants walked 2,000 times)."""
    out: ImageSites = {}
    for site in image_sites(doc):
        out.setdefault(site.variant, []).append(site)
    return out


def _image_paths(by_variant: ImageSites, variant: str | None,
                 nightly: bool) -> list[InstallPath]:
    sites = by_variant.get(variant) or by_variant.get(None, [])
    out = [p for s in sites if (p := classify_image(s.value, s.pointer)) is not None]
    if not out:
        out.append(InstallPath(NIGHTLY, "vllm/vllm-openai:nightly", "site default") if nightly
                   else InstallPath(LATEST, "vllm/vllm-openai:latest", "site default"))
    return out


def top_of(paths: tuple[InstallPath, ...]) -> tuple[str | None, bool]:
    """``(top, unreleased)``: the highest release the paths pull (``None`` = the newest,
    when any path floats) and whether one pulls unreleased code."""
    unreleased = any(p.kind in UNRELEASED_KINDS for p in paths)
    if not paths or any(p.kind in (LATEST, *UNRELEASED_KINDS) for p in paths):
        return None, unreleased
    pins = []
    for p in paths:
        try:
            pins.append(Version(p.version or ""))
        except InvalidVersion:
            return None, unreleased
    return str(max(pins)), unreleased


def install_range(doc: LoadedDocument, ctx: Context, variant: str | None = None,
                  strategy: str | None = None, family: str = VLLM) -> InstallRange:
    """The :class:`InstallRange` of one configuration (memoised per document)."""
    held: dict[tuple[Any, ...], InstallRange] = per_document(doc, ctx, "install_range", dict)
    key = (variant, strategy, family)
    found = held.get(key)
    if found is None:
        found = held[key] = _compute(doc, ctx, variant, strategy, family)
    return found


def _compute(doc: LoadedDocument, ctx: Context, variant: str | None, strategy: str | None,
             family: str) -> InstallRange:
    minimum = effective_min_version(doc, ctx, variant, strategy=strategy)
    paths = install_paths(doc, variant, per_document(doc, ctx, "install:images",
                                                     lambda: images_by_variant(doc)))
    top, unreleased = top_of(paths)
    plan = plan_for(ctx.cli, minimum, family, top, unreleased)
    return InstallRange(variant, strategy, None if minimum is None else str(minimum), paths,
                        top, unreleased, plan)


def ranges_of(doc: LoadedDocument, ctx: Context) -> list[InstallRange]:
    """The install range of the recipe's defaults, of every variant, and of every
    (variant, compatible strategy) whose strategy declares its own minimum."""
    names = [None, *(v for v in as_dict(get(doc.data, "variants")) if isinstance(v, str))]
    raising = [s for s in as_list(get(doc.data, "compatible_strategies"))
               if isinstance(s, str) and get(ctx.strategy_data(s), "min_vllm_version")]
    return [install_range(doc, ctx, v, s) for v in names for s in (None, *raising)]


def described_ranges(doc: LoadedDocument, ctx: Context) -> list[dict[str, Any]] | None:
    """The install ranges of ``doc`` for the run's report (:meth:`InstallRange.describe`
    of :func:`ranges_of`); ``None`` for a document that is not a mapping, when no release
    is vendored in the window, or when ``ctx`` cannot read the files a range reads (a
    context limited to one rule group's reads: the history audit's, a manifest file's
    without strategies). :class:`~validator.checker.Checker` asks for them for every
    recipe it runs rules on, so the report does not depend on which rules ran."""
    if not isinstance(doc.data, dict) or not versions(ctx.cli) or not ctx.can_read(RANGE_READS):
        return None
    return [r.describe() for r in ranges_of(doc, ctx)]


RANGE_READS = frozenset({Reads.TAXONOMY, Reads.STRATEGIES, Reads.KV_STORES})
"""What an install range reads besides the recipe (its strategies' and kv stores'
minimums, the hardware of the taxonomy)."""
