"""Which vendored CLI registry a list of ``vllm serve`` arguments is checked against.

A *family* is ``"vllm"`` (vLLM's own CLI, by default ``snapshots/vllm-cli/``) or the PyPI
name of a vendored platform plugin (``"vllm-omni"``, ``"vllm-ascend"``; ``<that
folder>/<name>/``, see :mod:`validator.vllm_cli.plugins`); the registries are those of the
run's data source (:class:`validator.analysis.cli_data.CliRegistries`, from the settings).
:func:`plan_for` turns a recipe's effective minimum vLLM version into a
:class:`VersionPlan`: the registry used for errors (the minimum), the newest release of
the same family (warnings about removals) and a note when the two differ from what the
recipe declares. The ``first_version`` / ``last_version`` look-ups answer "since when"
within one family.
"""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from packaging.version import InvalidVersion, Version

from validator.analysis.cli_data import VLLM as VLLM  # re-exported: the family of vLLM itself
from validator.analysis.cli_data import active
from validator.vllm_cli import argv

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.vllm_cli.registry import CliRegistry

T = TypeVar("T")

#: ``vllm serve`` first shipped in 0.5.2; 0.5.1 and older only had the API server module.
SERVE_FIRST = Version("0.5.2")

#: Options whose value names a registered parser, and the registry set that lists them.
PARSER_SETS: dict[str, str] = {
    "tool_call_parser": "tool_call_parsers",
    "reasoning_parser": "reasoning_parsers",
    "kv_cache_dtype": "kv_cache_dtypes",
}


# --------------------------------------------------------------------------- window


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


_WINDOW: ContextVar[Window | None] = ContextVar("recipe_check_release_window", default=None)
_EVERY = Window()


def window() -> Window:
    """The :class:`Window` of the current run (every vendored release by default)."""
    return _WINDOW.get() or _EVERY


@contextmanager
def release_window(value: Window) -> Iterator[None]:
    """Run the block with ``value`` as the :func:`window` (the checker wraps the rules)."""
    token = _WINDOW.set(value)
    try:
        yield
    finally:
        _WINDOW.reset(token)


def per_document(doc: LoadedDocument, ctx: Context, name: str,
                 compute: Callable[[], T]) -> T:
    """``compute()`` once per document content, context and release :func:`window`: the
    per-document state of a run, held by the context (:meth:`Context.memoised`), not by a
    module global. ``name`` says what it is (``"flag:layers"``, ``"guide:commands"``)."""
    if not doc.sha256:  # a document built by hand, not read: nothing identifies it
        return compute()
    return ctx.memoised(f"{name}:{doc.path}:{doc.sha256}:{window()!r}", compute)


# --------------------------------------------------------------------------- registries
# Each look-up reads the run's data source (:func:`validator.analysis.cli_data.active`, the
# :class:`~validator.analysis.cli_data.CliRegistries` the driver built from the settings);
# what is derived from it is memoised on that object, never in this module.


def product(family: str = VLLM) -> str:
    """How messages name ``family``: ``"vLLM"``, ``"vLLM-Omni"``, ``"vLLM-Ascend"``."""
    from validator.vllm_cli.plugins import PLUGINS

    return "vLLM" if family == VLLM else PLUGINS[family].display


def versions(family: str = VLLM) -> tuple[Version, ...]:
    """Vendored releases of ``family`` inside the run's :func:`window`, ascending; ``()``
    when its ``index.json`` is absent (the checks then have nothing to check against).
    With ``as_of``, a vLLM release counts when it was published by then; a plugin
    release when the vLLM it is built on was."""
    return active().versions(family, window().as_of)


def registry(version: str, family: str = VLLM) -> CliRegistry:
    """The vendored registry of ``version`` (one of :func:`versions`) of ``family``.

    Raises:
        validator.vllm_cli.registry.RegistryError: the snapshot is missing or fails its
            digest pin (reported by the checker as an internal error naming the file).
    """
    return active().registry(version, family)


