"""The vendored vLLM CLI registries of one run: a data source object, passed in.

A :class:`CliRegistries` knows where the digest-pinned registries live (``<folder>/
index.json`` and ``<folder>/<version>.json`` for vLLM, ``<folder>/<plugin>/`` for each
vendored platform plugin, see :mod:`validator.vllm_cli.plugins`) and which release list
dates them (``vllm-releases.json`` of the vendored data folder, for ``--as-of``). It
loads each release lazily and keeps what it derived (release lists per window, loaded
registries, version plans) as its own state, so two runs with two data folders never
share a cache. The driver builds one per run from the settings
(:meth:`CliRegistries.from_settings`) and gives it to each context at its construction
(``ctx.cli``), which sees it through its own release :class:`Window` (:meth:`CliRegistries.at`).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

from packaging.version import Version

from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.registry import (
    DEFAULT_REGISTRY_DIR,
    INDEX_NAME,
    CliRegistry,
    available_versions,
    load_registry,
)


class VendoredSettings(Protocol):
    """What :meth:`CliRegistries.from_settings` reads of the run's settings
    (:class:`validator.context.Settings`)."""

    @property
    def vendored_dir(self) -> Path | None:
        """The vendored data folder, ``None`` for the project's."""

    @property
    def as_of(self) -> date | None:
        """``--as-of``: judge with the releases published by then."""

    @property
    def vllm(self) -> str | None:
        """``--vllm VERSION``: check the install range against that release only."""


@dataclass(frozen=True)
class Window:
    """Which vendored releases a run may see.

    ``as_of``: judge with the releases published on or before that date (``--as-of``;
    dates from the vendored, digest-pinned ``snapshots/vllm-releases.json``, never
    today's list); ``None`` = every vendored release. ``vllm``: check the install range
    against that one release only (``--vllm VERSION``).
    """

    as_of: date | None = None
    vllm: str | None = None

    @classmethod
    def of(cls, settings: VendoredSettings) -> Window:
        """The window ``settings`` ask for (``--as-of``, ``--vllm``)."""
        return cls(settings.as_of, settings.vllm)


T = TypeVar("T")

#: The family of vLLM's own CLI.
VLLM = "vllm"

MEMO_SIZE = 1024
"""How many derived values (:meth:`CliRegistries.memoised`) a data source keeps, least
recently used dropped first: a corpus run derives tens of thousands (release plans, first
and last releases of names, suggestions) and would otherwise hold every one until it ends.
Parsed argument lists have their own bounded spaces (:meth:`CliRegistries.bounded`)."""

_ABSENT: Any = object()
"""What :meth:`CliRegistries.bounded` finds for a key its memo does not hold (a value may
be ``None``)."""


