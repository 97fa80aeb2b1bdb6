"""What makes a finding at one revision the same finding at another: its identity.

``pr`` splits the head's findings into new and existing by comparing them with the merge
base's, ``history`` and SARIF ``partialFingerprints`` (GitHub code scanning) need the same
answer. A finding's line, its list index and the wording that depends on other fields
(the recipe's minimum, the newest release, the configurations it reaches) all change
when a pull request edits something else; what the finding is *about* does not. The
identity of a finding is the triple :class:`Identity`:

* ``rule``: the rule id, or the id that stands for a group of rules that report one
  defect in several ways (:data:`SAME_AS`: a flag rejected by the releases a recipe
  claims is ``FLAG001``, ``FLAG002`` or ``FLAG023`` depending on the minimum; a PR that
  raises the minimum turns one into another, the flag is no more wrong than before);
* ``subject``: what the finding is about, the first code span of its message (the
  flag, the value, the environment variable), else its first quoted name (the key, the
  variant, the hardware id), else the short scalar the pointer names, else the message
  with its numbers blanked;
* ``anchor``: where it is, by content: the JSON Pointer with every list index replaced by
  what the item holds (``/model/base_args/["--max-model-len 8192"]``; a value item
  with the flag before it, a mapping item by its ``id``/``name``/``command``, equal items
  numbered in order), so inserting, removing or reordering list items leaves the
  identity of the findings on other items alone.

Findings are matched as a multiset of identities (:func:`match`): three copies of a
defect at the base and four at the head leave one new. Copies of one identity *at one
line* are one defect reached by several configurations or release windows (a flag of
``base_args`` judged under each variant's minimum): they count once, so a change that
adds a variant does not make an old defect new.

A finding that a token is accepted only from a later release than its configuration's
minimum (:attr:`~validator.findings.Finding.reason` :data:`~validator.findings.FLOOR`,
set by the rule) is about the minimum, not about the place the token is written: its
:class:`Defect` leaves the anchor out, so every copy of the token in the document is one
defect, whatever the message says of the releases (:func:`defect_of`) -- in the argument
lists of the recipe's fields; in the guide, each command is its own defect.

The identity is computed where the document's data is at hand
(:func:`with_identities`, called by :class:`~validator.checker.Checker` for every
finding of a recipe or context document) and kept on the finding
(:attr:`~validator.findings.Finding.identity`); a finding made without the data (a
provenance finding, a refused file) falls back to its pointer as written
(:func:`identity_of`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from validator.findings import FLOOR, Finding, normalise_message
from validator.sourcemap import SourceMap, reaching_paths, shared_nodes, split_pointer

SAME_AS: dict[str, str] = {
    # a token of a structured argument list is rejected by a release the recipe claims:
    # unknown everywhere, newer than the minimum, an invalid choice, or rejected inside
    # the install range, which of them depends only on the range the recipe declares
    "FLAG002": "FLAG001", "FLAG006": "FLAG001", "FLAG023": "FLAG001",
    # the same for a token of a guide command
    "GUIDE004": "GUIDE003", "GUIDE006": "GUIDE003", "GUIDE017": "GUIDE003",
}
"""Rule id -> the rule id that stands for its group: rules that report one defect in
several ways, as the recipe's other fields decide. All of a group share a severity
(``error``), so grouping never turns a warning of the base into an old error."""

ITEM_KEYS = ("id", "name", "command")
"""Keys that name a mapping item of a list (``platforms[].id``, ``dependencies[].command``)."""

SHORT_VALUE = 200
"""Longest scalar (characters) that serves as a finding's subject (a guide does not)."""

_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_QUOTED = re.compile(r"""(?<![\w'"])(?:'([^'\n]+)'|"([^"\n]+)")(?![\w'"])""")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


class Identity(NamedTuple):
    """A finding's identity (see the module docstring)."""

    rule: str
    subject: str
    anchor: str


def rule_group(rule: str) -> str:
    """The rule id that stands for ``rule``'s group (:data:`SAME_AS`), else ``rule``."""
    return SAME_AS.get(rule, rule)


def subject_of(message: str, value: Any = None) -> str:
    """What a finding is about (see the module docstring): ``value`` is the data at its
    pointer (``None`` when unknown)."""
    code = _CODE.search(message)
    if code is not None:
        return code.group(1)
    quoted = _QUOTED.search(message)
    if quoted is not None:
        return quoted.group(1) or quoted.group(2)
    if isinstance(value, (str, int, float, bool)):
        text = str(value)
        if len(text) <= SHORT_VALUE and "\n" not in text:
            return text
    return _NUMBER.sub("N", normalise_message(message))


