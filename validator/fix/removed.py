"""Unsafe fixes that drop a flag a newer vLLM removed (``FLAG003``, or ``FLAG023`` when a
release the install range pulls rejects it, in an argument list; ``GUIDE005``/``GUIDE017``
on a guide line), when the vendored CLI registries show that leaving it out
changes nothing: every release of the recipe's range that still has the option gives it,
by default, the value the recipe sets (``--disable-log-requests`` where requests were
not logged anyway, ``--swap-space 4`` where 4 GiB was the default). Newer releases would
refuse the flag; older ones get their default. Unsafe all the same: a user on a release
outside the vendored ones may see another default.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from validator.checks import cli_plan
from validator.checks.versions import effective_min_version, format_version
from validator.fix.model import Applicability, DataChange, Edit
from validator.fix.registry import FixRequest, fixer
from validator.fix.spans import NotApplicable, drop_guide_line, guide_line, split_item, value_at
from validator.vllm_cli import argv
from validator.vllm_cli.argv import split_inline
from validator.vllm_cli.registry import CliOption

Result = tuple[str, Sequence[Edit], Sequence[DataChange]]

_REMOVED = re.compile(r"`(--[^`\s=]+)` (?:was removed in vLLM |is rejected by vLLM [^(]*"
                      r"\(not an option there\))")
"""The option a removed-flag finding names: ``FLAG003``/``GUIDE005`` ("was removed in"),
``FLAG023``/``GUIDE017`` ("is rejected by vLLM 0.17.0–0.32.0, 24 releases (not an option
there)")."""


def _removed_option(req: FixRequest) -> tuple[str, CliOption]:
    """The removed option a finding names, with its entry in the last release having it."""
    m = _REMOVED.search(req.finding.message)
    if m is None:
        raise NotApplicable("only a removed vLLM option is dropped (not a removed value, "
                            "not a plugin's option)")
    option = m.group(1)
    last = cli_plan.last_version("option", option)
    spec = cli_plan.registry(last).lookup(option) if last else None
    if spec is None:
        raise NotApplicable(f"no vendored release has `{option}`")
    return option, spec


def _set_value(option: str, spec: CliOption, values: Sequence[str]) -> str:
    """The ``repr`` of what the recipe sets the option's destination to (the registry's
    ``default`` is a ``repr``)."""
    if not spec.takes_value:
        if values:
            raise NotApplicable("a value is given to the switch")
        return "False" if option.startswith("--no-") else "True"
    if len(values) != 1 or spec.is_json:
        raise NotApplicable("what the flag sets cannot be compared with the default")
    value = values[0]
    for convert in (int, float):
        try:
            return repr(convert(value))
        except ValueError:
            continue
    return repr(value)


def _check_droppable(req: FixRequest, written: str, values: Sequence[str]) -> str:
    """Raise ``NotApplicable`` unless dropping ``written values`` changes no vendored
    release from the recipe's minimum; returns the option."""
    option, spec = _removed_option(req)
    if argv.normalise(written) != option:
        raise NotApplicable(f"`{written}` is not `{option}`")
    wanted = _set_value(written, spec, values)
    low = _minimum(req)
    seen = False
    for version in cli_plan.versions():
        entry = cli_plan.registry(str(version)).lookup(option) if version >= low else None
        if entry is None:
            continue
        seen = True
        if entry.default != wanted:
            raise NotApplicable(f"vLLM {version} defaults `{option}` to {entry.default}, not to "
                                f"what the recipe sets ({wanted}): dropping it would change "
                                "that release")
    if not seen:
        raise NotApplicable(f"no vendored release from {low} has `{option}`")
    return option


def _minimum(req: FixRequest) -> Version:
    """The recipe's effective minimum vLLM (the lowest release that must not change)."""
    found = effective_min_version(req.doc, req.context)
    try:
        return Version(format_version(found)) if found is not None else Version("0")
    except InvalidVersion:
        raise NotApplicable("the recipe's minimum is not a release (nightly?)") from None


@fixer("FLAG003", "FLAG023", applicability=Applicability.UNSAFE,
       summary="drop a removed flag that only restates its default")
def drop_removed_flag(req: FixRequest) -> Result:
    """``- --swap-space`` ``- "4"`` are dropped when 4 is the default of every release in
    range that has ``--swap-space``. Block-sequence items on lines of their own only
    (the flag's value item goes with it)."""
    list_pointer, _, item = req.finding.pointer.rpartition("/")
    tokens = value_at(req.doc, list_pointer)
    if not isinstance(tokens, list) or not item.isdigit():
        raise NotApplicable("the flag is not an item of an argument list")
    at = int(item)
    token = tokens[at]
    if not isinstance(token, str) or not token.strip():
        raise NotApplicable("the list item is not a flag")
    head, *joined = token.split(None, 1)
    written, inline = split_inline(head)
    values = joined if inline is None else [inline]
    items = [at]
    _, spec = _removed_option(req)
    if spec.takes_value and not values:
        if at + 1 >= len(tokens) or not isinstance(tokens[at + 1], str):
            raise NotApplicable("the flag's value is not the next list item")
        values, items = [tokens[at + 1]], [at, at + 1]
    _check_droppable(req, written, values)
    edits: list[Edit] = []
    changes: list[DataChange] = []
    for index in items:
        edit, change = split_item(req.doc, req.index, f"{list_pointer}/{index}", ())
        edits.append(edit)
        changes.append(change)
    return f"drop `{' '.join([written, *values])}` (the default of every release in range)", \
        edits, changes


@fixer("GUIDE005", "GUIDE017", applicability=Applicability.UNSAFE,
       summary="drop a removed flag that only restates its default (guide line)")
def drop_removed_guide_flag(req: FixRequest) -> Result:
    """A guide line ``    --swap-space 4 \\\\`` inside a continued command is deleted when
    4 is the default of every release in range that has ``--swap-space``. Only a line
    that holds nothing but that flag (and its value) between two continued lines."""
    block = req.doc.source_map.blocks.get("/guide")
    if block is None:
        raise NotApplicable("the guide is not a literal block scalar (`guide: |`)")
    index = req.finding.line - block.first_line
    content = guide_line(req.doc, req.index, index).content
    previous = guide_line(req.doc, req.index, index - 1).content if index > 0 else ""
    if not content.rstrip().endswith("\\") or not previous.rstrip().endswith("\\"):
        raise NotApplicable("the flag is not on a line of its own inside a continued command")
    try:
        words = shlex.split(content.rstrip()[:-1])
    except ValueError:
        raise NotApplicable("the line does not split into shell words") from None
    if not words:
        raise NotApplicable("the line holds no flag")
    written, inline = split_inline(words[0])
    values = words[1:] if inline is None else [inline, *words[1:]]
    option = _check_droppable(req, written, values)
    edit, change = drop_guide_line(req.doc, req.index, index)
    return f"drop the guide line `{content.strip()}` ({option}: the default in range)", \
        [edit], [change]
