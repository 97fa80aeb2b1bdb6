"""Unsafe fixes: each makes the recipe consistent by changing what its users get, so it
is applied only with ``--unsafe-fixes``.

* ``FLAG002``/``FLAG006``/``FLAG016``/``FLAG018``/``GUIDE004``/``GUIDE006``/``GUIDE010``:
  raise ``model.min_vllm_version`` to the highest release the rendered commands need (what
  the checks computed for their findings, from the vendored CLI registries).
* ``VER002``: bump a release tag (``vllm/vllm-openai:v0.11.0``) older than the minimum
  to the minimum.

Dropping a removed flag (``FLAG003``, ``GUIDE005``) is in :mod:`validator.fix.removed`; the
fixes of the families in ``validator/rules/<family>/`` are beside their rules there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from validator.checks.ver_model import official_vllm_image, parse_image
from validator.fix.model import Applicability, DataChange, Edit
from validator.fix.registry import FixRequest, fixer
from validator.fix.spans import NotApplicable, replace_in_scalar, replace_scalar, value_at

Result = tuple[str, Sequence[Edit], Sequence[DataChange]]
UNSAFE = Applicability.UNSAFE
MIN_POINTER = "/model/min_vllm_version"

#: Rules whose finding says which vLLM release the recipe needs.
RAISE_RULES = ("FLAG002", "FLAG006", "FLAG016", "FLAG018", "GUIDE004", "GUIDE006", "GUIDE010")
_RAISE = re.compile(r"raise min_vllm_version to ([0-9][0-9A-Za-z.+]*[0-9A-Za-z])")


def needed_version(hint: str | None) -> Version | None:
    """The release a finding's hint asks for (``raise min_vllm_version to 0.13.0``)."""
    m = _RAISE.search(hint or "")
    if m is None:
        return None
    try:
        return Version(m.group(1))
    except InvalidVersion:
        return None


@fixer(*RAISE_RULES, applicability=UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum(req: FixRequest) -> Result:
    """``min_vllm_version: "0.11.0"`` -> ``"0.13.0"`` when a flag, value or variable the
    recipe uses exists only from 0.13.0: one edit for every such finding of the document
    (the highest release any of them needs)."""
    if needed_version(req.finding.hint) is None:
        raise NotApplicable("this finding does not ask for a higher min_vllm_version "
                            "(only those that do are fixed, by raising it)")
    needed = max(v for f in req.findings if f.rule in RAISE_RULES
                 and (v := needed_version(f.hint)) is not None)
    current = value_at(req.doc, MIN_POINTER)
    if not isinstance(current, str):
        raise NotApplicable("model.min_vllm_version is not a version string")
    try:
        declared = Version(current)
    except InvalidVersion:
        raise NotApplicable(f"model.min_vllm_version {current!r} is not a release") from None
    if declared >= needed:
        raise NotApplicable(f"model.min_vllm_version is already {current}; the finding comes "
                            "from another minimum (a variant, strategy or plugin release)")
    target = str(needed)
    edit, change = replace_scalar(req.doc, req.index, MIN_POINTER, target)
    return f"min_vllm_version {current} -> {target}", [edit], [change]


_RELEASE_TAG = re.compile(r"v?\d+\.\d+\.\d+")
_NEEDS = re.compile(r"needs vLLM ([0-9][0-9A-Za-z.+]*[0-9A-Za-z])\s*$")


@fixer("VER002", applicability=UNSAFE, summary="bump the image's release tag to the minimum")
def bump_image_tag(req: FixRequest) -> Result:
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
