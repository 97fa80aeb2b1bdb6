"""Typed, digest-verified queries over the vendored vLLM CLI snapshots.

The snapshots (``snapshots/vllm-cli/<version>.json``, one per vLLM release, pinned by
``snapshots/vllm-cli/index.json``) are produced by :mod:`validator.vllm_cli.extract`,
which builds each release's *own* ``vllm serve`` argparse parser from its published
source.  This module never touches the network and never imports vLLM.

Example::

    reg = load_registry("0.11.0")
    reg.lookup("-tp")  # CliOption(strings=('--tensor-parallel-size', '-tp'), ...)
    reg.lookup("--tensor_parallel_size=2")  # same option (FlexibleArgumentParser spelling)
    first_version_with(lambda r: r.lookup("--linear-backend") is not None)
"""

from __future__ import annotations

import bisect
import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from validator.errors import RecipeCheckError
from validator.paths import SNAPSHOTS_DIR
from validator.state_json import parse_json

#: The vendored vLLM CLI registries (the project's ``snapshots/vllm-cli``; a plugin's are in
#: ``<that folder>/<PyPI name>``). A run reads the folder its settings name, see
#: :class:`validator.vllm_cli.data_source.CliRegistries`.
DEFAULT_REGISTRY_DIR = SNAPSHOTS_DIR / "vllm-cli"
#: Name of the digest-pin file inside a registry folder: a flat JSON object
#: ``{"0.11.0": "<sha256 hex of 0.11.0.json>", ...}``.
INDEX_NAME = "index.json"
#: Snapshot document schema understood by this module.
SUPPORTED_SCHEMA = 1


class RegistryError(RecipeCheckError):
    """A snapshot or its index is missing, unreadable, malformed or fails its digest pin.

    The message always names the file concerned and, for digest failures, both the
    pinned and the actual sha256.
    """


@dataclass(frozen=True)
class CliOption:
    """One argparse action of ``vllm serve`` in one release.

    ``strings``: every option string of the action in parser order, e.g.
    ``("--tensor-parallel-size", "-tp")`` or ``("--enable-prefix-caching",
    "--no-enable-prefix-caching")`` (positionals have none).
    ``dest``: the argparse destination (namespace attribute).
    ``takes_value``: ``False`` for flags (``nargs == 0``: store_true, Boolean flags).
    ``nargs``: argparse ``nargs`` as a string (``"?"``, ``"+"``, ``"0"``…) or ``None``.
    ``choices``: allowed values as strings, ``None`` when unrestricted.
    ``is_json``: the value is parsed as JSON (``--speculative-config``, ``--hf-overrides``).
    ``negatable``: the action has a negative spelling (``--no-x`` of
    ``BooleanOptionalAction``, or an ``--enable-x``/``--disable-x`` pair).
    ``deprecated``: argparse ``deprecated`` or the help text says the option is deprecated.
    ``help``: first sentence of the help text, at most 200 characters.
    ``default``: ``repr`` of the default (``None`` when the default is ``None``).
    ``hidden``: help is ``argparse.SUPPRESS`` (accepted but undocumented alias).
    ``json_takes_string``: for a JSON-valued option, whether its ``type`` also returns a
    plain (non-JSON) string unchanged (vLLM's ``union_dict_and_str``); ``False`` for a
    ``json.loads``/typed-config parser; ``None`` when not recorded (older snapshots) or
    not JSON-valued.
    ``parses_json``: the option's ``type`` decodes JSON (takes ``{}``, refuses a trailing
    comma), including custom types of old releases that ``is_json`` misses
    (``--compilation-config`` of 0.8-0.9); ``None`` when not recorded.
    """

    strings: tuple[str, ...]
    dest: str
    takes_value: bool
    nargs: str | None
    choices: tuple[str, ...] | None
    is_json: bool
    negatable: bool
    deprecated: bool
    help: str
    default: str | None = None
    hidden: bool = False
    json_takes_string: bool | None = None
    parses_json: bool | None = None

    @property
    def long(self) -> str | None:
        """The first ``--`` spelling, or ``None`` for a positional."""
        return next((s for s in self.strings if s.startswith("--")), None)


