"""YAML -> plain data + :class:`SourceMap`, with YAML 1.2 (js-yaml) semantics.

The recipes site reads recipes with js-yaml, a YAML 1.2 parser. PyYAML resolves plain
scalars with YAML 1.1 rules (``yes`` -> ``True``, ``0777`` -> 511) and silently keeps the
last of duplicate keys, so we do not use its constructor. Instead we let libyaml compose
the node graph (``yaml.compose(..., Loader=CSafeLoader)``: fast, every node carries its
marks, duplicate keys still visible) and build the data ourselves with the YAML 1.2 core
schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), plus js-yaml's default-schema
extras: timestamps (kept as their source text so data stays JSON) and ``<<`` merge keys.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from validator.findings import Finding, Severity, printable
from validator.rules import Hit, declare
from validator.sourcemap import BlockLines, SourceMap, Span, join_pointer

YAML_INVALID = declare(
    "YAML001",
    Severity.ERROR,
    "File is not valid YAML",
    """The file could not be parsed as YAML. The finding gives libyaml's problem and the
    line and column where it was detected; nothing else is checked in that file.

    Failing::

        model:
          base_args: ["--max-model-len", "32768"
        variants: {}

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]
        variants: {}

    How to fix: correct the syntax at the line and column given (an unclosed bracket or
    quote, a tab, a misaligned key).""",
)
YAML_DUPLICATE_KEY = declare(
    "YAML002",
    Severity.ERROR,
    "Duplicate mapping key",
    """A mapping repeats a key. YAML 1.2 forbids it and js-yaml (the recipes site) rejects
    the file, while PyYAML silently keeps the last value, so the two readers disagree.

    Failing::

        meta:
          hardware:
            h100: verified
            b200: verified
            h100: supported

    Passing::

        meta:
          hardware:
            h100: verified
            b200: verified

    How to fix: keep one of the entries (the site would refuse the file; PyYAML keeps the
    last).""",
)
YAML_AMBIGUOUS_SCALAR = declare(
    "YAML003",
    Severity.WARNING,
    "Plain scalar typed differently by YAML 1.1 and 1.2",
    """An unquoted scalar such as ``yes``, ``off``, ``0777``, ``1:20`` or ``1_000`` is a
    string or a decimal in YAML 1.2 (js-yaml) but a boolean, octal, sexagesimal or
    underscored number in YAML 1.1 (PyYAML and other 1.1 readers). Quote it.

    Failing::

        model:
          nightly_required: yes

    Passing::

        model:
          nightly_required: true

    How to fix: write ``true``/``false`` for booleans and quote strings that look like
    something else (``"yes"``, ``"0777"``).""",
)
YAML_VERSION_FLOAT = declare(
    "YAML004",
    Severity.WARNING,
    "Version-looking number parsed as a float",
    """An unquoted ``0.10`` is the float 0.1: the trailing zero, which matters in a version,
    is lost. Version fields and any number whose text does not survive a float round trip
    should be quoted strings.

    Failing::

        model:
          min_vllm_version: 0.10

    Passing::

        model:
          min_vllm_version: "0.10"

    How to fix: quote the value so that its text is kept.""",
)
YAML_SHAPE = declare(
    "YAML005",
    Severity.ERROR,
    "Document is not a single YAML mapping",
    """A recipe, taxonomy or strategy file must hold exactly one YAML document whose root is
    a mapping. Empty files, several ``---`` documents, or a root list or scalar are
    rejected.

    Failing::

        meta: {title: "Example-Chat-8B"}
        ---
        model: {model_id: "example-org/Example-Chat-8B"}

    Passing::

        meta: {title: "Example-Chat-8B"}
        model: {model_id: "example-org/Example-Chat-8B"}

    How to fix: keep one document per file whose root is a mapping (drop the ``---``
    separators, or split the recipes into files).""",
)
YAML_ENCODING = declare(
    "YAML006",
    Severity.ERROR,
    "File is not UTF-8 text",
    """YAML files must be UTF-8 text (a byte-order mark is tolerated). Binary content and
    other encodings are rejected with the offset of the first bad byte.""",
)
YAML_BAD_TAG = declare(
    "YAML008",
    Severity.ERROR,
    "Explicit tag on a value it cannot type",
    """A scalar carries an explicit core tag (``!!int``, ``!!float``, ``!!bool``,
    ``!!null``) that js-yaml applies to its text even when quoted: ``!!int "42"`` is the
    number 42 (and is read so here), but ``!!int "4x"`` is refused and the recipes site
    cannot build the file.

    Failing::

        vram_minimum_gb: !!int "80GB"

    Passing::

        vram_minimum_gb: 80

    How to fix: drop the tag and write the value in its own type.""",
)
YAML_UNKNOWN_TAG = declare(
    "YAML009",
    Severity.ERROR,
    "Tag that js-yaml does not know",
    """A node carries a tag outside js-yaml's default schema (the core types plus
    ``!!timestamp``, ``!!merge``, ``!!binary``, ``!!omap``, ``!!pairs``, ``!!set``): a
    local tag such as ``!secret`` or a language tag such as ``!!python/object``. js-yaml
    stops with "unknown tag", so the recipes site cannot build the file; here the value
    is read as if untagged.

    Failing::

        description: !fixme "Qwen3 served with vLLM"

    Passing::

        description: "Qwen3 served with vLLM"

    How to fix: remove the tag; YAML recipes need no custom types.""",
)
YAML_LIMIT = declare(
    "YAML007",
    Severity.ERROR,
    "Document exceeds a safety limit",
    """The file is larger than the size limit, nests deeper than the depth limit, or expands
    (through aliases) to more nodes than the node limit. Such input is refused rather than
    processed ("billion laughs" alias bombs, pathological nesting).

    Failing::

        a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
        e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
        f: [*e, *e, *e, *e, *e, *e, *e, *e, *e]

    Passing::

        model:
          base_args: &args ["--max-model-len", "32768"]
        variants:
          fp8: {precision: fp8, vram_minimum_gb: 10, extra_args: *args}

    How to fix: write the values out, or use aliases only for small shared fragments; split
    deep nesting.""",
)

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
# js-yaml default schema timestamp (YAML 1.1 timestamp type)
_TIMESTAMP = re.compile(
    r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$"
)
# YAML 1.1 forms that 1.2 reads differently (https://yaml.org/type/bool.html, int.html)
_YAML11_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")
_YAML11_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")
_YAML11_BINARY = re.compile(r"^[-+]?0b[01_]+$")
_YAML11_SEXAGESIMAL = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_YAML11_UNDERSCORE = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?$")

STR_TAG = "tag:yaml.org,2002:str"
MERGE_TAG = "tag:yaml.org,2002:merge"
VALUE_TAG = "tag:yaml.org,2002:value"  # PyYAML's implicit tag of a plain ``=``
JS_YAML_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in (
    "str", "int", "float", "bool", "null", "seq", "map", "timestamp", "merge", "binary",
    "omap", "pairs", "set"))
"""Tags of js-yaml's ``DEFAULT_SCHEMA``; any other tag makes it throw."""