def newest(family: str = VLLM) -> CliRegistry | None:
    """The newest vendored release's registry of ``family``."""
    vs = versions(family)
    return registry(str(vs[-1]), family) if vs else None


def first_version(kind: str, name: str, family: str = VLLM) -> str | None:
    """First vendored release of ``family`` whose registry has ``name`` as ``kind``.

    ``kind`` is ``"option"`` (an option string), ``"dotted"`` (an option that accepts
    dotted keys), ``"env"``, ``"additional_config"`` (a top-level key a plugin reads) or
    a :data:`PARSER_SETS` / ``choices:<option>`` value set. Memoised on the run's data
    source per window: every rendered configuration asks again of the same names.
    """
    return active().memoised(("first_version", kind, name, family, window()),
                             lambda: _first_release_with(kind, name, family))


def _first_release_with(kind: str, name: str, family: str) -> str | None:
    """The walk behind :func:`first_version` (every vendored release, oldest first)."""
    for v in versions(family):
        if has(registry(str(v), family), kind, name):
            return str(v)
    return None


def last_version(kind: str, name: str, family: str = VLLM) -> str | None:
    """Last vendored release of ``family`` that has ``name`` as ``kind``."""
    def compute() -> str | None:
        for v in reversed(versions(family)):
            if has(registry(str(v), family), kind, name):
                return str(v)
        return None

    return active().memoised(("last_version", kind, name, family, window()), compute)


def first_without(kind: str, name: str, after: str, family: str = VLLM) -> str | None:
    """First vendored release of ``family`` newer than ``after`` that lacks ``name``."""
    for v in versions(family):
        if v > Version(after) and not has(registry(str(v), family), kind, name):
            return str(v)
    return None


def pre_release_removal(kind: str, name: str, after: str,
                        family: str = VLLM) -> tuple[list[str], str | None] | None:
    """When every vendored release of ``family`` newer than ``after`` that lacks ``name``
    is a pre-release (the removal is in no stable release yet): those pre-releases, and
    the newest stable release that has ``name`` (``None`` when none does); else ``None``
    (no release lacks it, or a stable one does)."""
    lacking = [v for v in versions(family)
               if v > Version(after) and not has(registry(str(v), family), kind, name)]
    if not lacking or any(not v.is_prerelease for v in lacking):
        return None
    stable = [v for v in versions(family) if not v.is_prerelease and v <= lacking[-1]
              and has(registry(str(v), family), kind, name)]
    last = stable[-1] if stable else None
    return [str(v) for v in lacking if last is None or v > last], (
        str(last) if last is not None else None)


def required_vllm(release: str, family: str = VLLM) -> str:
    """The ``min_vllm_version`` a recipe needs to get ``release`` of ``family``: the
    release itself for vLLM, the vLLM a plugin release is built on otherwise (vLLM-Omni
    ``0.27.0rc1`` → ``0.27.0``)."""
    if family == VLLM:
        return release
    info = registry(release, family).plugin
    return info.vllm_version if info is not None else release


def has(reg: CliRegistry, kind: str, name: str) -> bool:
    """Whether ``reg`` has ``name`` as ``kind`` (see :func:`first_version`)."""
    if kind == "option":
        return reg.lookup(name) is not None
    if kind == "dotted":
        spec = reg.lookup(name)
        return bool(reg.dotted_keys and spec is not None and argv.json_valued(spec))
    if kind == "env":
        return reg.reads_env(name)
    if kind == "additional_config":
        return reg.plugin is not None and name in reg.plugin.additional_config_keys
    if kind.startswith("choices:"):
        spec = reg.lookup(kind.split(":", 1)[1])
        allowed = allowed_values(reg, spec)
        if allowed is None:  # the option takes any value (unless it is a parser name)
            return spec is not None and spec.takes_value and spec.dest not in PARSER_SETS
        return name in allowed
    return False


