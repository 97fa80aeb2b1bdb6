"""Plain data and the source map from a composed libyaml node graph (the second half of
:func:`validator.load.load_yaml`): duplicate keys, merge keys, explicit and unknown tags,
YAML 1.1/1.2 ambiguities and the alias-expansion limit are found here."""

from __future__ import annotations

import dataclasses
import math
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

import yaml

from validator.findings import Finding, printable
from validator.load.jsstring import js_str
from validator.load.lines import LineMap
from validator.load.scalars import (
    BINARY_TAG,
    CORE_TAGS,
    JS_YAML_TAGS,
    MERGE_TAG,
    STR_TAG,
    TAG_NOUN,
    TIMESTAMP_TAG,
    VALUE_TAG,
    YAML11_BINARY,
    YAML11_BOOL,
    YAML11_OCTAL,
    YAML11_SEXAGESIMAL,
    YAML11_UNDERSCORE,
    construct_tagged,
    js_binary_bytes,
    js_timestamp_iso,
    json_number_problem,
    resolve_plain,
)
from validator.rules.metadata import Hit
from validator.rules.yaml.ambiguous_scalars import YAML_AMBIGUOUS_SCALAR, YAML_VERSION_FLOAT
from validator.rules.yaml.duplicate_keys import YAML_DUPLICATE_KEY
from validator.rules.yaml.json_numbers import YAML_NOT_JSON_NUMBER
from validator.rules.yaml.site_types import YAML_SITE_TYPE
from validator.rules.yaml.tags import YAML_BAD_TAG, YAML_UNKNOWN_TAG
from validator.sourcemap import BlockLines, Span, join_pointer

if TYPE_CHECKING:
    from validator.load.document import LoadedDocument

_MAX_FINDINGS_PER_RULE = 100
"""At most this many findings of one loader rule per file; the rest are summarised."""
_TAG_AFTER_ANCHOR = re.compile(r"(?:&[^\s]*[ \t]+)?!")
_CLI_ARG = re.compile(r"/(?:base_|extra_)?args/[0-9]+$")
_CLI_ENV = re.compile(r"/(?:base_|extra_)?env/[^/]+$")
"""Pointers of the values the site renders into a command: argument list items and
environment values (model, variants, features, overrides, strategies)."""




_TAG_KIND: dict[str, type[yaml.Node]] = {
    **{f"tag:yaml.org,2002:{t}": yaml.ScalarNode for t in (
        "str", "int", "float", "bool", "null", "timestamp", "merge", "binary")},
    **{f"tag:yaml.org,2002:{t}": yaml.SequenceNode for t in ("seq", "omap", "pairs")},
    **{f"tag:yaml.org,2002:{t}": yaml.MappingNode for t in ("map", "set")},
}
"""The node kind js-yaml's default schema knows each of its tags for."""
_KIND_NOUN = {yaml.ScalarNode: "scalars", yaml.SequenceNode: "sequences",
              yaml.MappingNode: "mappings"}


class LimitExceeded(Exception):
    def __init__(self, message: str, node: yaml.Node | None, mark: Any = None) -> None:
        super().__init__(message)
        self.node = node
        self.mark = mark if mark is not None else (node.start_mark if node else None)



def _span(node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)


def _date_text(iso: str) -> str:
    """JavaScript's ``String(date)`` of the UTC instant ``iso`` as a build machine on UTC
    prints it (``Mon Jan 01 2024 00:00:00 GMT+0000 (Coordinated Universal Time)``)."""
    when = datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S")
    # JavaScript writes the year with at least four digits (``0500``); strftime's %Y may not
    return (when.strftime("%a %b %d ") + f"{when.year:04d}" + when.strftime(" %H:%M:%S")
            + " GMT+0000 (Coordinated Universal Time)")