class CliRegistries:
    """The vendored CLI registries under ``folder``.

    Args:
        folder: the vLLM registries (``index.json`` + one file per release); a plugin's
            are in ``folder/<PyPI name>``.
        vendored_dir: the vendored data folder whose ``vllm-releases.json`` dates the
            releases for ``as_of`` (default: the project's).
        window: the releases the rules may see (every vendored release by default).
    """

    def __init__(self, folder: Path = DEFAULT_REGISTRY_DIR,
                 vendored_dir: Path | None = None, window: Window | None = None) -> None:
        self.folder = Path(folder)
        self.vendored_dir = vendored_dir
        self.window = window or Window()
        self._versions: dict[tuple[str, date | None], tuple[Version, ...]] = {}
        self._registries: dict[tuple[str, str], CliRegistry] = {}
        self._memo: OrderedDict[Any, Any] = OrderedDict()
        self._bounded: dict[str, dict[Any, Any]] = {}
        self._kept = [1]  # how many times the default sizes the memos keep (keep_more)

    @classmethod
    def from_settings(cls, settings: VendoredSettings) -> CliRegistries:
        """The registries of ``settings.vendored_dir`` (its ``vllm-cli/`` folder), or the
        project's when the settings name no folder, seen through the settings' window."""
        base = settings.vendored_dir
        if base is None:
            return cls(window=Window.of(settings))
        return cls(Path(base) / DEFAULT_REGISTRY_DIR.name, Path(base), Window.of(settings))

    def at(self, window: Window) -> CliRegistries:
        """These registries seen through ``window``: the same loaded files and derived
        values (whose keys name the window where it matters), another window. ``self``
        when the window is the same."""
        if window == self.window:
            return self
        view = CliRegistries(self.folder, self.vendored_dir, window)
        view._versions, view._registries = self._versions, self._registries
        view._memo, view._bounded, view._kept = self._memo, self._bounded, self._kept
        return view

    def keep_more(self, factor: int) -> None:
        """Let the memos of these registries and of every view of them (:meth:`at`) hold
        ``factor`` times their default sizes (:data:`MEMO_SIZE`, the ``limit`` of
        :meth:`bounded`). For a run that meets the same argument lists again long after
        the first time: the history audit renders a recipe blob in the context of each
        revision that holds it, one blob after another, and each pass outgrows the
        defaults, which are sized to bound a check run's peak RSS."""
        self._kept[0] = max(1, factor)

    def __repr__(self) -> str:
        return f"CliRegistries({str(self.folder)!r})"

    def registry_dir(self, family: str = VLLM) -> Path:
        """The registry folder of ``family``."""
        return self.folder if family == VLLM else self.folder / family

    def memoised(self, key: Any, compute: Callable[[], T]) -> T:
        """``compute()`` under ``key`` (a hashable that names what it is and every input
        it depends on besides these registries), kept for the next :data:`MEMO_SIZE`
        distinct keys asked after its last use: a value dropped is computed again, so
        ``compute`` must be deterministic and its value not mutated by the caller."""
        memo = self._memo
        if key in memo:
            memo.move_to_end(key)
            found: T = memo[key]
            return found
        value = memo[key] = compute()
        if len(memo) > MEMO_SIZE * self._kept[0]:
            memo.popitem(last=False)
        return value

    def bounded(self, space: str, key: Any, compute: Callable[[], T], limit: int) -> T:
        """``compute()`` once per data source under ``key`` in the memo ``space``, which
        holds at most ``limit`` entries: past that the oldest quarter is dropped (first
        in, first out), so a run over many argument lists keeps a bounded, recent set.
        ``key`` names every input the value depends on besides these registries."""
        memo = self._bounded.get(space)
        if memo is not None:
            found: T = memo.get(key, _ABSENT)  # one hash of the key, not two
            if found is not _ABSENT:
                return found
        return self.remember(space, key, compute(), limit)

    def space(self, space: str) -> dict[Any, Any]:
        """The memo ``space`` of :meth:`bounded` itself, for a caller that asks it many
        times in a loop: a value found there (``space(name).get(key)``) is what
        :meth:`bounded` would give for ``key``; a value computed goes in with
        :meth:`remember`. Spares the call and the closure per look-up (``judged_items``
        looks up some 86,000 chunks of printed argument lists in a corpus run)."""
        memo = self._bounded.get(space)
        if memo is None:
            memo = self._bounded[space] = {}
        return memo

    def remember(self, space: str, key: Any, value: T, limit: int) -> T:
        """Put ``value``, computed for ``key``, in the memo ``space`` as :meth:`bounded`
        does (past ``limit`` entries the oldest quarter is dropped); returns ``value``."""
        memo = self.space(space)
        limit *= self._kept[0]
        if len(memo) >= limit:
            for old in list(islice(memo, max(1, limit // 4))):
                del memo[old]
        memo[key] = value
        return value

    def _published(self, as_of: date) -> frozenset[str]:
        """vLLM versions published on or before ``as_of`` (vendored release list)."""
        from validator.releases import load_vendored

        def compute() -> frozenset[str]:
            return frozenset(str(r.version) for r in load_vendored(self.vendored_dir).releases
                             if r.uploaded.date() <= as_of)

        return self.memoised(("published", as_of), compute)

    def versions(self, family: str = VLLM, as_of: date | None = None) -> tuple[Version, ...]:
        """Vendored releases of ``family``, ascending; ``()`` when its ``index.json`` is
        absent. With ``as_of``, a vLLM release counts when it was published by then; a
        plugin release when the vLLM it is built on was."""
        key = (family, as_of)
        found = self._versions.get(key)
        if found is None:
            found = self._versions[key] = self._compute_versions(family, as_of)
        return found

    def _compute_versions(self, family: str, as_of: date | None) -> tuple[Version, ...]:
        d = self.registry_dir(family)
        if not (d / INDEX_NAME).is_file():
            return ()
        every = tuple(sorted(Version(str(v)) for v in available_versions(d)))
        if as_of is None:
            return every
        published = self._published(as_of)
        if family == VLLM:
            return tuple(v for v in every if str(v) in published)
        out = []
        for v in every:
            info = self.registry(str(v), family).plugin
            if info is None or str(Version(info.vllm_version)) in published:
                out.append(v)
        return tuple(out)

    def registry(self, version: str, family: str = VLLM) -> CliRegistry:
        """The registry of ``version`` (one of :meth:`versions`) of ``family``.

        Raises:
            validator.vllm_cli.registry.RegistryError: the file is missing or fails its
                digest pin (reported by the checker as an internal error naming the file).
        """
        key = (version, family)
        reg = self._registries.get(key)
        if reg is None:
            reg = self._registries[key] = load_registry(version, self.registry_dir(family))
        return reg

    def shipped_options(self, family: str = VLLM) -> list[dict[str, Any]] | None:
        """The option table of the shipped compact data of ``family``
        (:mod:`validator.vllm_cli.compact`: every distinct option of its releases, as the
        fields of a snapshot's option), when every release of :meth:`versions` in this
        window is built from that data; else ``None`` (a release loaded from its file may
        hold options the table lacks). For a question whose answer is "no release": the
        table tells which options exist at all without a registry built per release."""
        from validator.vllm_cli.compact import release_doc
        from validator.vllm_cli.registry import pinned, shipped_family

        d = self.registry_dir(family)
        shipped = shipped_family(d) if (d / INDEX_NAME).is_file() else None
        versions = self.versions(family, self.window.as_of)
        if shipped is None or not versions:
            return None
        pins = pinned(d)
        found = None
        for v in versions:
            found = release_doc(shipped, str(v), pins.get(str(v), ""))
            if found is None:
                return None
        return found[1] if found is not None else None

    def digest(self) -> str:
        """Hex SHA-256 of every index and registry file under :attr:`folder` (and of the
        release list dating them): changes whenever the registries do."""
        h = hashlib.sha256()
        files = sorted(f for f in self.folder.rglob("*.json") if f.is_file()) \
            if self.folder.is_dir() else []
        releases = (self.vendored_dir or SNAPSHOTS_DIR) / "vllm-releases.json"
        for f in [*files, *([releases] if releases.is_file() else [])]:
            h.update(f.as_posix().encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
        return h.hexdigest()
