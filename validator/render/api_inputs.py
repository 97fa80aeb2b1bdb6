"""The inputs of the site's static API build, read from one recipes tree.

The site's build (``scripts/build-recipes-api.mjs``) reads ``taxonomy.yaml``,
``platforms.yaml`` (optional), ``strategies/*.yaml``, ``kv_store/*.yaml``,
``quickstart/*.yaml`` (optional) and every ``models/**/*.yaml|yml`` with js-yaml, then turns
every date js-yaml parsed into a ``YYYY-MM-DD`` string. This module gives the same data:
:func:`validator.load.load_yaml` already resolves scalars the way js-yaml does; on top of it
we put mapping keys in JavaScript property order, make integral floats integers (JavaScript
has one number type, so ``1.0`` is written ``1``) and convert the plain timestamp scalars
to the date JavaScript's ``toISOString`` gives them.

Files are visited in the build's order: its directory walk lists each folder sorted by
name (byte order) and descends into sub-folders where they sort, which is the order of the
paths' component tuples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from validator.errors import RecipeCheckError
from validator.findings import Severity
from validator.load import MERGE_TAG, LoadedDocument, load_yaml, resolve_plain
from validator.load.scalars import js_timestamp_iso
from validator.paths import undecodable_name
from validator.render.jsval import keys as js_keys
from validator.render.links import link_problem
from validator.source.tree import LocalTree, RecipeTree, SourceError
from validator.sourcemap import SourceMap, join_pointer


class ApiBuildError(RecipeCheckError):
    """The site's build would stop here (it throws and writes no complete API).

    Attributes:
        path: repository-relative file the problem is in (``""`` when it is the tree).
        line: 1-based line in ``path`` when known, else ``None``.
    """

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if path and line else path
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.line = line
        self.message = message

    def __reduce__(self) -> tuple[type[ApiBuildError], tuple[str, str, int | None]]:
        # raised in a worker process, it is pickled back to the parent
        return (ApiBuildError, (self.path, self.message, self.line))


# js-yaml's timestamp tag (the YAML 1.1 timestamp, https://yaml.org/type/timestamp.html)
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


def js_date_text(text: str) -> str | None:
    """The ``YYYY-MM-DD`` the site writes for a plain YAML timestamp ``text`` (the date
    part of the ``Date`` js-yaml builds, :func:`validator.load.scalars.js_timestamp_iso`),
    or ``None`` when ``text`` is not one."""
    iso = js_timestamp_iso(text)
    return None if iso is None else iso[:10]


def _key_text(node: yaml.Node) -> str | None:
    """A mapping key as the loader names it (plain scalars resolved, then ``String()``)."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    value = node.value if node.style else resolve_plain(node.value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _mapping_items(node: yaml.MappingNode) -> dict[str, yaml.Node]:
    """Key -> value node of a mapping, ``<<`` merges applied (explicit keys win, then the
    first merged mapping)."""
    merged: dict[str, yaml.Node] = {}
    explicit: dict[str, yaml.Node] = {}
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag == MERGE_TAG:
            sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
            for source in sources:
                if isinstance(source, yaml.MappingNode):
                    for k, v in _mapping_items(source).items():
                        merged.setdefault(k, v)
        elif (text := _key_text(key)) is not None:
            explicit[text] = value
    return {**merged, **explicit}


def _timestamp_pointers(node: yaml.Node, pointer: str, out: set[str]) -> None:
    """JSON Pointers of the plain scalars js-yaml reads as timestamps."""
    if isinstance(node, yaml.ScalarNode):
        if not node.style and node.tag == _TIMESTAMP_TAG:
            out.add(pointer)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _timestamp_pointers(item, f"{pointer}/{i}", out)
    elif isinstance(node, yaml.MappingNode):
        for key, value in _mapping_items(node).items():
            _timestamp_pointers(value, join_pointer(pointer, key), out)


def _plain_timestamps(text: str) -> set[str]:
    """Pointers of the values of ``text`` that js-yaml reads as timestamps."""
    out: set[str] = set()
    for node in yaml.compose_all(text, Loader=yaml.CSafeLoader):
        _timestamp_pointers(node, "", out)
    return out


def _may_hold_dates(value: Any) -> bool:
    if isinstance(value, str):
        converted = js_date_text(value) if value[:1].isdigit() else None
        return converted is not None and converted != value
    if isinstance(value, dict):
        return any(_may_hold_dates(v) for v in value.values())
    if isinstance(value, list):
        return any(_may_hold_dates(v) for v in value)
    return False