def item_label(items: Sequence[Any], index: int) -> str:
    """What list item ``index`` of ``items`` holds, as its anchor: a string (a value item
    after a flag item: both, ``"--max-model-len 8192"``), a mapping's naming key, else
    the item as canonical JSON; ``#2``, ``#3`` ... for later items equal to an earlier
    one."""
    return item_labels(items)[index]


def item_labels(items: Sequence[Any]) -> list[str]:
    """:func:`item_label` of every item of ``items``, in one pass."""
    seen: Counter[str] = Counter()
    out = []
    for index in range(len(items)):
        label = _label(items, index)
        seen[label] += 1
        out.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return out


def _label(items: Sequence[Any], index: int) -> str:
    item = items[index]
    if isinstance(item, str):
        before = items[index - 1] if index > 0 else None
        if not item.startswith("-") and isinstance(before, str) and before.startswith("-"):
            return f"{before} {item}"
        return item
    if isinstance(item, dict):
        for key in ITEM_KEYS:
            if isinstance(item.get(key), (str, int)):
                return f"{key}={item[key]}"
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)


_INDEX = re.compile(r"0|[1-9][0-9]*")


def content_anchor(pointer: str, data: Any,
                   labels: dict[int, list[str]] | None = None) -> tuple[str, Any]:
    """``(anchor, value)``: ``pointer`` with each list index that resolves in ``data``
    replaced by :func:`item_label` (as a JSON string), and the value it names (``None``
    when it does not resolve). Segments past the data are kept as written. ``labels``
    keeps the labels of each list met (by ``id``) for the next pointer into the same
    data."""
    try:
        tokens = split_pointer(pointer)
    except ValueError:
        return pointer, None
    labels = {} if labels is None else labels
    node: Any = data
    out: list[str] = []
    for n, token in enumerate(tokens):
        if isinstance(node, list) and _INDEX.fullmatch(token) and int(token) < len(node):
            if id(node) not in labels:
                labels[id(node)] = item_labels(node)
            out.append(json.dumps([labels[id(node)][int(token)]], ensure_ascii=False))
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            out.append(token.replace("~", "~0").replace("/", "~1"))
            node = node[token]
        else:
            rest = [t.replace("~", "~0").replace("/", "~1") for t in tokens[n:]]
            return "/" + "/".join(out + rest), None
    return ("/" + "/".join(out)) if out else "", node


def identity(finding: Finding, data: Any = None,
             labels: dict[int, list[str]] | None = None) -> Identity:
    """The :class:`Identity` of ``finding`` in a document whose data is ``data``
    (``labels``: see :func:`content_anchor`)."""
    anchor, value = content_anchor(finding.pointer, data, labels)
    return Identity(rule_group(finding.rule), subject_of(finding.message, value), anchor)


def with_identities(findings: Iterable[Finding], data: Any,
                    smap: SourceMap | None = None) -> list[Finding]:
    """``findings`` with :attr:`~validator.findings.Finding.identity` set from ``data``
    (the data of the document they are about) and, given the document's source map
    ``smap``, :attr:`~validator.findings.Finding.aliases`: the anchors of the other paths
    reaching the finding's node (:func:`alias_anchors`)."""
    out = []
    labels: dict[int, list[str]] = {}
    shared: dict[str, list[str]] | None = None
    for f in findings:
        if f.identity is None:
            rule, subject, anchor = identity(f, data, labels)
            if shared is None:
                shared = _shared_by_pointer(smap)
            f = dataclasses.replace(f, identity=(rule, subject, anchor), aliases=alias_anchors(
                f.pointer, anchor, data, smap, shared, labels) if shared else ())
        out.append(f)
    return out


def _shared_by_pointer(smap: SourceMap | None) -> dict[str, list[str]]:
    """Pointer -> the pointers reaching its node, for the nodes several paths reach."""
    if smap is None:
        return {}
    return {p: group for group in shared_nodes(smap, smap.values).values() for p in group}


