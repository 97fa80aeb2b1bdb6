"""The ids each recipe of a tree promotes variants to (REF025's claims on the site's API),
read once per recipe content: in the process, and -- when the run has a result cache --
across runs from one entry of the persistent cache, which ``check`` and the history
audit share.

A recipe's *variant ids* are ``(variant key, model_id)`` of each variant whose ``model_id``
holds a ``/`` and is not the recipe's own id (``org/<file stem>``), in the order the
recipe writes them; a recipe that does not load into a mapping has none. They depend on
the recipe's path and bytes only, so they are memoised by ``(path, git blob id of the
bytes)`` (:func:`blob_id`: the id git gives those bytes, so the history audit names a
recipe without reading it, and ``check`` computes it from the bytes it read).

With a store (:func:`attach_store`, done by ``check`` when it caches results;
:class:`ClaimsStore` in the history audit), the ids of every recipe content ever read are
kept in one :class:`~validator.cache.ResultCache` entry (``<cache folder>/claims``): a
label per ``(path, blob id)`` under the digest of the code that reads them
(:func:`~validator.cache.code_digest`, the same for every settings and command), the whole
entry under the cache's MAC, written atomically. An entry that is edited, cut short or
written under another secret or tool is ignored and the ids are computed again; a label
whose value is not a list of ``[key, model_id]`` strings is recomputed. The entry holds at
most :data:`MAX_LABELS` labels: past it, it is rewritten with those of the current run.

Without a store, the first recipes a context checks read only the recipes that may meet
their ids (:func:`variant_ids_near`): only the recipes whose text may hold a path meeting
them have their scalars scanned (libyaml's tokens, no data built), and only those
holding a path that may meet one of the ids are loaded -- checking one file loads no other
recipe.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from validator.analysis.recipe_data import get, items
from validator.cache import FileDigests
from validator.claims_store import FOLDER as FOLDER  # re-exported
from validator.claims_store import FORMAT as FORMAT
from validator.claims_store import MAX_LABELS as MAX_LABELS
from validator.claims_store import ClaimsStore as ClaimsStore
from validator.claims_store import VariantIds as VariantIds
from validator.context import Context, UndeclaredRead
from validator.load import DEFAULT_MAX_BYTES, decode_text, load_yaml
from validator.load.lines import LIBYAML_ONLY_BREAKS
from validator.paths import site_hf_id
from validator.render.api_paths import path_key, promoted_id
from validator.render.cache import kept_recent

_STORE = "api_claims:store"
"""The :meth:`Context.memoised` key of the context's store."""

_OF_BYTES: OrderedDict[tuple[str, str], VariantIds] = OrderedDict()
"""Variant ids by recipe path and the git blob id of its bytes: from one revision (or one
``--fix`` round) to the next almost every recipe's bytes are the same."""


def blob_id(raw: bytes) -> str:
    """The id git gives a blob of the bytes ``raw`` (SHA-1 of ``blob <size>\\0`` and the
    bytes, as ``git hash-object`` prints it)."""
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest()


def own_id(path: str) -> str | None:
    """The id the site publishes the recipe at ``path`` under (``org/<file stem>``)."""
    ident = site_hf_id(path)
    return None if ident is None else "/".join(ident)


def variant_ids(data: Any, path: str) -> VariantIds:
    """``(variant key, model_id)`` of each variant of the recipe ``data`` (at ``path``)
    whose id holds a ``/`` and is not the recipe's own."""
    variants = get(data, "variants")
    out = []
    for key, variant, _ in items(variants, "/variants"):
        model_id = promoted_id(get(variant, "model_id"))
        if model_id is not None and model_id != own_id(path):
            out.append((str(key), model_id))
    return out


def _read_ids(raw: bytes, path: str) -> VariantIds:
    """:func:`variant_ids` of the recipe ``raw``: loaded as every recipe is, without the
    hidden-character findings (findings only: the data is the same)."""
    try:
        loaded = load_yaml(raw, path, characters=False)
    except Exception:  # that recipe's own findings say why it cannot be read
        return []
    return variant_ids(loaded.data if loaded.ok else None, path)


def attach_store(ctx: Context, root: Path, digests: FileDigests | None = None) -> None:
    """Keep the variant ids of ``ctx``'s recipes in the index under the cache folder
    ``root`` (keyed on the code digest, its files hashed through ``digests``: the
    run's)."""
    store = ClaimsStore.under(root, digests)
    ctx.memoised(_STORE, lambda: store)