def js_data(value: Any, dates: frozenset[str] = frozenset(), pointer: str = "") -> Any:
    """``value`` as the site's build holds it: JS key order, integral floats as integers,
    the values at the pointers ``dates`` (plain timestamps of the source) as their
    ``YYYY-MM-DD``."""
    if isinstance(value, dict):
        if dates:
            return {k: js_data(value[k], dates, join_pointer(pointer, k))
                    for k in js_keys(value)}
        return {k: js_data(value[k]) for k in js_keys(value)}
    if isinstance(value, list):
        if dates:
            return [js_data(v, dates, f"{pointer}/{i}") for i, v in enumerate(value)]
        return [js_data(v) for v in value]
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return int(value)
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53:
        try:  # a JavaScript number: large integers lose their low digits ...
            return float(value)
        except OverflowError:  # ... and one past the largest double is Infinity (null)
            return math.inf if value > 0 else -math.inf
    if dates and isinstance(value, str) and pointer in dates:
        return js_date_text(value) or value
    return value


def read_yaml(tree: RecipeTree, path: str) -> tuple[Any, SourceMap]:
    """One YAML file of ``tree`` as the site's build holds it, and its source map. A file
    with loader errors js-yaml reads past (a hidden or look-alike character, a timestamp,
    a number JSON cannot hold) is read as the build reads it: ``check`` reports those.

    Raises:
        ApiBuildError: the file is missing or unreadable, js-yaml refuses it
            (:data:`JS_YAML_REFUSES`, a root that is no mapping), or recipe-check cannot
            read it (not UTF-8, over a safety limit), or its file name is not valid UTF-8
            (reported in its ``\\xff`` form, as ``check`` reports it: ``PROV006``).
    """
    escaped = undecodable_name(path)
    if escaped is not None:
        raise ApiBuildError(escaped, "the file name is not valid UTF-8: the site's build, "
                            "which lists file names as text, cannot open it (rename it)")
    try:
        raw = tree.read(path)
    except FileNotFoundError:
        raise ApiBuildError(path, "missing; the site's build cannot run without it") from None
    except SourceError as exc:
        raise ApiBuildError(path, str(exc)) from None
    doc = load_yaml(raw, path)
    refusal = site_refusal(doc)
    if refusal is None:
        return site_data(doc), doc.source_map
    refused = any(f.rule in JS_YAML_REFUSES for f in doc.findings)
    unread = next((f for f in doc.findings if f.severity is Severity.ERROR), None)
    if unread is not None and not refused:
        raise ApiBuildError(path, f"{unread.rule}: {unread.message} (recipe-check cannot "
                            "read this file as the site's build does)", unread.line)
    raise ApiBuildError(path, f"{refusal[0]} (the site's build stops on this file)",
                        refusal[1])


JS_YAML_REFUSES = frozenset({"YAML001", "YAML002", "YAML005", "YAML008", "YAML009"})
"""The loader's findings of what js-yaml refuses to load: YAML that does not parse, a
repeated key, more than one document or a root that is no mapping, a tag on a value it
cannot type or a tag it does not know. A hidden character (``YAML010``), a timestamp
(``YAML011``) or a look-alike character (``YAML013``) it reads."""


def site_refusal(doc: LoadedDocument) -> tuple[str, int | None] | None:
    """Why the recipes site cannot load ``doc`` (js-yaml refuses it,
    :data:`JS_YAML_REFUSES`, or its root is not a mapping) and the line, or ``None``."""
    first = next((f for f in doc.findings if f.rule in JS_YAML_REFUSES), None)
    if first is not None:
        return f"{first.rule}: {first.message}", first.line
    return None if doc.ok else ("the document's root is not a mapping", None)


def site_data(doc: LoadedDocument) -> Any:
    """The data of ``doc`` (a YAML file the loader read) as the site's build holds it
    (:func:`js_data`): every plain scalar js-yaml reads as a timestamp becomes the
    ``YYYY-MM-DD`` of its UTC instant (the build's ``normalizeDates``; ``2024-13-45``
    rolls over to ``2025-02-14``), a quoted one stays text. What ``render --api-out``
    writes, and what ``check`` judges where the build's output depends on a value (a
    quickstart file's ``hardware_profile`` names the file it is written to)."""
    if not _may_hold_dates(doc.data):
        return js_data(doc.data)
    try:
        dates = frozenset(_plain_timestamps(doc.text))
    except yaml.YAMLError:  # the loader read past it; no node to tell plain from quoted
        dates = frozenset()
    return js_data(doc.data, dates)


