"""Which vendored CLI registry a list of ``vllm serve`` arguments is checked against.

A *family* is ``"vllm"`` (vLLM's own CLI, by default ``snapshots/vllm-cli/``) or the PyPI
name of a vendored platform plugin (``"vllm-omni"``, ``"vllm-ascend"``; ``<that
folder>/<name>/``, see :mod:`validator.vllm_cli.plugins`); the registries are those of the
run's data source (:class:`validator.vllm_cli.data_source.CliRegistries`, from the
settings), which each look-up is given as ``cli``. :func:`plan_for` turns a recipe's
effective minimum vLLM version into a :class:`VersionPlan`: the registry used for errors
(the minimum), the newest release of the same family (warnings about removals) and a
note when the two differ from what the
recipe declares. The ``first_version`` / ``last_version`` look-ups answer "since when"
within one family.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from packaging.version import InvalidVersion, Version

from validator.vllm_cli import parsed_args
from validator.vllm_cli.data_source import VLLM as VLLM  # re-exported: vLLM's own family
from validator.vllm_cli.data_source import CliRegistries, Window
from validator.vllm_cli.plugins import OMNI as _OMNI

OMNI_FAMILY = _OMNI.name
"""vLLM-Omni's family: installed unpinned (``uv pip install vllm-omni``, its git main), so
its install range is every stable release from the minimum on, judged as vLLM's is."""

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


def per_document(doc: LoadedDocument, ctx: Context, name: str,
                 compute: Callable[[], T]) -> T:
    """``compute()`` once per document content, context and release window (the
    context's, ``ctx.cli.window``): the per-document state of a run, held by the context
    (:meth:`Context.memoised`), not by a module global. ``name`` says what it is
    (``"flag:layers"``, ``"guide:commands"``)."""
    if not doc.sha256:  # a document built by hand, not read: nothing identifies it
        return compute()
    return ctx.memoised(f"{name}:{doc.path}:{doc.sha256}:{_window_text(ctx.cli.window)}",
                        compute)


@lru_cache(maxsize=64)
def _window_text(window: Window) -> str:
    """``repr(window)``, made once per window: :func:`per_document` keys hold it."""
    return repr(window)


# --------------------------------------------------------------------------- registries
# Each look-up reads the data source it is given (``cli``: the context's
# :class:`~validator.vllm_cli.data_source.CliRegistries`, ``ctx.cli``, seen through the
# context's release window); what is derived from it is memoised on that object, never in
# this module.


def product(family: str = VLLM) -> str:
    """How messages name ``family``: ``"vLLM"``, ``"vLLM-Omni"``, ``"vLLM-Ascend"``."""
    from validator.vllm_cli.plugins import PLUGINS

    return "vLLM" if family == VLLM else PLUGINS[family].display


def versions(cli: CliRegistries, family: str = VLLM) -> tuple[Version, ...]:
    """Vendored releases of ``family`` inside the run's window (``cli.window``), ascending; ``()``
    when its ``index.json`` is absent (the checks then have nothing to check against).
    With ``as_of``, a vLLM release counts when it was published by then; a plugin
    release when the vLLM it is built on was."""
    return cli.versions(family, cli.window.as_of)


def registry(cli: CliRegistries, version: str, family: str = VLLM) -> CliRegistry:
    """The vendored registry of ``version`` (one of :func:`versions`) of ``family``.

    Raises:
        validator.vllm_cli.registry.RegistryError: the snapshot is missing or fails its
            digest pin (reported by the checker as an internal error naming the file).
    """
    return cli.registry(version, family)


def newest(cli: CliRegistries, family: str = VLLM) -> CliRegistry | None:
    """The newest vendored release's registry of ``family``."""
    vs = versions(cli, family)
    return registry(cli, str(vs[-1]), family) if vs else None


def first_version(cli: CliRegistries, kind: str, name: str, family: str = VLLM) -> str | None:
    """First vendored release of ``family`` whose registry has ``name`` as ``kind``.

    ``kind`` is ``"option"`` (an option string), ``"dotted"`` (an option that accepts
    dotted keys), ``"env"``, ``"additional_config"`` (a top-level key a plugin reads) or
    a :data:`PARSER_SETS` / ``choices:<option>`` value set. Memoised on the run's data
    source per window: every rendered configuration asks again of the same names.
    """
    return cli.memoised(("first_version", kind, name, family, cli.window),
                        lambda: _first_release_with(cli, kind, name, family))