def store_of(ctx: Context) -> ClaimsStore | None:
    """The index attached to ``ctx`` (``None``: none)."""
    found = ctx.memoised(_STORE, lambda: None)
    return found if isinstance(found, ClaimsStore) else None


def _recipe_bytes(ctx: Context, path: str) -> bytes | None:
    try:
        return ctx.tree.read(path)
    except UndeclaredRead:
        raise
    except Exception:  # not in the snapshot store, a link...: its own findings say why
        return None


class _Pending:
    """The index as read at the first use in a context, and the labels it lacks."""

    def __init__(self, store: ClaimsStore | None) -> None:
        self.store = store
        self.index = store.read() if store is not None else {}
        self.new: dict[str, VariantIds] = {}
        self.seen: dict[str, VariantIds] = {}

    def flush(self) -> None:
        """Write the labels the index lacked (and count hits and misses)."""
        if self.store is None:
            return
        self.store.hits += len(self.seen) - len(self.new)
        self.store.misses += len(self.new)
        if self.new:
            self.store.write(self.new, self.seen, len(self.index))
            self.index.update(self.new)
            self.new = {}
        self.seen = {}


def _pending(ctx: Context) -> _Pending:
    return ctx.memoised("api_claims:pending", lambda: _Pending(store_of(ctx)))


def recipe_variant_ids(path: str, raw: bytes, oid: str | None = None) -> VariantIds:
    """:func:`variant_ids` of the recipe ``raw`` at ``path`` (``oid``: its
    :func:`blob_id`, when known), from the process's memo (the one :func:`ids_of_bytes`
    fills) or the recipe: for readers without a context, such as the history audit's
    index of every revision's claims."""
    return kept_recent(_OF_BYTES, (path, oid or blob_id(raw)),
                       lambda: _read_ids(raw, path), 8192)


def ids_of_bytes(ctx: Context, path: str, raw: bytes) -> VariantIds:
    """:func:`variant_ids` of the recipe ``raw`` at ``path``: from the memo, the index of
    ``ctx``'s store, or the recipe (a label the index lacks is written at the next
    :func:`tree_variant_ids`)."""
    oid = blob_id(raw)
    return _ids_of_blob(ctx, path, oid, _pending(ctx).index.get(ClaimsStore.label(path, oid)),
                        lambda: _read_ids(raw, path))


def _ids_of_blob(ctx: Context, path: str, oid: str, cached: VariantIds | None,
                 read: Callable[[], VariantIds]) -> VariantIds:
    """The ids of the recipe at ``path`` whose git blob id is ``oid``: from the memo,
    ``cached`` (the index's), or ``read()``; noted in the pending labels of the index."""
    pending = _pending(ctx)
    label = ClaimsStore.label(path, oid)
    ids = kept_recent(_OF_BYTES, (path, oid), read if cached is None else lambda: cached,
                      8192)
    if pending.store is not None:
        pending.seen[label] = ids
        if cached is None:
            pending.new[label] = ids
    return ids


def names_blobs(ctx: Context) -> bool:
    """Whether ``ctx``'s tree names the git blob id of its files without reading them (a
    commit's tree, :meth:`validator.history.revisions.CommitTree.blob_id`): the ids of its
    recipes already read are then found without reading any recipe."""
    return getattr(ctx.tree, "blob_id", None) is not None


def _known_ids(ctx: Context, path: str) -> VariantIds | None:
    """The ids of the recipe file at ``path`` without reading it, where ``ctx``'s tree
    names its git blob id (:func:`names_blobs`) and the memo or the index holds them;
    else ``None``."""
    named = getattr(ctx.tree, "blob_id", None)
    oid = None if named is None else named(path)
    if oid is None:
        return None
    cached = _pending(ctx).index.get(ClaimsStore.label(path, oid))
    if cached is None and (path, oid) not in _OF_BYTES:
        return None
    return _ids_of_blob(ctx, path, oid, cached, list)


def may_claim(ctx: Context, path: str, raw: bytes) -> bool:
    """Whether REF025 may read the other recipes' ids when it checks ``raw`` at ``path``:
    the recipe has variant ids, or is too large to be read here (a run may allow more)."""
    return len(raw) > DEFAULT_MAX_BYTES or bool(ids_of_bytes(ctx, path, raw))