def alias_anchors(pointer: str, anchor: str, data: Any, smap: SourceMap | None,
                  shared: dict[str, list[str]],
                  labels: dict[int, list[str]] | None = None) -> tuple[str, ...]:
    """The content anchors (:func:`content_anchor`) of the paths other than ``pointer``
    (whose anchor is ``anchor``) that reach its node in ``data`` through a YAML alias or
    merge key (:func:`validator.sourcemap.reaching_paths`; ``shared``: see there), in
    document order."""
    if smap is None:
        return ()
    out: dict[str, None] = {}
    for path in reaching_paths(smap, shared, pointer, data)[1:]:
        other = content_anchor(path, data, labels)[0]
        if other != anchor:
            out[other] = None
    return tuple(out)


def identity_of(finding: Finding) -> Identity:
    """The finding's recorded identity, else one from its pointer as written."""
    if finding.identity is not None:
        return Identity(*finding.identity)
    return identity(finding)


class Defect(NamedTuple):
    """What a finding of a kind that several places share is about: the rule or its
    group, the document, the token (:attr:`Identity.subject`) and the rule's reason."""

    rule: str
    path: str
    token: str
    reason: str


def defect_of(finding: Finding, path: str | None = None) -> Defect | None:
    """The :class:`Defect` of a finding whose rule gave it a reason that is about the
    document as a whole (:data:`~validator.findings.FLOOR`: raising the minimum fixes
    every copy), else ``None``. A guide finding (a ``GUIDE`` rule) has none: each guide
    command is one a reader copies and runs as it stands, so a second command with the
    token is a second defect, as a flag the install range rejects (``GUIDE017``) is.
    ``path``: the document's path at the revision compared with (default: the
    finding's)."""
    if finding.reason != FLOOR or finding.rule.startswith(GUIDE_PREFIX):
        return None
    rule, subject, _ = identity_of(finding)
    return Defect(rule, path or finding.path, subject, finding.reason)


def fingerprint(finding: Finding, path: str | None = None) -> str:
    """Hex SHA-256 (first 32 digits) of the path (default: the finding's) and the
    finding's identity: SARIF's ``partialFingerprints`` value (equal for the same finding
    at two revisions)."""
    parts = [path or finding.path, *identity_of(finding)]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


GUIDE_PREFIX = "GUIDE"
"""The rule id prefix of the rules judging the guide's commands (:func:`defect_of`)."""

Unit = tuple[Identity, int]
"""An identity at one line (copies of one identity at one line are one unit)."""


def units_of(finding: Finding) -> list[Unit]:
    """The finding's units: its identity at its line and, for a node reached through
    YAML aliases, the same identity anchored at each other path
    (:attr:`~validator.findings.Finding.aliases`), at the same line."""
    own = identity_of(finding)
    return [(own, finding.line),
            *((own._replace(anchor=a), finding.line) for a in finding.aliases)]


def match(old: Sequence[Finding], new: Sequence[Finding]) -> tuple[list[bool], list[bool]]:
    """``(kept, gone)``: for each finding of ``new``, whether the same finding is in
    ``old``; for each of ``old``, whether ``new`` no longer has it.

    Identities are compared as a multiset of units (an identity at one line), in order:
    of an identity at three lines of ``old`` and two of ``new``, both of ``new`` are kept
    and the third of ``old`` is gone. A finding on a node that several paths reach (a
    YAML alias) is a unit at each path (:func:`units_of`), as explicit copies of the node
    would be: it is kept when every one of its units is, and gone when one of them is, so
    writing an alias out as a copy, or a copy as an alias, leaves a defect existing, and
    an alias that carries it to one more path makes it new there."""
    old_units, new_units = [units_of(f) for f in old], [units_of(f) for f in new]
    old_count = Counter(i for i, _ in dict.fromkeys(u for us in old_units for u in us))
    new_count = Counter(i for i, _ in dict.fromkeys(u for us in new_units for u in us))
    return (_first(new_units, old_count), [not k for k in _first(old_units, new_count)])


def _first(units: list[list[Unit]], allowed: Counter[Identity]) -> list[bool]:
    """For each finding's units, whether every one is among the first
    ``allowed[identity]`` distinct units of its identity."""
    left = Counter(allowed)
    taken: dict[Unit, bool] = {}
    out = []
    for group in units:
        for unit in group:
            if unit not in taken:
                taken[unit] = left[unit[0]] > 0
                left[unit[0]] -= 1
        out.append(all(taken[unit] for unit in group))
    return out