def allowed_values(reg: CliRegistry, spec: Any) -> frozenset[str] | None:
    """Values ``spec`` accepts in ``reg``: the parser/dtype sets for those options (vLLM
    validates them after argparse), else argparse ``choices``; ``None`` = any."""
    if spec is None:
        return None
    attr = PARSER_SETS.get(spec.dest)
    if attr is not None:
        names = getattr(reg, attr, None)
        if names:
            return frozenset(names)
    if spec.choices:
        return frozenset(spec.choices)
    return None


def all_options(version: str, family: str = VLLM) -> tuple[str, ...]:
    """Every long option of one registry (for "did you mean" hints)."""
    return registry(version, family).long_options


def option_hint(name: str, version: str, family: str = VLLM) -> str | None:
    """"did you mean" among the long options of ``version`` of ``family``, memoised on
    the run's data source per name and release (each configuration of a recipe asks
    again, and a list can hold more distinct unknown names than :func:`nearest_hint`'s
    own cache)."""
    return active().memoised(("option_hint", name, version, family),
                             lambda: nearest_hint(name, all_options(version, family)))


def dotted_option_hint(name: str, keys: Sequence[str], version: str,
                       family: str = VLLM) -> str | None:
    """"did you mean" for an unknown option written with dotted JSON keys
    (``--cc.pass_config.fuse_allreduce_rms``): only an option that takes JSON accepts
    keys, so the candidates are the strings of those options, short forms included
    (``--cc`` is ``-cc`` with a dash too many), each offered with the keys as written.
    Not the long options at large: ``--grpc`` is as close to ``--cc`` but takes no
    keys."""
    def compute() -> str | None:
        close = close_matches(name, json_option_strings(version, family), n=3, cutoff=0.6)
        suffix = "".join(f".{k}" for k in keys)
        return f"did you mean {', '.join(f'`{c}{suffix}`' for c in close)}?" if close \
            else None
    return active().memoised(("dotted_option_hint", name, tuple(keys), version, family),
                             compute)


def json_option_strings(version: str, family: str = VLLM) -> tuple[str, ...]:
    """Every option string (long and short) of the options of one registry whose value
    is JSON, sorted: the options that accept dotted keys."""
    reg = registry(version, family)
    return tuple(sorted(s for s in reg.option_strings
                        if (spec := reg.lookup(s)) is not None and spec.is_json))


def replacement_hint(name: str, version: str, family: str = VLLM) -> str | None:
    """"did you mean" for a removed option: the long options of ``version`` of ``family``
    at least :data:`REPLACEMENT_CUTOFF` alike (a rename such as ``--disable-log-requests``
    -> ``--enable-log-requests``, 0.88), not the looser typo search of
    :func:`option_hint` (which also offers ``--text-encoder-tp-size`` for
    ``--auxiliary-text-encoder``, 0.61: a flag that shares words, not a replacement)."""
    return active().memoised(("replacement_hint", name, version, family),
                             lambda: _nearest_hint(name, all_options(version, family),
                                                   REPLACEMENT_CUTOFF))


#: Similarity (:func:`difflib.SequenceMatcher.ratio`) from which a flag of a newer release
#: is offered as the replacement of a removed one.
REPLACEMENT_CUTOFF = 0.7


def nearest_hint(name: str, known: Sequence[str]) -> str | None:
    """"did you mean" text from :func:`difflib.get_close_matches` (``None`` if none)."""
    return _nearest_hint(name, tuple(known))


# Pure functions of immutable inputs (strings, tuples of strings): their process-wide
# caches hold no data of a data source.
@lru_cache(maxsize=2048)
def _nearest_hint(name: str, known: tuple[str, ...], cutoff: float = 0.6) -> str | None:
    close = close_matches(name, known, n=3, cutoff=cutoff)
    return f"did you mean {', '.join(f'`{c}`' for c in close)}?" if close else None