def tree_variant_ids(ctx: Context, paths: Sequence[str]) -> dict[str, VariantIds]:
    """:func:`variant_ids` of each recipe at ``paths`` of ``ctx``'s tree (none for one
    that cannot be read), from the memo, the index or the recipe."""
    out: dict[str, VariantIds] = {}
    for path in paths:
        known = _known_ids(ctx, path)
        if known is not None:
            out[path] = known
            continue
        raw = _recipe_bytes(ctx, path)
        out[path] = [] if raw is None else ids_of_bytes(ctx, path, raw)
    _pending(ctx).flush()
    return out


Keys = tuple[frozenset[str], frozenset[str]]
"""The :func:`~validator.render.api_paths.path_key` of every scalar of a recipe whose text
holds a ``/``, and each of their prefixes that ends before a ``/``: those of at most
:data:`_LONGEST` characters (a guide's text is a scalar too)."""
_LONGEST = 256
"""Keys longer than this are not kept: ids that long are judged against every recipe
(:func:`_may_overlap`); for shorter ones a longer key cannot be the same, and only its
prefixes up to their length can hold them."""

_NOT_AS_WRITTEN = LIBYAML_ONLY_BREAKS + "\t"
"""Characters after which the loader may build from another text than the file's
(:class:`~validator.load.stand_ins.StandIns`, the tab-indented lines js-yaml skips)."""

_KEYS_OF_BYTES: OrderedDict[tuple[str, bytes], tuple[Keys | None]] = OrderedDict()


def _scalar_keys(raw: bytes) -> Keys | None:
    """:data:`Keys` of the recipe ``raw``, from libyaml's token stream, or ``None`` when
    they may not cover the strings its data holds: it does not decode, has a tag (a
    tagged scalar's value may be another text), a tab or a line break only libyaml reads
    (the loader may build from a rewritten text), or libyaml cannot scan it. Otherwise
    every string of its data is the text of one of its scalar tokens
    (:meth:`validator.load.builder.Builder.scalar`: plain, quoted and block scalars give
    their text, or a number, boolean or null), so a ``model_id`` with a ``/`` has its key
    here."""
    text = decode_text(raw)[0] if len(raw) <= DEFAULT_MAX_BYTES else None
    if text is None or any(ch in text for ch in _NOT_AS_WRITTEN):
        return None
    held: set[str] = set()
    folders: set[str] = set()
    try:
        for token in yaml.scan(text, Loader=yaml.CSafeLoader):
            if isinstance(token, yaml.TagToken):
                return None
            if isinstance(token, yaml.ScalarToken) and "/" in token.value:
                key = path_key(token.value)
                if len(key) <= _LONGEST:
                    held.add(key)
                folders.update(_folders(key[:_LONGEST + 1]))
    except Exception:  # a text libyaml refuses: the loader says why
        return None
    return frozenset(held), frozenset(folders)


def _folders(key: str) -> Iterator[str]:
    """Each prefix of ``key`` that ends before a ``/``."""
    at = key.find("/")
    while at != -1:
        yield key[:at]
        at = key.find("/", at + 1)


def _may_overlap(keys: Keys | None, mine: Sequence[str]) -> bool:
    """Whether a scalar of :data:`Keys` ``keys`` (``None``: unknown) may meet one of the
    path keys ``mine`` (as :func:`~validator.render.api_paths.id_outputs_meet` judges:
    one path, a folder holding the other, or one's ``.json`` file where the other's
    folder goes)."""
    if keys is None or any(len(a) + len(_FILE) >= _LONGEST for a in mine):
        return True
    held, prefixes = keys
    return any(_may_meet(held, prefixes, a) for a in mine)


_FILE = ".json"
"""The suffix of an id's API file (``<id>.json``) beside its folder (``<id>/``)."""


def _may_meet(held: frozenset[str], prefixes: frozenset[str], a: str) -> bool:
    folders = list(_folders(a))
    if a in held or a in prefixes or any(f in held for f in folders):
        return True
    if a + _FILE in held or a + _FILE in prefixes:
        return True
    return any(f.endswith(_FILE) and f[:-len(_FILE)] in held
               for f in [*folders, a])


def _keys_of(path: str, raw: bytes) -> Keys | None:
    """:func:`_scalar_keys` of ``raw``, once per content (the table holds them boxed: an
    unknown one is ``None``)."""
    def scan() -> tuple[Keys | None]:
        return (_scalar_keys(raw),)
    return kept_recent(_KEYS_OF_BYTES, (path, hashlib.sha256(raw).digest()), scan, 8192)[0]