DEFAULT_MAX_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_DEPTH = 64
DEFAULT_MAX_NODES = 200_000

# libyaml's Cython composer (``yaml.compose`` with ``CSafeLoader``) recurses in C once per
# nesting level and crashes the interpreter (SIGSEGV, not RecursionError) somewhere past
# ~20,000 levels on an 8 MiB stack; composing also allocates every node of the file before
# our node limit can act (~350 MB for 1M nodes). So before composing, a file that *might*
# be deep or large is pre-scanned with the event API (flat, no recursion, constant memory),
# which enforces the depth and node limits. The cheap test below is an upper bound of the
# nesting depth: flow nesting needs a ``[``/``{`` per level, and block nesting needs more
# indentation or a ``- ``/``? `` indicator per level, so it is at most ~3 x the longest line.
_PRESCAN_DEPTH_BOUND = 4000
"""Files whose nesting bound exceeds this are pre-scanned (corpus maximum: ~2,200)."""
_PRESCAN_BYTES = 256 * 1024
"""Files larger than this are pre-scanned (largest recipe in the corpus history: 58 KiB)."""
_MAX_FINDINGS_PER_RULE = 100
"""At most this many findings of one loader rule per file; the rest are summarised."""
_TAG_AFTER_ANCHOR = re.compile(r"(?:&[^\s]*[ \t]+)?!")