@lru_cache(maxsize=256)
def _prepared(known: tuple[str, ...]) -> tuple[str, tuple[tuple[str, int, Sequence[int]], ...]]:
    """The characters of ``known`` and each candidate with its length and its count of
    each of those characters (once per candidate list; as ``bytes``, a ninth of a tuple's
    memory, unless a count exceeds 255)."""
    alphabet = "".join(sorted(set("".join(known))))

    def counts(x: str) -> Sequence[int]:
        found = [x.count(ch) for ch in alphabet]
        return bytes(found) if max(found, default=0) < 256 else tuple(found)

    return alphabet, tuple((x, len(x), counts(x)) for x in known)


def close_matches(word: str, known: tuple[str, ...], n: int = 3,
                  cutoff: float = 0.6) -> list[str]:
    """Exactly :func:`difflib.get_close_matches` ``(word, known, n, cutoff)``, faster.

    ``difflib`` computes ``SequenceMatcher.ratio`` for every candidate whose cheap upper
    bounds (``real_quick_ratio``, ``quick_ratio``: the same formulas, here from prepared
    character counts) reach ``cutoff``. Here the candidates are visited by descending
    ``quick_ratio``, and the visit stops once that bound is below the ``n``-th best ratio
    found: no later candidate can enter the ``n`` best (ties are still visited, and the
    result is chosen by ``heapq.nlargest`` of ``(ratio, candidate)`` as in ``difflib``).
    """
    alphabet, prepared = _prepared(known)
    counts, size = tuple(word.count(ch) for ch in alphabet), len(word)
    bounds: list[tuple[float, str]] = []
    for x, length, chars in prepared:
        total = length + size
        if (2.0 * min(length, size) / total if total else 1.0) < cutoff:
            continue  # characters of ``word`` that no candidate has match nothing
        quick = 2.0 * sum(map(min, chars, counts)) / total if total else 1.0
        if quick >= cutoff:
            bounds.append((quick, x))
    bounds.sort(key=lambda b: -b[0])
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    found: list[tuple[float, str]] = []
    for quick, x in bounds:
        if len(found) >= n and quick < heapq.nlargest(n, found)[-1][0]:
            break
        matcher.set_seq1(x)
        ratio = matcher.ratio()
        if ratio >= cutoff:
            found.append((ratio, x))
    return [x for _, x in heapq.nlargest(n, found)]


# --------------------------------------------------------------------------- plans


@dataclass(frozen=True)
class VersionPlan:
    """Which registry a list of arguments is checked against.

    Attributes:
        minimum: registry used for errors (the effective minimum, or the newest vendored
            release for ``nightly``); ``None`` when nothing can be checked.
        newest: the newest vendored release of the family (warnings about removals).
        declared: the minimum as the recipe states it (``"0.19.1"``, ``"nightly"``).
        note: why ``minimum`` is not the declared version, or ``None``.
        predates_serve: the declared minimum has no ``vllm serve`` at all.
        family: ``"vllm"`` or a plugin's PyPI name (:mod:`validator.vllm_cli.plugins`).
        checked: the other vendored releases of the install range (above the minimum, up
            to the newest release an install path pulls), ascending; every token accepted
            at the minimum is checked at each of them too.
        unreleased: an install path of the recipe pulls unreleased code (a nightly wheel
            or image, a source install).
        range_label: how messages name the install range (``"0.12.0–0.33.0"``).
        floor: for a guide command whose section states its own vLLM version, how
            messages name the minimum checked (the words before and after
            :attr:`label`) and what a hint raises (``None``: the recipe's
            ``min_vllm_version``); see :meth:`short_of`.
        launch_day: the minimum is in no vLLM release of the window yet (``nightly``, or
            newer than the newest) and an install path pulls unreleased code (the nightly
            install of ``nightly_required``, a source install, a launch image): a flag,
            parser name, value or environment variable that no vendored release has
            cannot be verified, not proven wrong, so the engine reports none of them
            (:attr:`note` says so once per recipe); the rest is still checked at
            :attr:`minimum`, the newest release. See :func:`launch_day`.
    """

    minimum: CliRegistry | None
    newest: CliRegistry | None
    declared: str | None
    note: str | None = None
    predates_serve: bool = False
    family: str = VLLM
    checked: tuple[str, ...] = ()
    unreleased: bool = False
    range_label: str | None = None
    floor: tuple[str, str, str] | None = None
    launch_day: bool = False

    def short_of(self) -> str:
        """The end of a message saying a token is newer than the minimum: "the recipe's
        minimum is 0.22.0", or what :attr:`floor` says of the section's own version."""
        if self.floor is None:
            return f"the recipe's minimum is {self.label}"
        return f"{self.floor[0]} {self.label}{self.floor[1]}"

    def raise_to(self, release: str) -> str:
        """A hint's "raise min_vllm_version to X" (or the section's stated version)."""
        return f"raise {self.floor[2] if self.floor else 'min_vllm_version'} to {release}"

    @property
    def product(self) -> str:
        """``"vLLM"`` or the plugin's display name, for messages."""
        return product(self.family)

    @property
    def label(self) -> str:
        """``"0.19.1"`` or ``"nightly (checked against 0.33.0)"`` for messages."""
        if self.minimum is None:
            return str(self.declared)
        if self.declared == self.minimum.version:
            return self.minimum.version
        against = (self.minimum.version if self.family == VLLM
                   else f"{self.product} {self.minimum.version}")
        return f"{self.declared} (checked against {against})"