def _first_release_with(cli: CliRegistries, kind: str, name: str, family: str) -> str | None:
    """The walk behind :func:`first_version` (every vendored release, oldest first)."""
    for v in versions(cli, family):
        if has(registry(cli, str(v), family), kind, name):
            return str(v)
    return None


def last_version(cli: CliRegistries, kind: str, name: str, family: str = VLLM) -> str | None:
    """Last vendored release of ``family`` that has ``name`` as ``kind``."""
    def compute() -> str | None:
        for v in reversed(versions(cli, family)):
            if has(registry(cli, str(v), family), kind, name):
                return str(v)
        return None

    return cli.memoised(("last_version", kind, name, family, cli.window), compute)


def present_spans(cli: CliRegistries, kind: str, name: str,
                  family: str = VLLM) -> tuple[tuple[str, str], ...]:
    """The runs of consecutive vendored releases of ``family`` that have ``name`` as
    ``kind``, oldest first, each as ``(first, last)``: a flag removed and later added back
    has two (``--disable-log-requests``: 0.4.2..0.16.0 and 0.33.0..newest)."""
    def compute() -> tuple[tuple[str, str], ...]:
        spans: list[tuple[str, str]] = []
        inside = False
        for v in versions(cli, family):
            present = has(registry(cli, str(v), family), kind, name)
            if present and inside:
                spans[-1] = (spans[-1][0], str(v))
            elif present:
                spans.append((str(v), str(v)))
            inside = present
        return tuple(spans)

    return cli.memoised(("present_spans", kind, name, family, cli.window), compute)


def first_without(cli: CliRegistries, kind: str, name: str, after: str,
                  family: str = VLLM) -> str | None:
    """First vendored release of ``family`` newer than ``after`` that lacks ``name``."""
    for v in versions(cli, family):
        if v > Version(after) and not has(registry(cli, str(v), family), kind, name):
            return str(v)
    return None


def pre_release_removal(cli: CliRegistries, kind: str, name: str, after: str,
                        family: str = VLLM) -> tuple[list[str], str | None] | None:
    """When every vendored release of ``family`` newer than ``after`` that lacks ``name``
    is a pre-release (the removal is in no stable release yet): those pre-releases, and
    the newest stable release that has ``name`` (``None`` when none does); else ``None``
    (no release lacks it, or a stable one does)."""
    lacking = [v for v in versions(cli, family)
               if v > Version(after) and not has(registry(cli, str(v), family), kind, name)]
    if not lacking or any(not v.is_prerelease for v in lacking):
        return None
    stable = [v for v in versions(cli, family) if not v.is_prerelease and v <= lacking[-1]
              and has(registry(cli, str(v), family), kind, name)]
    last = stable[-1] if stable else None
    return [str(v) for v in lacking if last is None or v > last], (
        str(last) if last is not None else None)


def required_vllm(cli: CliRegistries, release: str, family: str = VLLM) -> str:
    """The ``min_vllm_version`` a recipe needs to get ``release`` of ``family``: the
    release itself for vLLM, the vLLM a plugin release is built on otherwise (vLLM-Omni
    ``0.27.0rc1`` → ``0.27.0``)."""
    if family == VLLM:
        return release
    info = registry(cli, release, family).plugin
    return info.vllm_version if info is not None else release


def has(reg: CliRegistry, kind: str, name: str) -> bool:
    """Whether ``reg`` has ``name`` as ``kind`` (see :func:`first_version`)."""
    if kind == "option":
        return reg.lookup(name) is not None
    if kind == "dotted":
        spec = reg.lookup(name)
        return bool(reg.dotted_keys and spec is not None and parsed_args.json_valued(spec))
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


