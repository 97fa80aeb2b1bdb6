"""Fix steps the ``FLAG`` and ``GUIDE`` fixes share (each fix is beside its rule, in
``validator/rules/flag/`` or ``validator/rules/guide/``).

* :func:`raise_minimum`: raise ``model.min_vllm_version`` to the highest release the
  findings of :data:`RAISE_RULES` ask for (one edit for all of them, whichever family).
* :func:`abbreviation_expansion`: the written and the full option of an abbreviation
  finding (``FLAG014``, ``GUIDE007``).
* :func:`removed_option` and :func:`check_droppable`: whether a removed flag only restates
  the default of every release of the install range that has it (``FLAG003``/``FLAG023``
  in an argument list, ``GUIDE005``/``GUIDE017`` on a guide line), so that dropping it
  changes nothing there (unsafe all the same: a user on a release outside the vendored
  ones may see another default).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from validator.analysis import cli_plan
from validator.analysis.versions import effective_min_version, format_version
from validator.fix.registry import FixRequest, FixResult
from validator.fix.spans import NotApplicable, replace_scalar, value_at
from validator.vllm_cli import argv
from validator.vllm_cli.registry import CliOption

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


def raise_minimum(req: FixRequest) -> FixResult:
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


_ABBREVIATION = re.compile(r"`([^`]+)`(?: in `([^`]+)`)? is an abbreviation of `(--[^`]+)`")


def abbreviation_expansion(message: str) -> tuple[str, str]:
    """(written option key, full key) of an abbreviation finding."""
    m = _ABBREVIATION.search(message)
    if m is None:
        raise NotApplicable("the finding does not name the full option")
    head, key, option = m.group(1), m.group(2), m.group(3)
    written = key or head
    written_head, dot, rest = written.partition(".")
    if not option.startswith(argv.normalise(written_head)):
        raise NotApplicable(f"`{option}` does not extend `{written_head}`")
    return written, option + dot + rest


_REMOVED = re.compile(r"`(--[^`\s=]+)` (?:was removed in vLLM |is rejected by vLLM [^(]*"
                      r"\(not an option there\))")
"""The option a removed-flag finding names: ``FLAG003``/``GUIDE005`` ("was removed in"),
``FLAG023``/``GUIDE017`` ("is rejected by vLLM 0.17.0–0.32.0, 24 releases (not an option
there)")."""


def removed_option(req: FixRequest) -> tuple[str, CliOption]:
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


def check_droppable(req: FixRequest, written: str, values: Sequence[str]) -> str:
    """Raise ``NotApplicable`` unless dropping ``written values`` changes no vendored
    release from the recipe's minimum; returns the option."""
    option, spec = removed_option(req)
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