def plan_for(declared: Any, family: str = VLLM, top: str | None = None,
             unreleased: bool = False) -> VersionPlan:
    """A :class:`VersionPlan` for a minimum as :func:`validator.analysis.versions.
    effective_min_version` returns it (``Version``, ``"nightly"`` or ``None``).

    ``top``: the highest release an install path of the recipe pulls (``None``: the
    newest release of the window, what ``uv pip install -U vllm`` and ``:latest`` get);
    ``unreleased``: an install path pulls unreleased code. Together they give
    :attr:`VersionPlan.checked`.
    """
    key = None if declared is None else str(declared)
    win = window()
    return active().memoised(("plan", key, family, top, unreleased, win),
                             lambda: _ranged(key, family, top, unreleased, win))


def launch_day(declared: str | None, unreleased: bool) -> bool:
    """Whether a recipe whose minimum is ``declared`` (as :func:`plan_for` keys it) and
    whose install paths pull unreleased code or not (``unreleased``) is judged on its
    launch day: the minimum is ``nightly`` or newer than every vLLM release of the
    :func:`window`. A released minimum (or a recipe that installs only releases) is not:
    the release it names, or the one it installs, is there to judge it."""
    if not unreleased or declared is None:
        return False
    if declared == "nightly":
        return True
    vs = versions()
    try:
        return bool(vs) and Version(declared) > vs[-1]
    except InvalidVersion:
        return False


def _launch_note(plan: VersionPlan) -> str:
    """The one info of a :attr:`VersionPlan.launch_day` plan: what cannot be verified."""
    newest_vllm = versions()[-1]
    assert plan.minimum is not None
    rest = (plan.minimum.version if plan.family == VLLM
            else f"{plan.product} {plan.minimum.version}")
    return (f"cannot be verified against a released vLLM yet: min_vllm_version "
            f"{plan.declared} is in no vLLM release up to {newest_vllm} and the recipe "
            "installs unreleased vLLM, so flags, parser names, values and environment "
            "variables that no release has are not reported; the rest is checked against "
            f"{rest}")


def _ranged(declared: str | None, family: str, top: str | None, unreleased: bool,
            win: Window) -> VersionPlan:
    base = _plan_for(declared, win) if family == VLLM else _plugin_plan(declared, family, win)
    low = base.minimum
    if low is None:
        return base
    if launch_day(declared, unreleased):
        base = replace(base, launch_day=True)
        base = replace(base, note=_launch_note(base))
    vs = versions(family)
    here = Version(low.version)
    if win.vllm is not None and family == VLLM:
        pin = Version(win.vllm)
        checked = tuple(str(v) for v in vs if v == pin and v > here)
        label = f"{low.version} and {win.vllm} (--vllm)"
        return _replace(base, checked, unreleased, label)
    if family != VLLM:  # plugin CLIs: the minimum, and the newest for removals
        return _replace(base, (), unreleased, f"{product(family)} {low.version}")
    high = Version(top) if top is not None else (vs[-1] if vs else here)
    checked = tuple(str(v) for v in vs if here < v <= high)
    label = f"{low.version}–{checked[-1]}" if checked else low.version
    return _replace(base, checked, unreleased, label)