def listed_choices(cli: CliRegistries, option: str, family: str = VLLM) -> tuple[str, ...]:
    """Every value some vendored release of ``family`` lists for ``option``
    (:func:`allowed_values`), sorted; memoised on the data source per window."""
    def compute() -> tuple[str, ...]:
        seen: set[str] = set()
        for v in versions(cli, family):
            reg = registry(cli, str(v), family)
            seen |= allowed_values(reg, reg.lookup(option)) or frozenset()
        return tuple(sorted(seen))

    return cli.memoised(("listed_choices", option, family, cli.window), compute)


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
        channel: when the channel the commands run in (a community, dev, nightly or
            launch image; :func:`validator.analysis.install_channel.channel_plan`), not
            the recipe, makes the plan :attr:`launch_day`: what that channel is, as
            messages name it. A token no vendored release has is then reported as an
            info naming it (no recipe-level note says so), never as an error.
        cli: the data source the plan was made from (the registries of :attr:`checked`,
            and where what is derived from the plan is memoised).
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
    channel: str | None = None
    cli: CliRegistries = field(kw_only=True, compare=False, repr=False)

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


def plan_for(cli: CliRegistries, declared: Any, family: str = VLLM, top: str | None = None,
             unreleased: bool = False) -> VersionPlan:
    """A :class:`VersionPlan` for a minimum as :func:`validator.analysis.versions.
    effective_min_version` returns it (``Version``, ``"nightly"`` or ``None``).

    ``top``: the highest release an install path of the recipe pulls (``None``: the
    newest release of the window, what ``uv pip install -U vllm`` and ``:latest`` get);
    ``unreleased``: an install path pulls unreleased code. Together they give
    :attr:`VersionPlan.checked`.
    """
    key = None if declared is None else str(declared)
    win = cli.window
    return cli.memoised(("plan", key, family, top, unreleased, win),
                        lambda: _ranged(cli, key, family, top, unreleased, win))


def launch_day(cli: CliRegistries, declared: str | None, unreleased: bool) -> bool:
    """Whether a recipe whose minimum is ``declared`` (as :func:`plan_for` keys it) and
    whose install paths pull unreleased code or not (``unreleased``) is judged on its
    launch day: the minimum is ``nightly`` or newer than every vLLM release of the
    window (``cli.window``). A released minimum (or a recipe that installs only releases) is not:
    the release it names, or the one it installs, is there to judge it."""
    if not unreleased or declared is None:
        return False
    if declared == "nightly":
        return True
    vs = versions(cli)
    try:
        return bool(vs) and Version(declared) > vs[-1]
    except InvalidVersion:
        return False


def _launch_note(cli: CliRegistries, plan: VersionPlan) -> str:
    """The one info of a :attr:`VersionPlan.launch_day` plan: what cannot be verified."""
    newest_vllm = versions(cli)[-1]
    assert plan.minimum is not None
    rest = (plan.minimum.version if plan.family == VLLM
            else f"{plan.product} {plan.minimum.version}")
    return (f"cannot be verified against a released vLLM yet: min_vllm_version "
            f"{plan.declared} is in no vLLM release up to {newest_vllm} and the recipe "
            "installs unreleased vLLM, so flags, parser names, values and environment "
            "variables that no release has are not reported; the rest is checked against "
            f"{rest}")


def _ranged(cli: CliRegistries, declared: str | None, family: str, top: str | None,
            unreleased: bool, win: Window) -> VersionPlan:
    base = (_plan_for(cli, declared) if family == VLLM
            else _plugin_plan(cli, declared, family))
    low = base.minimum
    if low is None:
        return base
    if launch_day(cli, declared, unreleased):
        base = replace(base, launch_day=True)
        base = replace(base, note=_launch_note(cli, base))
    vs = versions(cli, family)
    here = Version(low.version)
    if win.vllm is not None and family == VLLM:
        pin = Version(win.vllm)
        checked = tuple(str(v) for v in vs if v == pin and v > here)
        label = f"{low.version} and {win.vllm} (--vllm)"
        return _replace(base, checked, unreleased, label)
    if family == OMNI_FAMILY:  # installed unpinned: every stable release above the minimum
        checked = tuple(str(v) for v in vs if v > here and not v.is_prerelease)
        label = f"{product(family)} {low.version}" + (f"–{checked[-1]}" if checked else "")
        return _replace(base, checked, unreleased, label)
    if family != VLLM:  # other plugin CLIs: the minimum, and the newest for removals
        return _replace(base, (), unreleased, f"{product(family)} {low.version}")
    high = Version(top) if top is not None else (vs[-1] if vs else here)
    checked = tuple(str(v) for v in vs if here < v <= high)
    label = f"{low.version}–{checked[-1]}" if checked else low.version
    return _replace(base, checked, unreleased, label)