class Builder:
    """Builds plain data from a composed node graph, recording the source map."""

    def __init__(self, doc: LoadedDocument, lines: list[str], max_depth: int, max_nodes: int,
                 line_map: LineMap):
        self.doc = doc
        self.lines = lines  # as libyaml numbers them (its marks index this list)
        self.line_map = line_map  # libyaml's positions -> GitHub's, for messages
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.nodes = 0
        self.per_rule: dict[str, int] = {}
        self.open_mappings: set[int] = set()  # ids of the mapping nodes being built

    def build(self, node: yaml.Node, pointer: str, depth: int, key: str | None = None) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise LimitExceeded(
                f"document expands to more than {self.max_nodes} nodes (alias expansion?)", node
            )
        if depth > self.max_depth:
            raise LimitExceeded(f"document nests deeper than {self.max_depth} levels", node)
        smap = self.doc.source_map
        smap.values.setdefault(pointer, _span(node))
        if node.tag not in JS_YAML_TAGS and (node.tag != VALUE_TAG or self.explicit_tag(node)):
            self.unknown_tag(node, pointer)
        elif not isinstance(node, _TAG_KIND.get(node.tag, yaml.Node)):
            self.wrong_kind(node, pointer)
        elif node.tag == MERGE_TAG and node.value != "<<":
            self.refused(node, pointer, f"`!!merge {printable(node.value)!r}`: js-yaml "
                         "resolves !!merge only for `<<`, so it refuses the file",
                         "drop the tag")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, pointer, key)
        if isinstance(node, yaml.SequenceNode):
            return [
                self.build(item, join_pointer(pointer, i), depth + 1)
                for i, item in enumerate(node.value)
            ]
        assert isinstance(node, yaml.MappingNode)
        return self.mapping(node, pointer, depth)

    def mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        self.open_mappings.add(id(node))
        try:
            return self._mapping(node, pointer, depth)
        finally:
            self.open_mappings.discard(id(node))

    def _mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        seen: dict[str, yaml.Node] = {}
        merges: list[tuple[yaml.Node, yaml.Node]] = []
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag == MERGE_TAG:
                if key_node.value == "<<":
                    self.merge_sources(value_node, pointer)
                    merges.append((key_node, value_node))  # built after the explicit keys
                    continue
                self.refused(key_node, pointer, f"`!!merge {printable(key_node.value)!r}`: "
                             "only the key `<<` is a merge key, so js-yaml (the recipes "
                             "site) refuses the file", "drop the tag")
            key = self.key_text(key_node, pointer, depth)
            child = join_pointer(pointer, key)
            if key in seen:
                first = self.line_map.position(seen[key].start_mark.line + 1, 1)[0]
                self.report(
                    self.doc.finding_at(
                        YAML_DUPLICATE_KEY, child,
                        (key_node.start_mark.line + 1, key_node.start_mark.column + 1),
                        f"duplicate key {key!r} (first defined on line {first}); js-yaml "
                        "rejects the file and PyYAML silently keeps the last value",
                        "remove or rename one of the two entries",
                    )
                )
                continue
            seen[key] = key_node
            self.doc.source_map.keys[child] = _span(key_node)
            result[key] = self.build(value_node, child, depth + 1, key)
        # Explicit keys override merged ones; building them first also gives their
        # pointers the explicit node's position in the source map.
        for key_node, merge_node in merges:
            for k, v in self.merge(key_node, merge_node, pointer, depth).items():
                result.setdefault(k, v)
        return result

    def merge(self, key_node: yaml.Node, node: yaml.Node, pointer: str,
              depth: int) -> dict[str, Any]:
        """The keys the merge key ``key_node`` (``<<``) takes from ``node``; a source that
        is a mapping holding this merge key (``meta: &a {<<: *a}``) is refused
        (``YAML007`` at the ``<<``): it would merge itself without end."""
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        out: dict[str, Any] = {}
        for src in sources:
            if id(src) in self.open_mappings:
                line = self.line_map.position(src.start_mark.line + 1, 1)[0]
                raise LimitExceeded(
                    f"the merge key `<<` merges a mapping it is itself inside (the anchor "
                    f"on line {line}): that mapping would include itself without end",
                    key_node)
            if isinstance(src, yaml.MappingNode):
                for k, v in self.mapping(src, pointer, depth + 1).items():
                    out.setdefault(k, v)
        return out

    def merge_sources(self, node: yaml.Node, pointer: str) -> None:
        """``YAML008``: a ``<<`` merge of a scalar (or a list holding one): js-yaml merges
        only objects ("cannot merge mappings; the provided source object is
        unacceptable"); here such a source adds nothing."""
        for src in node.value if isinstance(node, yaml.SequenceNode) else [node]:
            if isinstance(src, yaml.ScalarNode) and src.tag not in (TIMESTAMP_TAG, BINARY_TAG):
                self.refused(src, pointer, f"`<<: {printable(src.value)!r}`: a merge key "
                             "takes a mapping or a list of mappings, so js-yaml (the recipes "
                             "site) refuses the file", "merge an anchored mapping (`<<: *name`)"
                             " or write the keys out")

    def wrong_kind(self, node: yaml.Node, pointer: str) -> None:
        """``YAML008``: a js-yaml tag on a node of another kind (``!!str {}``,
        ``!!map []``, ``!!set [a]``): js-yaml knows each tag for one kind only and stops
        with "unknown tag"; here the node is read as if untagged."""
        name = "!!" + node.tag.rsplit(":", 1)[-1]
        have = "a mapping" if isinstance(node, yaml.MappingNode) else \
            "a sequence" if isinstance(node, yaml.SequenceNode) else "a scalar"
        want = _KIND_NOUN[_TAG_KIND[node.tag]]
        self.refused(node, pointer, f"`{name}` on {have}: js-yaml types {name} only for "
                     f"{want}, so it refuses the file (unknown tag)",
                     f"drop the tag, or write a {want[:-1]}")

    def refused(self, node: yaml.Node, pointer: str, message: str, hint: str) -> None:
        self.report(self.doc.finding_at(
            YAML_BAD_TAG, pointer, (node.start_mark.line + 1, node.start_mark.column + 1),
            message, hint))

    def report(self, finding: Finding) -> None:
        """Append a loader finding, at most ``_MAX_FINDINGS_PER_RULE`` per rule."""
        count = self.per_rule.get(finding.rule, 0) + 1
        self.per_rule[finding.rule] = count
        if count <= _MAX_FINDINGS_PER_RULE:
            self.doc.findings.append(finding)

    def summarise(self) -> None:
        """Add one finding per rule whose findings were capped, saying how many were not
        shown (at the position of the last one shown)."""
        for rule_id, count in sorted(self.per_rule.items()):
            if count > _MAX_FINDINGS_PER_RULE:
                last = [f for f in self.doc.findings if f.rule == rule_id][-1]
                self.doc.findings.append(dataclasses.replace(
                    last, message=f"{count - _MAX_FINDINGS_PER_RULE} more {rule_id} findings "
                    "in this file are not shown", hint=None, end_line=None, end_column=None))

    def key_text(self, node: yaml.Node, pointer: str, depth: int) -> str:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise LimitExceeded(f"document expands to more than {self.max_nodes} nodes", node)
        if isinstance(node, yaml.ScalarNode):
            # js-yaml names a key String(value): `2.0` -> "2", `1e3` -> "1000", `.inf`
            # -> "Infinity", `~` -> "null", `0x1` -> "1" (Number#toString, not Python's)
            return js_str(self.scalar(node, pointer, None, record=False))
        return js_str(self.build(node, pointer + "/~key", depth + 1))

    def scalar(
        self, node: yaml.ScalarNode, pointer: str, key: str | None, record: bool = True
    ) -> Any:
        text: str = node.value
        if record and node.tag in (TIMESTAMP_TAG, BINARY_TAG) and (
                node.tag == BINARY_TAG or not node.style or self.explicit_tag(node)):
            self.site_type(node, pointer, text)
        if node.tag in CORE_TAGS and node.tag != STR_TAG and self.explicit_tag(node):
            tagged = self.tagged(node, pointer, text)
            if record:
                self.flag_not_json(node, pointer, text, tagged)
            return tagged
        if node.style:  # quoted or block ("" or None is plain): a string in any YAML version
            if record and node.style == "|":
                self.record_block(node, pointer)
            if record and node.style in "|>" and _CLI_ARG.search(pointer):
                self.at_block_content(node, pointer)
            return text
        if self.explicit_tag(node):
            return text if node.tag == STR_TAG else resolve_plain(text)
        value = resolve_plain(text)
        if record:
            self.flag_ambiguity(node, pointer, text, value, key)
            self.flag_not_json(node, pointer, text, value)
        return value

    def flag_not_json(self, node: yaml.ScalarNode, pointer: str, text: str,
                      value: Any) -> None:
        """``YAML014``: a number JSON cannot hold (NaN, an infinity, an integer past the
        largest double); the records and the site's API write ``null`` for it."""
        problem = json_number_problem(value)
        if problem is None:
            return
        shown = printable(text if len(text) <= 24 else f"{text[:12]}…{text[-6:]}")
        what = "is NaN" if problem == "NaN" else f"is {problem}" if "Infinity" in problem \
            else f"({len(text)} characters) is {problem}: js-yaml (the recipes site) " \
            "reads it as Infinity"
        self.report(self.doc.finding_at(
            YAML_NOT_JSON_NUMBER, pointer, (node.start_mark.line + 1, node.start_mark.column + 1),
            f"`{shown}` {what}; JSON has no NaN or Infinity, so the site's JSON API and "
            "the records of `record`/`publish` write null for it",
            "write the finite number meant (or leave the key out)"))

    def tagged(self, node: yaml.ScalarNode, pointer: str, text: str) -> Any:
        """A scalar with an explicit core tag (``!!int "42"``), read as js-yaml reads it:
        the tag's type applied to the text, quoted or not; text the type cannot take is
        ``YAML008`` (js-yaml refuses the file) and stays a string."""
        ok, value = construct_tagged(node.tag, text)
        if not ok:
            name = "!!" + node.tag.rsplit(":", 1)[-1]
            what = TAG_NOUN[name[2:]]
            self.report(self.doc.finding(YAML_BAD_TAG, Hit(
                pointer, f"`{name} {text!r}`: the text is not {what}, so js-yaml (the "
                "recipes site) refuses the file", f"drop the tag, or write {what}")))
            return text
        return value

    def site_type(self, node: yaml.ScalarNode, pointer: str, text: str) -> None:
        """``YAML011``: a timestamp or ``!!binary`` scalar that js-yaml reads as a
        ``Date`` or a byte array where the site renders text (the data keeps the text)."""
        arg, env = _CLI_ARG.search(pointer), _CLI_ENV.search(pointer)
        if node.tag == TIMESTAMP_TAG:
            iso = js_timestamp_iso(text)
            if iso is None or not (arg or env):
                return  # dates elsewhere are the site's (meta dates); other text: not judged here
            what = f"a timestamp: js-yaml (the recipes site) reads it as the Date " \
                   f"{iso}, not the text"
            shown = "the Date's text (`" + _date_text(iso) + "`)"
        else:
            data = js_binary_bytes(text)
            if data is None:
                self.report(self.doc.finding(YAML_BAD_TAG, Hit(
                    pointer, f"`!!binary {printable(text)!r}` is not base64, so js-yaml (the "
                    "recipes site) refuses the file", "drop the tag and write the text")))
                return
            what = f"a !!binary value: js-yaml (the recipes site) reads it as {len(data)} " \
                   "bytes (a Uint8Array), not text"
            shown = "the bytes' numbers (`" + ",".join(map(str, data[:8])) + \
                ("…" if len(data) > 8 else "") + "`)"
        if arg:
            effect = "; its command renderer calls .startsWith on it and throws, so the " \
                     "site builds no command for the configurations using this list"
        elif env:
            effect = f"; the site's command sets the variable to {shown}"
        else:
            effect = ""
        self.report(self.doc.finding(YAML_SITE_TYPE, Hit(
            pointer, f"`{printable(text)}` is {what}{effect}",
            f'quote it: "{text}"' if node.tag == TIMESTAMP_TAG
            else "drop the tag and write the value as a quoted string")))

    def unknown_tag(self, node: yaml.Node, pointer: str) -> None:
        tag = node.tag
        shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") \
            else tag
        self.report(self.doc.finding_at(
            YAML_UNKNOWN_TAG, pointer, (node.start_mark.line + 1, node.start_mark.column + 1),
            f"unknown tag {printable(shown)!r}: js-yaml (the recipes site) refuses the file",
            "remove the tag"))

    def explicit_tag(self, node: yaml.Node) -> bool:
        """True when the node is written with a ``!tag`` (its start mark is the tag/anchor)."""
        mark = node.start_mark
        if mark.line >= len(self.lines):
            return False
        # match in place: slicing the line would copy it per node (quadratic on a 2 MiB
        # single-line flow sequence)
        return _TAG_AFTER_ANCHOR.match(self.lines[mark.line], mark.column) is not None

    def flag_ambiguity(self, node: yaml.ScalarNode, pointer: str, text: str, value: Any,
                       key: str | None) -> None:
        yaml11: str | None = None
        if YAML11_BOOL.match(text):
            yaml11 = "a boolean"
        elif isinstance(value, str) and YAML11_SEXAGESIMAL.match(text):
            yaml11 = "a base-60 number"
        elif isinstance(value, str) and YAML11_BINARY.match(text):
            yaml11 = "a binary integer"
        elif YAML11_OCTAL.match(text) and text.strip("+-") not in ("0",) and "_" not in text:
            yaml11 = "an octal integer"
        elif isinstance(value, str) and "_" in text and YAML11_UNDERSCORE.match(text):
            yaml11 = "a number"
        if yaml11 is not None:
            shown = f"{value!r}" if not isinstance(value, str) else "a string"
            self.report(
                self.doc.finding(
                    YAML_AMBIGUOUS_SCALAR, Hit(pointer,
                        f"plain scalar `{text}` is {shown} in YAML 1.2 (js-yaml) but {yaml11} "
                        "in YAML 1.1",
                        f'quote it: "{text}"'),
                )
            )
            return
        if isinstance(value, float) and math.isfinite(value) and re.match(r"^\d+\.\d+$", text):
            versionish = key is not None and "version" in key.lower()
            if versionish or repr(value) != text:
                self.report(
                    self.doc.finding(
                        YAML_VERSION_FLOAT, Hit(pointer,
                            f"`{text}` is read as the float {value!r}"
                            + (" and loses its trailing zero" if repr(value) != text else ""),
                            f'quote it: "{text}"'),
                    )
                )

    def at_block_content(self, node: yaml.ScalarNode, pointer: str) -> None:
        """An argument written as a block scalar (``- >-`` then the value on the next
        line) is positioned at its first content line, where the value is, not at the
        ``>``/``|`` indicator: findings on the value point at the value token."""
        for number in range(node.start_mark.line + 1, node.end_mark.line + 1):
            if number < len(self.lines) and self.lines[number].strip():
                line = self.lines[number]
                column = len(line) - len(line.lstrip(" ")) + 1
                end = self.doc.source_map.values[pointer]
                self.doc.source_map.values[pointer] = Span(number + 1, column, end.end_line,
                                                           end.end_column)
                return

    def record_block(self, node: yaml.ScalarNode, pointer: str) -> None:
        if node.style != "|":
            return
        start = node.start_mark.line  # 0-based line of the indicator
        first = start + 1
        indent = 0
        for ln in self.lines[first:node.end_mark.line + 1]:
            if ln.strip():
                indent = len(ln) - len(ln.lstrip(" "))
                break
        count = node.value.count("\n") + (0 if node.value.endswith("\n") else 1)
        self.doc.source_map.blocks[pointer] = BlockLines(first + 1, indent, max(count, 0))