def _replace(plan: VersionPlan, checked: tuple[str, ...], unreleased: bool,
             label: str) -> VersionPlan:
    import dataclasses

    return dataclasses.replace(plan, checked=checked, unreleased=unreleased, range_label=label)


def _plan_for(declared: str | None, _window: Window) -> VersionPlan:
    vs = versions()
    top = newest()
    if not vs or top is None:
        return VersionPlan(None, None, declared)
    note: str | None
    if declared is None or declared == "nightly":
        note = ("`nightly` is not a release; checked against the newest vendored release "
                f"{top.version}") if declared is not None else (
            "no parseable min_vllm_version; checked against the newest vendored release "
            f"{top.version}")
        return VersionPlan(top, top, declared, note)
    try:
        want = Version(declared)
    except InvalidVersion:
        return VersionPlan(top, top, declared, f"`{declared}` is not a version; checked "
                           f"against the newest vendored release {top.version}")
    if want < SERVE_FIRST:
        return VersionPlan(None, top, declared, None, predates_serve=True)
    below = [v for v in vs if v <= want]
    if not below:
        low = registry(str(vs[0]))
        return VersionPlan(low, top, declared, f"{declared} is older than every vendored "
                           f"release; checked against {vs[0]}")
    reg = registry(str(below[-1]))
    if not reg.serve_available:
        return VersionPlan(None, top, declared, None, predates_serve=True)
    note = None
    if below[-1] != want:
        note = (f"{declared} is not a vendored release; checked against {below[-1]}"
                if want <= vs[-1] else f"{declared} is newer than every vendored release; "
                f"checked against {vs[-1]}")
    return VersionPlan(reg, top, declared, note)


def _plugin_plan(declared: str | None, family: str, _window: Window) -> VersionPlan:
    """Plan for a plugin: the plugin release built on the recipe's minimum vLLM, else the
    newest one built on an older vLLM. ``minimum`` is ``None`` (and ``note`` says why)
    when no vendored plugin release is old enough."""
    regs = [registry(str(v), family) for v in versions(family)]
    name = product(family)
    if not regs:
        return VersionPlan(None, None, declared, f"no {name} CLI is vendored", family=family)
    top = regs[-1]
    if declared is None or declared == "nightly":
        what = "`nightly` is not a release" if declared else "no parseable min_vllm_version"
        return VersionPlan(top, top, declared, f"{what}; checked against the newest vendored "
                           f"{name} release {top.version}", family=family)
    try:
        want = Version(declared)
    except InvalidVersion:
        return VersionPlan(top, top, declared, f"`{declared}` is not a version; checked "
                           f"against the newest vendored {name} release {top.version}",
                           family=family)
    below = [r for r in regs if r.plugin is not None and Version(r.plugin.vllm_version) <= want]
    if not below:
        first = regs[0]
        base = first.plugin.vllm_version if first.plugin is not None else first.version
        return VersionPlan(None, top, declared, f"the oldest {name} release on the package "
                           f"index, {first.version}, is built on vLLM {base}, newer than "
                           f"the recipe's minimum {declared}", family=family)
    reg = below[-1]
    assert reg.plugin is not None
    note = None
    if Version(reg.plugin.vllm_version) != want:
        note = (f"no {name} release is built on vLLM {declared}; checked against {name} "
                f"{reg.version} (built on vLLM {reg.plugin.vllm_version})")
    return VersionPlan(reg, top, declared, note, family=family)