def _replace(plan: VersionPlan, checked: tuple[str, ...], unreleased: bool,
             label: str) -> VersionPlan:
    import dataclasses

    return dataclasses.replace(plan, checked=checked, unreleased=unreleased, range_label=label)


def _plan_for(cli: CliRegistries, declared: str | None) -> VersionPlan:
    vs = versions(cli)
    top = newest(cli)
    if not vs or top is None:
        return VersionPlan(None, None, declared, cli=cli)
    note: str | None
    if declared is None or declared == "nightly":
        note = ("`nightly` is not a release; checked against the newest vendored release "
                f"{top.version}") if declared is not None else (
            "no parseable min_vllm_version; checked against the newest vendored release "
            f"{top.version}")
        return VersionPlan(top, top, declared, note, cli=cli)
    try:
        want = Version(declared)
    except InvalidVersion:
        return VersionPlan(top, top, declared, f"`{declared}` is not a version; checked "
                           f"against the newest vendored release {top.version}", cli=cli)
    if want < SERVE_FIRST:
        return VersionPlan(None, top, declared, None, predates_serve=True, cli=cli)
    below = [v for v in vs if v <= want]
    if not below:
        low = registry(cli, str(vs[0]))
        return VersionPlan(low, top, declared, f"{declared} is older than every vendored "
                           f"release; checked against {vs[0]}", cli=cli)
    reg = registry(cli, str(below[-1]))
    if not reg.serve_available:
        return VersionPlan(None, top, declared, None, predates_serve=True, cli=cli)
    note = None
    if below[-1] != want:
        note = (f"{declared} is not a vendored release; checked against {below[-1]}"
                if want <= vs[-1] else f"{declared} is newer than every vendored release; "
                f"checked against {vs[-1]}")
    return VersionPlan(reg, top, declared, note, cli=cli)


def _plugin_plan(cli: CliRegistries, declared: str | None, family: str) -> VersionPlan:
    """Plan for a plugin: the plugin release built on the recipe's minimum vLLM, else the
    newest one built on an older vLLM. ``minimum`` is ``None`` (and ``note`` says why)
    when no vendored plugin release is old enough."""
    regs = [registry(cli, str(v), family) for v in versions(cli, family)]
    name = product(family)
    if not regs:
        return VersionPlan(None, None, declared, f"no {name} CLI is vendored", family=family,
                           cli=cli)
    top = regs[-1]
    if declared is None or declared == "nightly":
        what = "`nightly` is not a release" if declared else "no parseable min_vllm_version"
        return VersionPlan(top, top, declared, f"{what}; checked against the newest vendored "
                           f"{name} release {top.version}", family=family, cli=cli)
    try:
        want = Version(declared)
    except InvalidVersion:
        return VersionPlan(top, top, declared, f"`{declared}` is not a version; checked "
                           f"against the newest vendored {name} release {top.version}",
                           family=family, cli=cli)
    below = [r for r in regs if r.plugin is not None and Version(r.plugin.vllm_version) <= want]
    if not below:
        first = regs[0]
        base = first.plugin.vllm_version if first.plugin is not None else first.version
        return VersionPlan(None, top, declared, f"the oldest {name} release on the package "
                           f"index, {first.version}, is built on vLLM {base}, newer than "
                           f"the recipe's minimum {declared}", family=family, cli=cli)
    reg = below[-1]
    assert reg.plugin is not None
    note = None
    if Version(reg.plugin.vllm_version) != want:
        note = (f"no {name} release is built on vLLM {declared}; checked against {name} "
                f"{reg.version} (built on vLLM {reg.plugin.vllm_version})")
    return VersionPlan(reg, top, declared, note, family=family, cli=cli)


def unverifiable_by(plan: VersionPlan, installs: str) -> str:
    """Why a token no vendored release has may still be right: the channel the command
    runs in (:attr:`VersionPlan.channel`), else the recipe's unreleased ``installs``."""
    if plan.channel is not None:
        return (f"{plan.channel}, a build no vendored release describes (a community, dev, "
                "nightly or launch image): it cannot be verified against vendored releases")
    return f"the recipe installs unreleased code ({installs}), which may have it"
