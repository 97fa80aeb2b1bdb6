"""``ENV003``: a ``VLLM_*`` variable's value that the vLLM releases of the install range
cannot read as meant.

vLLM's ``vllm/envs.py`` reads each variable with a getter: ``int(...)``/``float(...)``
raise ``ValueError`` on ``"16GB"`` and vLLM does not start; ``env_with_choices`` raises on
a value outside its list; a switch compared with ``"1"``/``"true"`` reads any other word
(``"enabled"``) as off, silently. The getters of each release are vendored in
``snapshots/vllm-env-kinds.json`` (:mod:`validator.vllm_cli.env_kinds`), derived from the
release artifacts; a getter of another shape is not judged, nor is a value that is empty
or a shell reference (``$VAR``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis.arg_layers import ascend_variants, env_maps, npu_hardware, platform_plugin
from validator.analysis.cli_plan import VLLM, VersionPlan
from validator.analysis.install_range import install_range
from validator.analysis.recipe_data import as_dict, get
from validator.findings import Severity, printable
from validator.guide.commands import parsed_guide
from validator.render import jsval
from validator.rules.api import Hit, Reads, rule
from validator.sourcemap import join_pointer, split_pointer
from validator.vllm_cli.env_kinds import PATH, EnvKind, EnvKinds, load

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

OFF_WORDS = frozenset({"0", "false", "no", "off"})
"""Values that mean "off" to a reader, which a switch reads as off too (any value it does
not read as on is off): never reported."""


def refused(text: str, kind: EnvKind) -> bool | None:
    """``True`` when a release reading the variable as ``kind`` refuses ``text`` (raises
    ``ValueError``: ``int``, ``float``, ``choices``), ``False`` when it silently reads a
    switch as off although ``text`` is no word for off, ``None`` when it reads ``text`` as
    meant."""
    if kind.kind in ("int", "float"):
        try:
            int(text) if kind.kind == "int" else float(text)
        except ValueError:
            return True
        return None
    seen = text if kind.case_sensitive else text.lower()
    accepted = kind.accepted if kind.case_sensitive else {a.lower() for a in kind.accepted}
    if seen in accepted:
        return None
    if kind.kind == "choices":
        return True
    return None if text.strip().lower() in OFF_WORDS else False


def _span(versions: Sequence[str], judged: int) -> str:
    """How a message names the releases ``versions`` of ``judged`` ones."""
    first, last = versions[0], versions[-1]
    text = first if first == last else f"{first}–{last}"
    return text if len(versions) == judged else \
        f"{text} ({len(versions)} of the {judged} releases of the install range)"


def _describe(name: str, kind: EnvKind) -> tuple[str, str]:
    """How ``kind`` reads ``name``, and how to fix a value it refuses or reads as off."""
    words = ", ".join(f'"{a}"' for a in sorted(kind.accepted))
    if kind.kind in ("int", "float"):
        what = "an integer" if kind.kind == "int" else "a number"
        return (f"reads `{name}` with `{kind.kind}()`, which raises ValueError on it, so "
                "vLLM does not start", f"write {what} (no unit)")
    if kind.kind == "choices":
        return (f"accepts only {words} for `{name}` and raises ValueError on another value, "
                "so vLLM does not start", f"write one of {words}")
    return (f"turns `{name}` on only for {words} and reads any other value as off, "
            "silently", f'write "{sorted(kind.accepted)[0]}" to turn it on, or "0" to '
            "leave it off")


def judge(name: str, text: str, versions: Sequence[str],
          kinds: EnvKinds) -> tuple[Severity, str, str] | None:
    """(severity, message, hint) of variable ``name`` set to ``text`` for the vLLM
    ``versions`` (the releases of an install range), or ``None``: an error where a release
    refuses it, else a warning where a release silently reads a switch as off."""
    if not text or "$" in text or not name.startswith("VLLM_"):
        return None
    failing: dict[bool, list[tuple[str, EnvKind]]] = {True: [], False: []}
    for version in versions:
        kind = kinds.get(version, {}).get(name)
        verdict = None if kind is None else refused(text, kind)
        if kind is not None and verdict is not None:
            failing[verdict].append((version, kind))
    for fatal in (True, False):
        if failing[fatal]:
            hit = failing[fatal]
            why, hint = _describe(name, hit[-1][1])
            message = (f"`{printable(name)}={printable(text)}`: vLLM "
                       f"{_span([v for v, _ in hit], len(versions))} {why}")
            return (Severity.ERROR if fatal else Severity.WARNING), message, hint
    return None


def plan_versions(plan: VersionPlan) -> list[str]:
    """The vLLM releases of ``plan``'s install range, oldest first (none for a plugin's
    plan, or when no release describes the minimum)."""
    if plan.family != VLLM or plan.minimum is None:
        return []
    return sorted({plan.minimum.version, *plan.checked}, key=Version)


@rule("ENV003", Severity.ERROR, "vLLM environment variable value not readable",
      reads=frozenset({Reads.CLI_REGISTRY, Reads.STRATEGIES, Reads.TAXONOMY,
                       Reads.KV_STORES}))
def env_value_kind(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``VLLM_*`` variable of a recipe (``model.base_env``, a variant's, hardware
    override's or strategy override's ``env``/``extra_env``, or a guide ``vllm serve``
    command's ``export``/``VAR=x`` prefix/``docker run -e``) has a value the vLLM releases
    of its install range cannot read: an error where ``vllm/envs.py`` reads it with
    ``int()``/``float()`` (``"16GB"``) or against a list of choices, and vLLM raises
    ``ValueError`` instead of starting; a warning where it is a switch turned on only by
    certain strings (``"1"``, ``"true"``) and the value is neither one of them nor a word
    for off (``"enabled"``: silently off). Each release's getters are read from its
    artifact (``snapshots/vllm-env-kinds.json``); a getter of another shape, an empty
    value and a shell reference (``$VAR``) are not judged.

    Failing::

        model:
          base_env:
            VLLM_CPU_KVCACHE_SPACE: "16GB"     # int(): vLLM does not start
            VLLM_ROCM_USE_AITER: "enabled"     # read as off

    Passing::

        model:
          base_env:
            VLLM_CPU_KVCACHE_SPACE: "16"
            VLLM_ROCM_USE_AITER: "1"

    How to fix: write the value in the form the message names."""
    if platform_plugin(doc.data) is not None:
        return  # a plugin's recipe: its releases are not vLLM's
    # the vendored file is its only input: once per run's data source, not per context
    # (the history audit builds a context per revision, window and rule group)
    kinds: EnvKinds = ctx.cli.memoised(("vllm-env-kinds", PATH), load)
    yield from _map_hits(doc, ctx, kinds)
    yield from _guide_hits(doc, ctx, kinds)


