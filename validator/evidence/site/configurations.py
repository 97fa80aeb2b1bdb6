"""The data of a record page's configuration picker: every configuration the recipes
site's page offers (:func:`validator.render.offered.offered_renderings`), each with the
blocks ``render`` prints for it, the findings that apply to it
(:mod:`validator.evidence.site.verdicts`) and its JSON (what ``render --format json``
prints for it), all of them in one compact table (:mod:`validator.evidence.site.config_json`).

A recipe can offer hundreds of configurations (GLM-5.2: 1,595), which share most of their
lines: every string is stored once (``strings``), every block once as string indexes
(``blocks``: a block is most often another block's lines with a few edits, the lines a
feature adds, and is stored as those edits, :class:`_Blocks`), every list of blocks once
(``blocksets``), every set of features once (``featuresets``), every set of lines the cu129
build changes once (``cudasets``), every set of findings once
(``verdicts``), and a configuration is its choices and the indexes of those
(:func:`expanded`). The page script assembles the chosen one.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from validator.evidence.site.config_json import JsonTable, Shared
from validator.evidence.site.html import shown
from validator.evidence.site.verdicts import scopes
from validator.render.configuration import Configuration, Rendered
from validator.render.offered import Offered, rendering_json
from validator.render_blocks import Block, blocks

CHOICES = (("hardware", "Hardware"), ("variant", "Variant"), ("strategy", "Strategy"),
           ("size", "Nodes"), ("modes", "Feature mode"), ("task", "Task"))
"""The picker's selects (name, label), in the order a choice outranks the next when a
pick has to move the others to a configuration the site offers; features are
checkboxes."""


@dataclass(frozen=True)
class Picker:
    """What a record page's picker needs: ``data`` (embedded in the page as JSON),
    ``json`` (every configuration's ``render --format json`` document, in the order of
    ``data["configs"]``: :meth:`JsonTable.data`, written beside the page) and the index
    of the page's landing configuration."""

    data: dict[str, Any]
    json: dict[str, Any]
    default: int


class _Table:
    """Values stored once, referred to by index."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[Any, int] = {}
        self._strings: dict[str, int] = {}  # a string as given -> its index

    def add(self, value: Any) -> int:
        if isinstance(value, str):
            found = self._strings.get(value)
            if found is None:  # a hidden character shows as <U+202E>, as on the page
                found = self._strings[value] = self._add(shown(value))
            return found
        return self._add(_SORTED.encode(value) if isinstance(value, list | dict) else value,
                         value)

    def _add(self, key: Any, value: Any = None) -> int:
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(key if value is None else value)
        return self._index[key]


_SORTED = json.JSONEncoder(sort_keys=True)
"""``json.dumps(value, sort_keys=True)``, made once."""
_COMPACT = json.JSONEncoder(separators=(",", ":"))
"""``json.dumps(value, separators=(",", ":"))``, made once."""


BASE_CANDIDATES = 8
"""How many earlier blocks of the same title a new block is compared with to find the base
whose edits are shortest."""


def _edits(matcher: difflib.SequenceMatcher[int], base: list[int],
           lines: list[int]) -> list[list[int]]:
    """``lines`` (what ``matcher`` was made for: its second sequence) as edits of ``base``:
    ``[start, end, line...]`` replaces ``base[start:end]`` by the lines given, in order
    (one matcher per new block: its index of the block's lines is made once for every
    base it is compared with)."""
    matcher.set_seq1(base)
    return [[i1, i2, *lines[j1:j2]] for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def _weight(value: Any) -> int:
    return len(_COMPACT.encode(value))


class _Blocks:
    """Blocks ``[title, copyable, lines]`` stored once, each as the shortest of its lines
    and its edits (:func:`_edits`) of one of the last :data:`BASE_CANDIDATES` blocks of its
    title: ``[title, copyable, base, edits]`` (the base's index is smaller: read in order,
    :func:`block_lines`)."""

    def __init__(self) -> None:
        self.items: list[list[Any]] = []
        self._index: dict[str, int] = {}
        self._lines: list[list[int]] = []
        self._by_title: dict[int, list[int]] = {}

    def add(self, row: list[Any]) -> int:
        key = json.dumps(row)
        if key in self._index:
            return self._index[key]
        title, copyable, lines = row
        stored: list[Any] = row
        weight = _weight(row)
        matcher = difflib.SequenceMatcher(a=lines, b=lines, autojunk=False)
        for base in self._by_title.get(title, [])[-BASE_CANDIDATES:]:
            edited = [title, copyable, base, _edits(matcher, self._lines[base], lines)]
            if _weight(edited) < weight:
                stored, weight = edited, _weight(edited)
        index = self._index[key] = len(self.items)
        self.items.append(stored)
        self._lines.append(lines)
        self._by_title.setdefault(title, []).append(index)
        return index


def block_lines(blocks: list[list[Any]]) -> list[list[int]]:
    """The line indexes of each block of the picker data's ``blocks`` (its own, or its
    base's with its edits applied), as the page script reads them."""
    out: list[list[int]] = []
    for row in blocks:
        if len(row) == 3:
            out.append(row[2])
            continue
        base, lines, pos = out[row[2]], [], 0
        for start, end, *new in row[3]:
            lines += base[pos:start] + new
            pos = end
        out.append(lines + base[pos:])
    return out


def expanded(config: list[Any], data: dict[str, Any]) -> list[Any]:
    """A configuration of the picker ``data`` as the page reads it: ``[choices, features,
    feature labels, blockset, verdict, json name, (cu129 lines, cu129 document)]`` (the
    data stores the two feature lists once, as ``featuresets``, and the cu129 lines once,
    as ``cudasets``; the configuration their indexes)."""
    cuda = [data["cudasets"][config[5]], config[6]] if len(config) > 5 else []
    return [config[0], *data["featuresets"][config[1]], *config[2:5], *cuda]