_SEPARATORS = frozenset(chr(i) for i in range(128)) - frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-=<>")
"""ASCII characters NFKC never joins with a neighbour: no character decomposes to one of
them and another (``=``, ``<`` and ``>`` do: ``≠``), so the normal form of a text is that
of its parts between them, each left as it is; case folding keeps them too. The YAML
scanner writes a scalar's text from the file's apart from them: it drops quotes and
indentation, folds line breaks and reads escapes, each one of these characters in the
file (``\\``, a quote, a space) or a character of the same kind in the scalar."""
_TAG = re.compile(r"(?:^|[\s\[{,:\ufeff])!", re.MULTILINE)
"""Where a tag may start (a tagged scalar's value may be another text)."""
_ESCAPE_WRITING = re.compile(r'\\[^0abtnvfre "/\\NLP_\t\r\n ]')
"""A double-quoted escape that may write any character (``\\x41``), or an unknown one."""
_ESCAPED_BREAK = re.compile(r"\\(?:\r\n|\r|\n) *")
"""A double-quoted escaped line break, which joins the text on both sides of it."""
_BREAK_BEFORE_NON_ASCII = re.compile(r"\\(?:\r\n|\r|\n) *[^\x00-\x7f]")
"""An escaped line break (or a ``\\`` ending a line of a block scalar) before a character
that may compose with the one before the break once the two are joined."""


def _plain(text: str) -> bool:
    """Whether ``text`` is one piece wherever a file holds it: not empty, ASCII, and none
    of :data:`_SEPARATORS`."""
    return bool(text) and text.isascii() and _SEPARATORS.isdisjoint(text)


_DOTS = ("../", "..\\", "/..")
"""A ``..`` segment (``x/../org``), which may leave one segment of a path."""
_ENDS = re.escape("".join(sorted(_SEPARATORS)) + ".")


class _Meeting:
    """What the normalised text of a recipe holds when one of its strings has a path key
    that meets ``key`` (as :func:`~validator.render.api_paths.id_outputs_meet` judges:
    one path, a folder holding the other, or one's ``.json`` file where the other's
    folder goes), from ``key``'s first two segments ``org/name``:

    * a key of two segments or more holds ``org`` and ``name`` without ``.json``;
    * a key of one segment is ``org`` (or ``org`` without ``.json``), written in a
      string with a ``/`` whose other segments vanish: ``org/``, ``org/.``, ``./org``,
      or with a ``..`` segment.

    A part that may be split in a file (:func:`_plain`) is not looked for; with no
    second segment, or a one-segment form that may be split, every text may meet."""

    def __init__(self, key: str) -> None:
        segments = key.split("/")
        org = segments[0]
        parts = [p.removesuffix(".json") for p in segments[1::-1]]  # the rarer first
        self.whole = [p for p in parts if _plain(p)]
        alone = [org, *([org.removesuffix(".json")] if org.endswith(".json") else [])]
        self.sure = len(segments) > 1 and all(map(_plain, alone))
        self.alone = [(p, re.compile(rf"{re.escape(p)}(?:/(?:[{_ENDS}]|\Z)|\\/)"))
                      for p in alone]

    def may_meet(self, norm: str, dots: bool) -> bool:
        """Whether the normalised text ``norm`` (``dots``: it holds one of :data:`_DOTS`)
        may hold a string meeting the key."""
        if not self.sure or all(p in norm for p in self.whole):
            return True
        return any(p in norm and (dots or after.search(norm) is not None
                                  or _after_dot_or_slash(norm, f"/{p}"))
                   for p, after in self.alone)


def _after_dot_or_slash(norm: str, text: str) -> bool:
    """Whether ``text`` is in ``norm`` right after a ``.``, ``/`` or ``\\`` (``./org``)."""
    at = norm.find(text, 1)
    while at != -1:
        if norm[at - 1] in "./\\":
            return True
        at = norm.find(text, at + 1)
    return False