@dataclass
class LoadedDocument:
    """A YAML file turned into data.

    Attributes:
        path: display path (repository-relative where known).
        text: the decoded text (BOM removed, line endings as in the file).
        data: plain JSON-compatible data (dict/list/str/int/float/bool/None), or ``None``
            when the file could not be loaded (see ``findings``).
        source_map: JSON Pointer -> positions.
        findings: ``YAML`` findings raised while loading.
        sha256: hex SHA-256 of the exact bytes read.
    """

    path: str
    text: str
    data: Any
    source_map: SourceMap
    findings: list[Finding] = field(default_factory=list)
    sha256: str = ""

    @property
    def ok(self) -> bool:
        """True when the file parsed into a mapping (checks can run)."""
        return isinstance(self.data, dict)

    def lines(self) -> list[str]:
        """The file's lines without line terminators (index 0 is line 1)."""
        return self.text.splitlines()


class _LimitExceeded(Exception):
    def __init__(self, message: str, node: yaml.Node | None, mark: Any = None) -> None:
        super().__init__(message)
        self.node = node
        self.mark = mark if mark is not None else (node.start_mark if node else None)


def _nesting_bound(text: str, lines: list[str]) -> int:
    """An upper bound of the nesting depth of ``text`` (see ``_PRESCAN_DEPTH_BOUND``)."""
    longest = max(map(len, lines), default=0)
    return text.count("[") + text.count("{") + 3 * longest + 2


def _prescan(text: str, max_depth: int, max_nodes: int) -> None:
    """Walk the parser events of ``text`` enforcing ``max_depth`` and ``max_nodes``
    (nodes as written: aliases count once here; the builder counts their expansion).

    Raises:
        _LimitExceeded: a limit is exceeded (the mark is where).
        yaml.YAMLError: the text is not YAML (reported as ``YAML001`` by the caller).
    """
    depth = 0
    nodes = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            nodes += 1
            if depth > max_depth + 1:
                raise _LimitExceeded(f"document nests deeper than {max_depth} levels", None,
                                     event.start_mark)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            nodes += 1
        if nodes > max_nodes:
            raise _LimitExceeded(f"document has more than {max_nodes} nodes", None,
                                 event.start_mark)


def _span(node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)