def _size(o: Offered) -> str:
    r, c = o.rendered, o.rendered.config
    if c.pd_nodes:
        text = " · ".join(f"{role} ×{n}" for role, n in c.pd_nodes)
    else:
        count = r.node_count if isinstance(r.node_count, int) else c.nodes
        text = f"{count} node{'s' if count != 1 else ''}"
    if c.kv_offload:
        text += f" · serving {c.strategy}"
    if c.kv_instances:
        text += f" · {c.kv_instances} kv instances"
    return text


def choices(o: Offered) -> dict[str, str]:
    """The value of each select of :data:`CHOICES` for one configuration."""
    c = o.rendered.config
    strategy = c.key + (f" + KV offload {c.kv_option}" if c.kv_option else "")
    return {"hardware": c.hardware, "variant": c.variant, "strategy": strategy,
            "size": _size(o),
            "modes": ", ".join(f"{f}: {m}" for f, m in c.feature_modes) or "as the site picks",
            "task": c.omni_task or "none"}


def json_name(config: Configuration) -> str:
    """The name of a configuration's JSON (and its key in the page's URL): a digest of
    the configuration."""
    text = json.dumps(config.as_json(), sort_keys=True, separators=(",", ":"), default=list)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20] + ".json"


def _finding_rows(record: dict[str, Any]) -> list[list[Any]]:
    return [[f["severity"], f["rule"], f["message"], f.get("line") or 0]
            for f in record["validation"]["findings"]]


def _cuda_lines(cu130: list[list[Any]], cu129: Sequence[Block], strings: _Table,
                block_table: _Blocks) -> list[int]:
    """What the cu129 build changes in a configuration's blocks (``cu130``: its block rows),
    as flat triples: block position, line position and the line's string index (line
    position -1: the whole block, by block index, where the line count differs)."""
    out: list[int] = []
    for n, (row, block) in enumerate(zip(cu130, cu129, strict=True)):
        lines = [strings.add(line) for text in block.lines for line in text.split("\n")]
        if len(lines) != len(row[2]):
            out += [n, -1, block_table.add([strings.add(block.title), int(block.copyable),
                                            lines])]
            continue
        out += [x for m, (was, now) in enumerate(zip(row[2], lines, strict=True))
                if was != now for x in (n, m, now)]
    return out


def picker(record: dict[str, Any], data: Any, offered: Sequence[Offered],
           landing: Configuration | None, cu129: Mapping[int, Rendered] | None = None
           ) -> Picker:
    """The picker of ``record`` whose recipe (parsed ``data``) offers ``offered``;
    ``landing`` is the configuration the site's page opens with; ``cu129`` the cu129
    renderings of the configurations whose image the reader may pick the CUDA build of
    (by index in ``offered``): such a configuration's row ends with what that build
    changes in its lines (:func:`_cuda_lines`) and the place of its cu129 JSON among the
    documents after the configurations' own."""
    cu129 = cu129 or {}
    strings, block_table, verdict_table = _Table(), _Blocks(), _Table()
    blocksets, featuresets, cudasets = _Table(), _Table(), _Table()
    findings = record["validation"]["findings"]
    reach = scopes([str(f.get("pointer") or "") for f in findings], data,
                   [o.rendered for o in offered])
    configs: list[list[Any]] = []
    documents, roots, cu129_roots = JsonTable(), list[int](), list[int]()
    seen: set[tuple[Any, ...]] = set()
    default = 0
    for i, o in enumerate(offered):
        picked = choices(o)
        features = sorted(o.rendered.config.features)
        key = (*picked.values(), *features)
        if key in seen:
            continue
        seen.add(key)
        if o.rendered.config == landing:
            default = len(configs)
        rows = [[strings.add(b.title), int(b.copyable),
                 [strings.add(line) for text in b.lines for line in text.split("\n")]]
                for b in blocks(o.rendered)]
        block_ids = [block_table.add(row) for row in rows]
        applying = [n for n, scope in enumerate(reach) if scope is not None and i in scope]
        name = json_name(o.rendered.config)
        roots.append(documents.add([rendering_json(o.rendered, [], Shared)]))
        configs.append([[strings.add(picked[n]) for n, _ in CHOICES],
                        featuresets.add([[strings.add(f) for f in features],
                                         [strings.add(label) for label in o.feature_labels]]),
                        blocksets.add(block_ids), verdict_table.add(applying), name])
        if i in cu129:
            configs[-1] += [cudasets.add(_cuda_lines(rows, blocks(cu129[i]), strings,
                                                     block_table)), len(cu129_roots)]
            cu129_roots.append(documents.add([rendering_json(cu129[i], [], Shared)]))
    floors = {str(o["variant"]): str(o.get("minimum_runtime_version") or "")
              for o in record.get("deployment_options") or []}
    return Picker(data={
        "choices": [[n, label] for n, label in CHOICES], "strings": strings.items,
        "blocks": block_table.items, "blocksets": blocksets.items,
        "featuresets": featuresets.items, "cudasets": cudasets.items,
        "verdicts": verdict_table.items,
        "findings": _finding_rows(record), "configs": configs, "floors": floors,
        "whole": [n for n, scope in enumerate(reach) if scope is None],
        "file": str(record["source"]["document_path"]).rsplit("/", 1)[-1],
        "default": default}, json=documents.data(roots + cu129_roots), default=default)