@dataclass(frozen=True)
class PluginInfo:
    """The platform plugin a registry was built for (see :mod:`validator.vllm_cli.plugins`).

    ``name``: PyPI project (``"vllm-ascend"``); ``display``: ``"vLLM-Ascend"``;
    ``version``: the plugin release; ``vllm_version``: the vLLM release it was built on;
    ``env_vars``: the environment variables the plugin itself reads;
    ``additional_config_keys``: top-level ``--additional-config`` keys it reads.
    ``additional_config_strict``: the release types the whole object and refuses keys it
    does not know (vllm-ascend's ``AscendConfig`` from 0.27).
    """

    name: str
    display: str
    version: str
    vllm_version: str
    env_vars: frozenset[str]
    additional_config_keys: frozenset[str]
    additional_config_strict: bool = False


@dataclass(frozen=True)
class CliRegistry:
    """What one vLLM release's ``vllm serve`` accepts.

    ``serve_available`` is ``False`` for releases without ``vllm serve`` (<= 0.5.1):
    the options are then those of ``python -m vllm.entrypoints.openai.api_server``.
    ``provenance``: ``artifact`` (file name on PyPI), ``sha256`` (of that artifact),
    ``url``, ``kind`` (sdist/wheel), ``method``, ``python``.
    ``sha256``: hex digest of the snapshot JSON file itself (as pinned in the index).
    ``normalisation``: how the release's parser rewrites ``--opt_name`` spellings —
    ``"none"``, ``"whole-key"`` or ``"before-first-dot"`` (see :meth:`lookup`).
    ``allow_abbrev``: whether unique prefixes of long options are accepted.
    ``short_o``: whether ``-O3``-style attached values of ``-O`` are rewritten.
    ``plugin``: for a platform plugin's registry, which plugin release (``version`` is
    then that release's), else ``None``.
    """

    version: str
    serve_available: bool
    provenance: Mapping[str, str]
    sha256: str
    options: tuple[CliOption, ...]
    json_flags: frozenset[str]
    dotted_keys: bool
    tool_call_parsers: frozenset[str]
    reasoning_parsers: frozenset[str]
    kv_cache_dtypes: frozenset[str]
    env_vars: frozenset[str]
    allow_abbrev: bool
    normalisation: str
    short_o: bool
    plugin: PluginInfo | None = None
    _by_string: Mapping[str, CliOption] = field(repr=False, compare=False, default_factory=dict)
    key_readings: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    """How this release's parser reads each option token met so far (the memo of
    :func:`validator.vllm_cli.argv.read_key`: a function of the token and of this
    registry's own tables, which never change)."""

    # ------------------------------------------------------------------ queries

    def normalise(self, option: str) -> str:
        """Rewrite an option *key* the way this release's parser does before argparse.

        Mirrors ``FlexibleArgumentParser.parse_args`` of the release
        (``vllm/utils.py``, later ``vllm/utils/argparse_utils.py``):

        * ``"none"`` (plain ``argparse`` in <= 0.4.x): unchanged;
        * ``"whole-key"``: for ``--key[=value]`` every ``_`` of ``key`` becomes ``-``;
        * ``"before-first-dot"``: only the text between ``--`` and the first ``.`` is
          rewritten (``re.compile(r"(?<=--)[^\\.]*")``), so JSON sub-keys such as
          ``--speculative_config.num_speculative_tokens`` keep their underscores.

        Only the part before a ``=`` is returned (the value is dropped).
        """
        key = option.split("=", 1)[0] if option.startswith("-") else option
        if not key.startswith("--") or self.normalisation == "none":
            return key
        body = key[2:]
        if self.normalisation == "before-first-dot":
            head, dot, tail = body.partition(".")
            return "--" + head.replace("_", "-") + dot + tail
        return "--" + body.replace("_", "-")

    def lookup(self, option: str) -> CliOption | None:
        """The option an argv token selects, or ``None`` if this release rejects it.

        ``option`` is an argv token: ``--flag``, ``--flag=value``, a short form
        (``-tp``), a negative form (``--no-enable-prefix-caching``), an underscore
        spelling (``--tensor_parallel_size``, rewritten per :meth:`normalise`), a dotted
        JSON sub-key (``--speculative-config.method``, only when :attr:`dotted_keys`;
        returns the JSON option), or ``-O3`` when :attr:`short_o`.  Abbreviated
        prefixes are *not* resolved here: see :meth:`abbreviations`.
        """
        if option in self._by_string:
            return self._by_string[option]
        key = self.normalise(option)
        if key in self._by_string:
            return self._by_string[key]
        if key.startswith("--") and "." in key and self.dotted_keys:
            base = self._by_string.get(key.split(".", 1)[0])
            if base is not None and base.is_json:
                return base
        if self.short_o and option.startswith("-O") and not option.startswith("--"):
            return self._by_string.get("-O") or self._by_string.get("--optimization-level")
        return self._hidden_negative(key)

    def _hidden_negative(self, key: str) -> CliOption | None:
        """The ``EnableDisableAction`` a hidden alias such as ``--no-enable-prefix-caching``
        belongs to.

        vLLM's ``EnableDisableAction`` (``vllm/utils/argparse_utils.py``, recent releases)
        pairs ``--enable-x`` with ``--disable-x`` and hides the ``--no-enable-x`` form that
        ``BooleanOptionalAction`` adds: it rewrites ``option_strings`` to the visible pair,
        but the parser keeps every string registered, so argparse still accepts the
        alias although the vendored option table (built from ``option_strings``) lacks it.
        """
        if not key.startswith("--no-"):
            return None
        positive = "--" + key[len("--no-"):]
        spec = self._by_string.get(positive)
        if spec is None or spec.takes_value or not spec.negatable:
            return None
        for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
            if positive.startswith(prefix) and inverse + positive[len(prefix):] in spec.strings:
                return spec
        return None

    def abbreviations(self, prefix: str) -> list[str]:
        """Long option strings that start with ``prefix`` (after :meth:`normalise`).

        Models argparse's ``allow_abbrev`` matching (``ArgumentParser._get_option_tuples``
        of the Python running vLLM): a ``--prefix`` is accepted when exactly one
        candidate matches (or it is itself an option).  Returns ``[]`` when this
        release's parser has abbreviations disabled or ``prefix`` is not a ``--`` token.
        Sorted.
        """
        if not self.allow_abbrev:
            return []
        key = self.normalise(prefix)
        if not key.startswith("--") or len(key) <= 2:
            return []
        longs = self.long_options
        start = bisect.bisect_left(longs, key)  # sorted: the matches are one contiguous run
        end = start
        while end < len(longs) and longs[end].startswith(key):
            end += 1
        return list(longs[start:end])

    @functools.cached_property
    def long_options(self) -> tuple[str, ...]:
        """Every ``--`` option string, sorted (computed once per registry)."""
        return tuple(sorted(s for s in self._by_string if s.startswith("--")))

    def reads_env(self, name: str) -> bool:
        """Whether the release reads environment variable ``name``: listed in
        :attr:`env_vars`, or under a ``PREFIX*`` entry there (a plugin's pydantic-settings
        model reads every ``PREFIX…`` name)."""
        return name in self.env_vars or name.startswith(self._env_prefixes)

    @functools.cached_property
    def _env_prefixes(self) -> tuple[str, ...]:
        """The ``PREFIX`` of each ``PREFIX*`` entry of :attr:`env_vars` (computed once)."""
        return tuple(p[:-1] for p in self.env_vars if p.endswith("*"))

    def has(self, option: str) -> bool:
        """``lookup(option) is not None``."""
        return self.lookup(option) is not None

    @property
    def option_strings(self) -> frozenset[str]:
        """Every option string the parser defines (long, short, negative forms)."""
        return frozenset(self._by_string)


