"""Unsafe fixes: each makes the recipe consistent by changing what its users get, so it
is applied only with ``--unsafe-fixes``.

* ``FLAG002``/``FLAG006``/``FLAG016``/``FLAG018``/``GUIDE004``/``GUIDE006``/``GUIDE010``:
  raise ``model.min_vllm_version`` to the highest release the rendered commands need (what
  the checks computed for their findings, from the vendored CLI registries).
* ``VER002``: bump a release tag (``vllm/vllm-openai:v0.11.0``) older than the minimum
  to the minimum.
* ``REF001``: ``model.model_id`` -> the file path's spelling, when the two differ only in
  letter case.
* ``FLAG003``: drop a flag a newer vLLM removed when every release of the recipe's range
  that has it defaults to what the recipe sets (the registry's ``default``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from validator.checks import cli_plan
from validator.checks.ver import official_vllm_image, parse_image
from validator.checks.versions import effective_min_version, format_version
from validator.fix.model import Applicability, DataChange, Edit
from validator.fix.registry import FixRequest, fixer
from validator.fix.spans import (
    NotApplicable,
    replace_in_scalar,
    replace_scalar,
    split_item,
    value_at,
)
from validator.vllm_cli import argv
from validator.vllm_cli.argv import split_inline
from validator.vllm_cli.registry import CliOption

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
        raise NotApplicable("model.min_vllm_version is not a quoted version string")
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


@fixer("REF001", applicability=UNSAFE, summary="write model_id as the file path spells it")
def model_id_from_path(req: FixRequest) -> Result:
    """``model_id: google/gemma-x`` in ``models/Google/gemma-x.yaml`` -> ``Google/gemma-x``.
    Unsafe: the Hub resolves ids case-insensitively, but tools that compare ids exactly
    see another model. A model_id that differs otherwise is left alone."""
    path = req.doc.path
    parts = path.split("/")
    if len(parts) != 3 or parts[0] != "models" or not parts[2].endswith((".yaml", ".yml")):
        raise NotApplicable("the file is not models/<org>/<name>.yaml")
    spelled = parts[1] + "/" + parts[2].rsplit(".", 1)[0]
    current = value_at(req.doc, req.finding.pointer)
    if not isinstance(current, str) or current.lower() != spelled.lower() or current == spelled:
        raise NotApplicable("model_id differs from the file path by more than letter case; "
                            "rename the file or fix the id by hand")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, current, spelled)
    return f"model_id {current} -> {spelled}", [edit], [change]


_REMOVED = re.compile(r"`(--[^`\s=]+)` was removed in vLLM ")


def _set_value(option: str, spec: CliOption, values: tuple[str, ...]) -> str | None:
    """The ``repr`` of what the recipe sets ``spec``'s destination to, or ``None`` when it
    cannot be told (several values, a JSON value)."""
    if not spec.takes_value:
        return "False" if option.startswith("--no-") else "True"
    if len(values) != 1 or spec.is_json:
        return None
    value = values[0]
    for convert in (int, float):
        try:
            return repr(convert(value))
        except ValueError:
            continue
    return repr(value)


def _default_everywhere(option: str, spec_value: str, low: Version) -> str | None:
    """``None`` when every vendored vLLM release from ``low`` that has ``option`` gives it
    the default ``spec_value`` (so leaving the flag out changes nothing), else why not."""
    seen = False
    for version in cli_plan.versions():
        if version < low:
            continue
        spec = cli_plan.registry(str(version)).lookup(option)
        if spec is None:
            continue
        seen = True
        if spec.default != spec_value:
            return (f"vLLM {version} defaults `{option}` to {spec.default}, not to what the "
                    f"recipe sets ({spec_value}): dropping it would change that release")
    return None if seen else f"no vendored release from {low} has `{option}`"


@fixer("FLAG003", applicability=UNSAFE,
       summary="drop a removed flag that only restates its default")
def drop_removed_flag(req: FixRequest) -> Result:
    """``- --disable-log-requests`` (removed in a newer vLLM) is dropped when every release
    of the recipe's range that still had it defaults to what the item sets: leaving it out
    changes nothing there, and newer releases would reject it. Block-sequence items on
    lines of their own only (the flag's value item goes with it)."""
    m = _REMOVED.search(req.finding.message)
    if m is None:
        raise NotApplicable("only a removed vLLM option is dropped (not a removed value)")
    option = m.group(1)
    list_pointer, _, item = req.finding.pointer.rpartition("/")
    tokens = value_at(req.doc, list_pointer)
    if not isinstance(tokens, list) or not item.isdigit():
        raise NotApplicable("the flag is not an item of an argument list")
    at = int(item)
    token = tokens[at]
    if not isinstance(token, str):
        raise NotApplicable("the list item is not a string")
    low = min_version(req)
    last = cli_plan.last_version("option", option)
    spec = cli_plan.registry(last).lookup(option) if last else None
    if spec is None:
        raise NotApplicable(f"no vendored release has `{option}`")
    key, inline = split_inline(token.split(None, 1)[0])
    if argv.normalise(key) != option:
        raise NotApplicable(f"the list item does not start with `{option}`")
    rest = token.split(None, 1)[1:] if inline is None else [inline]
    items = [at]
    if spec.takes_value and not rest:
        if at + 1 >= len(tokens) or not isinstance(tokens[at + 1], str):
            raise NotApplicable("the flag's value is not the next list item")
        rest, items = [tokens[at + 1]], [at, at + 1]
    wanted = _set_value(key, spec, tuple(rest))
    if wanted is None:
        raise NotApplicable("what the flag sets cannot be compared with the default")
    problem = _default_everywhere(option, wanted, low)
    if problem is not None:
        raise NotApplicable(problem)
    edits: list[Edit] = []
    changes: list[DataChange] = []
    for index in items:
        edit, change = split_item(req.doc, req.index, f"{list_pointer}/{index}", ())
        edits.append(edit)
        changes.append(change)
    return f"drop `{' '.join([key, *rest])}` (the default of every release in range)", \
        edits, changes


def min_version(req: FixRequest) -> Version:
    """The recipe's effective minimum vLLM (the lowest release the fix must keep
    working); raises ``NotApplicable`` when it is not a release."""
    found = effective_min_version(req.doc, req.context)
    try:
        return Version(format_version(found)) if found is not None else Version("0")
    except InvalidVersion:
        raise NotApplicable("the recipe's minimum is not a release (nightly?)") from None