def _map_hits(doc: LoadedDocument, ctx: Context, kinds: EnvKinds) -> Iterator[Hit]:
    """The hits of the recipe's own environment maps, at each value, judged at the install
    range of the map's variant (maps of Ascend hardware, served by a plugin, are not)."""
    data = doc.data
    is_npu = npu_hardware(ctx)
    ascend = ascend_variants(data, is_npu)
    for pointer, label, variant, hardware in env_maps(data):
        if (is_npu(hardware) if hardware else variant in ascend):
            continue
        env = as_dict(get(data, *split_pointer(pointer)))
        if not env:
            continue
        versions = plan_versions(install_range(doc, ctx, variant).plan)
        for name, value in env.items():
            if not isinstance(name, str) or value is None or isinstance(value, dict | list):
                continue
            found = judge(name, jsval.js_str(value), versions, kinds)
            if found is not None:
                yield Hit(join_pointer(pointer, name), f"{label}: {found[1]}", found[2],
                          severity=found[0])


def _guide_hits(doc: LoadedDocument, ctx: Context, kinds: EnvKinds) -> Iterator[Hit]:
    """The hits of the environments of the guide's ``vllm serve`` commands (prefix
    assignments, ``export`` lines above them in their block, ``docker run -e``), once per
    line and name, judged at the recipe's install range."""
    text = get(doc.data, "guide")
    if not isinstance(text, str) or not text:
        return
    versions = plan_versions(install_range(doc, ctx).plan)
    seen: set[tuple[str, int]] = set()
    for cmd in parsed_guide(text).commands:
        for name, value, line in cmd.env:
            if (name, line) in seen:
                continue
            seen.add((name, line))
            found = judge(name, value, versions, kinds)
            if found is not None:
                yield Hit("/guide", f"guide: {found[1]}", found[2], block_index=line,
                          severity=found[0])