def _text_may_meet(raw: bytes, meetings: Sequence[_Meeting]) -> bool:
    """Whether a string of the recipe ``raw`` may have a path key that meets one of
    ``meetings``' keys; ``False`` only when none can: the text, its escaped line breaks
    joined and normalised as :func:`~validator.render.api_paths.path_key` normalises a
    path, holds none of what they look for (:class:`_Meeting`).

    A scalar's value is made of pieces of the text between :data:`_SEPARATORS`, so a
    part that holds none of them lies in one piece, normalised alike; joining at escaped
    line breaks keeps each piece (followed by an ASCII character, which composes with
    none), and makes one of those a double-quoted scalar joins. Unless the loader may
    read another text (:data:`_NOT_AS_WRITTEN`), or the text has a tag, an escape that
    writes a character or a join before a character that is not ASCII: then ``True``."""
    text = decode_text(raw)[0] if len(raw) <= DEFAULT_MAX_BYTES else None
    if text is None or any(ch in text for ch in _NOT_AS_WRITTEN) \
            or ("!" in text and _TAG.search(text)):
        return True
    if "\\" in text:
        if _ESCAPE_WRITING.search(text) or _BREAK_BEFORE_NON_ASCII.search(text):
            return True
        text = _ESCAPED_BREAK.sub("", text)
    norm = text.lower() if text.isascii() else unicodedata.normalize(
        "NFKC", unicodedata.normalize("NFKC", text).casefold())
    dots = any(d in norm for d in _DOTS)
    return any(m.may_meet(norm, dots) for m in meetings)


def variant_ids_near(ctx: Context, ids: Sequence[str], skip: str) -> dict[str, VariantIds]:
    """:func:`variant_ids` of every recipe of ``ctx`` but ``skip`` (sorted by path) that
    may meet one of ``ids`` (as :func:`~validator.render.api_paths.id_outputs_meet`
    judges their path keys); a recipe none of whose scalars can is given none without
    being loaded: its normalised text holds no form of a path meeting them
    (:func:`_text_may_meet`), or else its scalars show it (scanned once per content:
    libyaml's tokens, no data built)."""
    mine = [path_key(i) for i in ids]
    meetings = [_Meeting(a) for a in mine]
    out: dict[str, VariantIds] = {}
    for path in sorted(ctx.recipe_paths - {skip}):
        raw = _recipe_bytes(ctx, path)
        if raw is None:
            out[path] = []
            continue
        near = _text_may_meet(raw, meetings) and _may_overlap(_keys_of(path, raw), mine)
        out[path] = ids_of_bytes(ctx, path, raw) if near else []
    return out


def variant_ids_indexed(ctx: Context, ids: Sequence[str], skip: str) -> dict[str, VariantIds]:
    """:func:`variant_ids_near` judged on the scalars alone: every recipe's
    :data:`Keys` are scanned once per context (:func:`_scalar_keys`), so each recipe of a
    run over many asks with set lookups, and only the recipes whose scalars may meet one
    of ``ids`` are read again and loaded (on corpus ``main``: 2 of 173 for the whole run,
    where reading every recipe's ids loaded all of them a second time)."""
    mine = [path_key(i) for i in ids]
    out: dict[str, VariantIds] = {}
    for path, keys in _tree_keys(ctx).items():
        if path == skip:
            continue
        if keys is _UNREADABLE:
            out[path] = []
            continue
        raw = _recipe_bytes(ctx, path) if _may_overlap(keys, mine) else None
        out[path] = [] if raw is None else ids_of_bytes(ctx, path, raw)
    return out


_UNREADABLE: Keys = (frozenset(), frozenset())
"""The keys of a recipe that cannot be read (its ids: none)."""


def _tree_keys(ctx: Context) -> dict[str, Keys | None]:
    """:func:`_scalar_keys` of every recipe of ``ctx`` (sorted by path; ``_UNREADABLE``
    for one that cannot be read), once per context."""
    def scan() -> dict[str, Keys | None]:
        out: dict[str, Keys | None] = {}
        for path in sorted(ctx.recipe_paths):
            raw = _recipe_bytes(ctx, path)
            out[path] = _UNREADABLE if raw is None else _scalar_keys(raw)
        return out
    return ctx.memoised("api_claims:keys", scan)


def claims_digest(ctx: Context) -> str:
    """Hex SHA-256 of every recipe's variant ids in ``ctx``'s tree (what REF025 reads of
    the other recipes), computed once per context."""
    def compute() -> str:
        h = hashlib.sha256()
        for path, ids in tree_variant_ids_of(ctx).items():
            h.update(f"{path}\0{ids!r}\n".encode("utf-8", "surrogatepass"))
        return h.hexdigest()
    return ctx.memoised("api_claims:digest", compute)


def tree_variant_ids_of(ctx: Context) -> dict[str, VariantIds]:
    """:func:`tree_variant_ids` of every recipe of ``ctx`` (sorted by path), once per
    context."""
    return ctx.memoised("api_claims:tree",
                        lambda: tree_variant_ids(ctx, sorted(ctx.recipe_paths)))