def _walk_order(path: str) -> tuple[str, ...]:
    return tuple(path.split("/"))


def _direct_yaml(tree: RecipeTree, folder: str, suffixes: tuple[str, ...]) -> list[str]:
    prefix = folder + "/"
    return sorted((p for p in tree.list(folder)
                   if "/" not in p[len(prefix):] and p.endswith(suffixes)), key=_walk_order)


@dataclass
class ApiInputs:
    """The parsed inputs of one build, in the order the build visits them.

    Attributes:
        taxonomy: ``taxonomy.yaml``.
        platforms: ``platforms.yaml``, or ``None`` when the tree has none.
        serving: ``(path, spec)`` of ``strategies/*.yaml``.
        kv_store: ``(path, spec)`` of ``kv_store/*.yaml``.
        quickstart: ``(path, data)`` of ``quickstart/*.yaml``.
        recipe_paths: every ``models/**/*.yaml|yml`` path, in walk order (read lazily by
            the build, which stops at the first bad one as the site's does).
    """

    taxonomy: Any
    platforms: Any
    serving: list[tuple[str, Any]] = field(default_factory=list)
    kv_store: list[tuple[str, Any]] = field(default_factory=list)
    quickstart: list[tuple[str, Any]] = field(default_factory=list)
    recipe_paths: list[str] = field(default_factory=list)


def _platforms(tree: RecipeTree) -> Any:
    """``platforms.yaml`` as the build copies it to ``platforms.json``.

    Raises:
        ApiBuildError: as :func:`read_yaml`, or a platform's ``url``/``script`` is not an
            address :func:`~validator.render.links.link_problem` allows (``REF024``): the
            deploy dialog would link it, so it is not published.
    """
    data, source_map = read_yaml(tree, "platforms.yaml")
    listed = data.get("platforms") if isinstance(data, dict) else None
    for i, entry in enumerate(listed if isinstance(listed, list) else []):
        for key in ("url", "script"):
            url = entry.get(key) if isinstance(entry, dict) else None
            problem = link_problem(url) if isinstance(url, str) else None
            if problem:
                pointer = f"/platforms/{i}/{key}"
                raise ApiBuildError("platforms.yaml", f"REF024: the link {url!r} is not an "
                                    f"https:// address the site may show ({problem}); not "
                                    "published", source_map.position(pointer)[0])
    return data


def _refuse_context_links(tree: RecipeTree, folder: str) -> None:
    """Refuse the build when ``folder`` (``strategies/``, ``kv_store/``) of a local tree
    holds a YAML entry that is a link leaving the root, looping or dangling: the site's
    build reads every file of the folder, and ``check`` reports it (``PROV005``).

    Raises:
        ApiBuildError: the first such link, in name order.
    """
    if not isinstance(tree, LocalTree):
        return
    for path, why in tree.refused_links(folder).items():
        if undecodable_name(path) is None:  # else read_yaml names it (PROV006)
            reason = str(why).removeprefix(f"{path}: ")
            raise ApiBuildError(path, f"PROV005: {reason} (the site's build reads every "
                                "file of the folder)")


def read_inputs(tree: RecipeTree) -> ApiInputs:
    """Read everything but the recipes (see :class:`ApiInputs`).

    Raises:
        ApiBuildError: a file the build needs is missing or invalid.
    """
    taxonomy = read_yaml(tree, "taxonomy.yaml")[0]
    platforms = _platforms(tree) if tree.exists("platforms.yaml") else None
    inputs = ApiInputs(taxonomy, platforms)
    for folder, target in (("strategies", inputs.serving), ("kv_store", inputs.kv_store)):
        _refuse_context_links(tree, folder)
        paths = _direct_yaml(tree, folder, (".yaml",))
        if not paths and not tree.list(folder):
            raise ApiBuildError(f"{folder}/", "no such folder; the site's build reads it")
        target.extend((p, read_yaml(tree, p)[0]) for p in paths)
    inputs.quickstart = [(p, read_yaml(tree, p)[0])
                         for p in _direct_yaml(tree, "quickstart", (".yaml",))]
    inputs.recipe_paths = sorted((p for p in tree.list("models") if p.endswith((".yaml", ".yml"))),
                                 key=_walk_order)
    return inputs