# ---------------------------------------------------------------------- loading
# The process-wide caches below are keyed on a file's path, modification time and size (and
# its pinned digest): file-content caches, shared safely by every data source that reads
# the same file. What a run derives from the registries is held by its data source
# (:class:`validator.vllm_cli.data_source.CliRegistries`).


def _resolve_dir(folder: Path | None) -> Path:
    return _vendored_dir() if folder is None else folder.resolve()


@functools.cache
def _vendored_dir() -> Path:
    """:data:`DEFAULT_REGISTRY_DIR`, resolved once per process."""
    return DEFAULT_REGISTRY_DIR.resolve()


def _stat_key(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read ({exc.strerror})") from exc
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _read_index(path: Path, _stat: tuple[int, int]) -> Mapping[str, str]:
    try:
        versions = parse_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise RegistryError(f"{path}: not a vllm-cli snapshot index ({exc})") from exc
    if not isinstance(versions, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in versions.items()
    ):
        raise RegistryError(f"{path}: must be a JSON object mapping version -> sha256 hex")
    return dict(versions)


def _index(folder: Path) -> Mapping[str, str]:
    path = folder / INDEX_NAME
    return _read_index(path, _stat_key(path))


def pinned(folder: Path | None = None) -> Mapping[str, str]:
    """``<folder>/index.json``: version -> the sha256 pinned for its file."""
    return _index(_resolve_dir(folder))


def shipped_family(folder: Path | None = None) -> str | None:
    """The :mod:`validator.vllm_cli.compact` family of ``folder`` (``""``: vLLM's own), or
    ``None`` when it is not a vendored folder (its releases are loaded from their files)."""
    d = _resolve_dir(folder)
    if not d.is_relative_to(_vendored_dir()):
        return None
    family = d.relative_to(_vendored_dir()).as_posix()
    return "" if family == "." else family


def available_versions(folder: Path | None = None) -> list[Version]:
    """Versions pinned in ``<folder>/index.json``, ascending.

    Raises :class:`RegistryError` if the index is missing or malformed.
    """
    return sorted(Version(v) for v in _index(_resolve_dir(folder)))


def _canonical(version: str | Version) -> str:
    try:
        return str(Version(str(version)))
    except InvalidVersion as exc:
        raise RegistryError(f"not a version: {version!r}") from exc


def load_registry(version: str | Version, folder: Path | None = None) -> CliRegistry:
    """Load and digest-verify the snapshot of ``version`` (e.g. ``"0.8.5.post1"``).

    The file ``<folder>/<version>.json`` must hash (sha256 of its bytes) to the
    value pinned for that version in ``index.json``.  Results are cached per process
    (keyed by path, modification time and size).

    Raises :class:`RegistryError` when the version is not pinned, the file is missing,
    its digest differs from the pin, or its content is malformed.
    """
    d = _resolve_dir(folder)
    v = _canonical(version)
    pins = _index(d)
    if v not in pins:
        known = ", ".join(str(x) for x in sorted(Version(k) for k in pins))
        raise RegistryError(f"vllm {v}: no snapshot pinned in {d / INDEX_NAME} (have: {known})")
    if d.is_relative_to(_vendored_dir()):  # vendored: from the shipped compact copy
        reg = _from_compact(d.relative_to(_vendored_dir()).as_posix(), v, pins[v])
        if reg is not None:
            return reg
    path = d / f"{v}.json"
    return _load_file(path, pins[v], _stat_key(path))


@functools.lru_cache(maxsize=512)
def _from_compact(family: str, version: str, pin: str) -> CliRegistry | None:
    """The registry of ``version`` of the vendored folder ``family`` (``"."``: vLLM's own)
    built from :mod:`validator.vllm_cli.compact`'s shipped data (the same fields as from
    its file), or ``None`` when that data lacks it or was derived from another file than
    the one pinned (``pin``)."""
    from validator.vllm_cli.compact import release_doc

    found = release_doc("" if family == "." else family, version, pin)
    if found is None:
        return None
    doc, table, made = found
    for i in doc["options"]:
        if made[i] is None:
            made[i] = _option(table[i])
    try:
        return _from_doc(doc, pin, [made[i] for i in doc["options"]])
    except (ValueError, KeyError, TypeError):
        return None


@functools.lru_cache(maxsize=512)
def _load_file(path: Path, pinned: str, _stat: tuple[int, int]) -> CliRegistry:
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != pinned:
        raise RegistryError(
            f"{path}: sha256 {actual} does not match the pin {pinned} in "
            f"{path.parent / INDEX_NAME}; the snapshot was modified — regenerate it with "
            "scripts/refresh_vllm_cli.py"
        )
    try:
        doc = parse_json(data)
        return _from_doc(doc, actual)
    except (ValueError, KeyError, TypeError) as exc:
        raise RegistryError(f"{path}: malformed snapshot ({type(exc).__name__}: {exc})") from exc


def _names(block: Any, key: str) -> frozenset[str]:
    """``block[key]`` as a set of names; a frozenset (as the compact data shares them) is
    kept as it is."""
    value = block[key]
    return value if type(value) is frozenset else frozenset(str(x) for x in value)


def _option(o: dict[str, Any]) -> CliOption:
    ch = o["choices"]
    return CliOption(
        strings=tuple(o["strings"]),
        dest=str(o["dest"]),
        takes_value=bool(o["takes_value"]),
        nargs=o["nargs"],
        choices=None if ch is None else tuple(str(c) for c in ch),
        is_json=bool(o["is_json"]),
        negatable=bool(o["negatable"]),
        deprecated=bool(o["deprecated"]),
        help=str(o["help"]),
        default=o["default"],
        hidden=bool(o["hidden"]),
        json_takes_string=o.get("json_takes_string"),
        parses_json=o.get("parses_json"),
    )


def _from_doc(doc: dict[str, Any], sha256: str,
              made: list[CliOption] | None = None) -> CliRegistry:
    """The registry of a snapshot document; ``made``: its options, already built."""
    if doc.get("schema") != SUPPORTED_SCHEMA:
        raise ValueError(f"unsupported schema {doc.get('schema')!r}")
    options = made if made is not None else [_option(o) for o in doc["options"]]
    by_string: dict[str, CliOption] = {}
    for opt in options:
        for s in opt.strings:
            by_string.setdefault(s, opt)
    parser = doc["parser"]
    block = doc.get("plugin")
    plugin = None if block is None else PluginInfo(
        name=str(block["name"]), display=str(block["display"]), version=str(block["version"]),
        vllm_version=str(block["vllm_version"]), env_vars=frozenset(block["env_vars"]),
        additional_config_keys=frozenset(block["additional_config_keys"]),
        additional_config_strict=bool(block.get("additional_config_strict", False)))
    return CliRegistry(
        version=str(doc["version"]),
        serve_available=bool(doc["serve_available"]),
        provenance={str(k): str(v) for k, v in doc["provenance"].items()},
        sha256=sha256,
        options=tuple(options),
        json_flags=_names(doc, "json_flags"),
        dotted_keys=bool(doc["dotted_keys"]),
        tool_call_parsers=_names(doc["tool_call_parsers"], "names"),
        reasoning_parsers=_names(doc["reasoning_parsers"], "names"),
        kv_cache_dtypes=_names(doc["kv_cache_dtypes"], "values"),
        env_vars=_names(doc["env_vars"], "names"),
        allow_abbrev=bool(parser["allow_abbrev"]),
        normalisation=str(parser["normalisation"]),
        short_o=bool(parser["short_O"]),
        plugin=plugin,
        _by_string=by_string,
    )


# ---------------------------------------------------------------------- queries


def all_registries(folder: Path | None = None) -> list[CliRegistry]:
    """Every vendored registry, ascending by version (cached; see :func:`load_registry`)."""
    return [load_registry(v, folder) for v in available_versions(folder)]


def first_version_with(
    predicate: Callable[[CliRegistry], bool], folder: Path | None = None
) -> str | None:
    """The lowest vendored version whose registry satisfies ``predicate``, else ``None``.

    Example: ``first_version_with(lambda r: "glm47" in r.tool_call_parsers)``.
    Raises :class:`RegistryError` if any snapshot visited fails to load.
    """
    for reg in all_registries(folder):
        if predicate(reg):
            return reg.version
    return None


def nearest(version: str | Version, folder: Path | None = None) -> CliRegistry:
    """The registry of the highest vendored version ``<= version``.

    Used for versions that are not vendored (a dev build, a release newer than the
    snapshots).  Raises :class:`RegistryError` if ``version`` is below every vendored one.
    """
    want = Version(_canonical(version))
    below = [v for v in available_versions(folder) if v <= want]
    if not below:
        raise RegistryError(f"no vendored vllm CLI snapshot at or below {want}")
    return load_registry(below[-1], folder)