class _Builder:
    """Builds plain data from a composed node graph, recording the source map."""

    def __init__(self, doc: LoadedDocument, lines: list[str], max_depth: int, max_nodes: int):
        self.doc = doc
        self.lines = lines
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.nodes = 0
        self.per_rule: dict[str, int] = {}

    def build(self, node: yaml.Node, pointer: str, depth: int, key: str | None = None) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _LimitExceeded(
                f"document expands to more than {self.max_nodes} nodes (alias expansion?)", node
            )
        if depth > self.max_depth:
            raise _LimitExceeded(f"document nests deeper than {self.max_depth} levels", node)
        smap = self.doc.source_map
        smap.values.setdefault(pointer, _span(node))
        if node.tag not in JS_YAML_TAGS and (node.tag != VALUE_TAG or self.explicit_tag(node)):
            self.unknown_tag(node, pointer)
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
        result: dict[str, Any] = {}
        seen: dict[str, yaml.Node] = {}
        merges: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag == MERGE_TAG:
                merges.append(value_node)  # built after the explicit keys (see below)
                continue
            key = self.key_text(key_node, pointer, depth)
            child = join_pointer(pointer, key)
            if key in seen:
                first = seen[key].start_mark.line + 1
                self.report(
                    YAML_DUPLICATE_KEY.finding_at(
                        self.doc,
                        child,
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
        for merge_node in merges:
            for k, v in self.merge(merge_node, pointer, depth).items():
                result.setdefault(k, v)
        return result

    def merge(self, node: yaml.Node, pointer: str, depth: int) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        out: dict[str, Any] = {}
        for src in sources:
            if isinstance(src, yaml.MappingNode):
                for k, v in self.mapping(src, pointer, depth + 1).items():
                    out.setdefault(k, v)
        return out

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
            raise _LimitExceeded(f"document expands to more than {self.max_nodes} nodes", node)
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node, pointer, None, record=False)
            if isinstance(value, bool):
                return "true" if value else "false"
            return "null" if value is None else str(value)
        return str(self.build(node, pointer + "/~key", depth + 1))

    def scalar(
        self, node: yaml.ScalarNode, pointer: str, key: str | None, record: bool = True
    ) -> Any:
        text: str = node.value
        if node.tag in _CORE_TAGS and node.tag != STR_TAG and self.explicit_tag(node):
            return self.tagged(node, pointer, text)
        if node.style:  # quoted or block ("" or None is plain): a string in any YAML version
            if record and node.style == "|":
                self.record_block(node, pointer)
            return text
        if self.explicit_tag(node):
            return text if node.tag == STR_TAG else resolve_plain(text)
        value = resolve_plain(text)
        if record:
            self.flag_ambiguity(node, pointer, text, value, key)
        return value

    def tagged(self, node: yaml.ScalarNode, pointer: str, text: str) -> Any:
        """A scalar with an explicit core tag (``!!int "42"``), read as js-yaml reads it:
        the tag's type applied to the text, quoted or not; text the type cannot take is
        ``YAML008`` (js-yaml refuses the file) and stays a string."""
        ok, value = construct_tagged(node.tag, text)
        if not ok:
            name = "!!" + node.tag.rsplit(":", 1)[-1]
            what = _TAG_NOUN[name[2:]]
            self.report(YAML_BAD_TAG.finding(self.doc, Hit(
                pointer, f"`{name} {text!r}`: the text is not {what}, so js-yaml (the "
                "recipes site) refuses the file", f"drop the tag, or write {what}")))
            return text
        return value

    def unknown_tag(self, node: yaml.Node, pointer: str) -> None:
        tag = node.tag
        shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") \
            else tag
        self.report(YAML_UNKNOWN_TAG.finding_at(
            self.doc, pointer, (node.start_mark.line + 1, node.start_mark.column + 1),
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
        if _YAML11_BOOL.match(text):
            yaml11 = "a boolean"
        elif isinstance(value, str) and _YAML11_SEXAGESIMAL.match(text):
            yaml11 = "a base-60 number"
        elif isinstance(value, str) and _YAML11_BINARY.match(text):
            yaml11 = "a binary integer"
        elif _YAML11_OCTAL.match(text) and text.strip("+-") not in ("0",) and "_" not in text:
            yaml11 = "an octal integer"
        elif "_" in text and _YAML11_UNDERSCORE.match(text):
            yaml11 = "a number"
        if yaml11 is not None:
            shown = f"{value!r}" if not isinstance(value, str) else "a string"
            self.report(
                YAML_AMBIGUOUS_SCALAR.finding(
                    self.doc,
                    Hit(pointer,
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
                    YAML_VERSION_FLOAT.finding(
                        self.doc,
                        Hit(pointer,
                            f"`{text}` is read as the float {value!r}"
                            + (" and loses its trailing zero" if repr(value) != text else ""),
                            f'quote it: "{text}"'),
                    )
                )

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


_TAG_NOUN = {"int": "an integer", "float": "a number", "bool": "a boolean", "null": "null"}
_CORE_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))


def construct_tagged(tag: str, text: str) -> tuple[bool, Any]:
    """``(ok, value)`` of ``text`` under explicit core tag ``tag`` as js-yaml's default
    schema constructs it (underscores allowed in numbers, ``0b``/``0o``/``0x`` integers)."""
    kind = tag.rsplit(":", 1)[-1]
    bare = text.replace("_", "") if kind in ("int", "float") and not text.endswith("_") \
        else text
    value = resolve_plain(bare)
    if kind == "int":
        if re.fullmatch(r"[-+]?0b[01]+", bare):
            return True, int(bare.replace("0b", ""), 2)
        return (True, value) if isinstance(value, int) and not isinstance(value, bool) \
            else (False, text)
    if kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, float(value)
        return False, text
    if kind == "bool":
        return (True, value) if isinstance(value, bool) else (False, text)
    return (True, None) if value is None else (False, text)


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar with the YAML 1.2 core schema (plus js-yaml timestamps).

    Returns ``None``, ``bool``, ``int``, ``float`` or ``str``. Timestamps stay strings
    (their source text) so that loaded data is JSON-compatible.
    """
    if _NULL.match(text):
        return None
    if _BOOL_TRUE.match(text):
        return True
    if _BOOL_FALSE.match(text):
        return False
    if _INT10.match(text):
        try:
            return int(text, 10)
        except ValueError:  # over Python's 4,300-digit limit: a float, as js-yaml reads it
            return float(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text


def decode_text(raw: bytes) -> tuple[str | None, str | None]:
    """Decode ``raw`` as UTF-8 (a leading BOM is dropped).

    Returns ``(text, None)`` or ``(None, reason)`` where ``reason`` names the offset of the
    first NUL or undecodable byte.
    """
    nul = raw.find(b"\x00")
    if nul != -1:
        return None, f"binary content (NUL byte at offset {nul})"
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"


def load_yaml(
    raw: bytes,
    path: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> LoadedDocument:
    """Load one YAML document from ``raw`` bytes.

    Never raises for bad input: every problem becomes a ``YAML`` finding on the returned
    document, whose ``data`` is then ``None`` (or the partial data for non-fatal ones).

    Args:
        raw: the exact file bytes.
        path: display path used in findings.
        max_bytes: size limit in bytes (``YAML007`` beyond it).
        max_depth: nesting limit in levels.
        max_nodes: limit on built nodes, counting each alias expansion.
    """
    doc = LoadedDocument(path, "", None, SourceMap(), sha256=hashlib.sha256(raw).hexdigest())
    if len(raw) > max_bytes:
        doc.findings.append(
            YAML_LIMIT.finding_at(doc, "", (1, 1),
                                  f"file is {len(raw)} bytes, over the {max_bytes}-byte limit",
                                  "raise --max-bytes if this file is legitimate")
        )
        return doc
    text, problem = decode_text(raw)
    if text is None:
        doc.findings.append(YAML_ENCODING.finding_at(doc, "", (1, 1), f"file is {problem}",
                                                     "save the file as UTF-8 text"))
        return doc
    doc.text = text
    lines = text.splitlines()
    try:
        if len(text) > _PRESCAN_BYTES or _nesting_bound(text, lines) > _PRESCAN_DEPTH_BOUND:
            _prescan(text, max_depth, max_nodes)
        nodes = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except _LimitExceeded as exc:
        mark = exc.mark
        pos = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        doc.findings.append(YAML_LIMIT.finding_at(doc, "", pos, str(exc),
                                                  "simplify the document"))
        return doc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(x for x in (exc.context, exc.problem) if x)
        if "maximum nesting depth" in what:
            # libyaml >= 0.2.6 (bundled with PyYAML 6.0.4 wheels) has its own nesting limit
            # (1000 levels) that can fire before ours: the same limit, so the same rule
            doc.findings.append(YAML_LIMIT.finding_at(
                doc, "", pos, f"document nests deeper than libyaml's limit ({what})",
                "simplify the document"))
            return doc
        doc.findings.append(YAML_INVALID.finding_at(doc, "", pos, f"invalid YAML: {what}"))
        return doc
    except (yaml.YAMLError, RecursionError) as exc:
        doc.findings.append(YAML_INVALID.finding_at(doc, "", (1, 1), f"invalid YAML: {exc}"))
        return doc
    if len(nodes) != 1 or not isinstance(nodes[0], yaml.MappingNode):
        if not nodes:
            msg = "file holds no YAML document (it is empty or only comments)"
            pos = (1, 1)
        elif len(nodes) > 1:
            msg = f"file holds {len(nodes)} YAML documents; a recipe file holds exactly one"
            pos = (nodes[1].start_mark.line + 1, nodes[1].start_mark.column + 1)
        else:
            kind = "a sequence" if isinstance(nodes[0], yaml.SequenceNode) else "a scalar"
            msg = f"the document's root is {kind}, not a mapping"
            pos = (nodes[0].start_mark.line + 1, nodes[0].start_mark.column + 1)
        doc.findings.append(YAML_SHAPE.finding_at(doc, "", pos, msg))
        return doc
    builder = _Builder(doc, lines, max_depth, max_nodes)
    try:
        doc.data = builder.build(nodes[0], "", 0)
    except (_LimitExceeded, RecursionError) as exc:
        node = exc.node if isinstance(exc, _LimitExceeded) and exc.node else nodes[0]
        doc.source_map = SourceMap()
        doc.findings = [f for f in doc.findings if f.rule not in ("YAML003", "YAML004")]
        doc.findings.append(
            YAML_LIMIT.finding_at(doc, "", (node.start_mark.line + 1, node.start_mark.column + 1),
                                  str(exc), "simplify the document")
        )
        doc.data = None
        return doc
    builder.summarise()
    return doc
