"""Values of options that vLLM's own types judge, against what each release's source
accepts (``snapshots/vllm-config-values.json``, derived by
``scripts/derive_config_values.py`` from the same artifacts as the CLI snapshots):

- :func:`kvs_issues`: a value of an option whose release registers it with
  ``type=nullable_kvs`` (``--limit-mm-per-prompt`` up to vLLM 0.8.4) that is not
  comma-separated ``KEY=VALUE`` pairs with integer values, such as a JSON object: argparse
  refuses it ("Each item should be in the form KEY=VALUE"); issue ``json`` (``FLAG007``,
  the converse of a ``KEY=VALUE`` list given to a release that parses JSON).
- :func:`config_issues`: a top-level key or value of ``--compilation-config``,
  ``--structured-outputs-config`` or ``--eplb-config`` (whole JSON or dotted keys) the
  minimum release's config class refuses: a key that is no field of a class declared
  with ``extra="forbid"``, a string outside a field's ``Literal``, a ``cudagraph_mode``
  that names no ``CUDAGraphMode`` member, a non-integer for an ``int`` field; issue
  ``config_value`` (``FLAG040``). A release that ignores unknown keys, or whose class is not
  a pydantic dataclass, is not judged there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan, required_vllm, versions
from validator.analysis.flag_values import FlagIssue, value_at
from validator.analysis.option_hints import nearest_hint
from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.derived import derived_releases
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption, key_setter, parse_json

PATH = SNAPSHOTS_DIR / "vllm-config-values.json"
FORMAT = "recipe-check/vllm-config-values/v1"


@dataclass(frozen=True)
class ConfigClass:
    """What one release's config class behind a JSON option accepts: its fields
    (``keys``), whether it refuses any other key (``strict``) and, per describable
    field, ``(kind, values)``: ``literal`` (one of ``values``), ``enum_name`` (a member
    name of ``values``, any case) or ``int``."""

    keys: frozenset[str]
    strict: bool
    fields: Mapping[str, tuple[str, frozenset[str]]]


@dataclass(frozen=True)
class ReleaseValues:
    """One release: the options registered with ``type=nullable_kvs`` and the config
    classes by option string."""

    kvs_options: frozenset[str]
    configs: Mapping[str, ConfigClass]


def load(path: Path = PATH) -> dict[str, ReleaseValues]:
    """Release version -> :class:`ReleaseValues`, read from the vendored file; a config
    class or value set equal to one of an earlier release (most releases repeat their
    neighbour's) is that one object, so the table holds each distinct one once."""
    out = {}
    seen: dict[Any, Any] = {}

    def shared(key: Any, value: Any) -> Any:
        return seen.setdefault(key, value)

    def config(c: Any) -> ConfigClass:
        keys = frozenset(c["keys"])
        fields = {name: (f["kind"], frozenset(f.get("values") or ()))
                  for name, f in c["values"].items()}
        strict = c["unknown_keys"] == "rejected"
        found: ConfigClass = shared(("class", keys, strict, frozenset(fields.items())),
                                    ConfigClass(keys, strict, fields))
        return found

    for version, entry in derived_releases(path, FORMAT).items():
        configs = {option: config(c) for option, c in entry["configs"].items()}
        kvs = frozenset(entry["kvs_options"])
        out[version] = shared(("release", kvs, frozenset((k, id(v)) for k, v in
                                                        configs.items())),
                              ReleaseValues(kvs, configs))
    return out


def _known(plan: VersionPlan) -> dict[str, ReleaseValues] | None:
    """The vendored file, read once per data source; ``None`` when the plan is not
    vLLM's or its minimum is not described."""
    if plan.family != VLLM or plan.minimum is None:
        return None
    known = plan.cli.memoised(("config_values:releases", str(PATH)), load)
    return known if plan.minimum.version in known else None


def _later(plan: VersionPlan, known: Mapping[str, ReleaseValues], takes: Any) -> str | None:
    """The first release of the run's window above the minimum for whose
    :class:`ReleaseValues` ``takes`` is true."""
    assert plan.minimum is not None
    low = Version(plan.minimum.version)
    return next((str(v) for v in versions(plan.cli) if v > low and str(v) in known
                 and takes(known[str(v)])), None)


def kvs_refuses(value: str) -> bool:
    """Whether vLLM's ``nullable_kvs`` refuses ``value``: each ``,``-separated item must
    be one ``KEY=VALUE`` with an integer value (an empty value is ``None``)."""
    if not value:
        return False
    for item in value.split(","):
        parts = item.split("=")
        if len(parts) != 2:
            return True
        try:
            int(parts[1].strip())
        except ValueError:
            return True
    return False


def _as_kvs(value: str) -> str | None:
    """``image=4,video=1`` for a JSON object of integers, else ``None``."""
    try:
        found = parse_json(value)
    except ValueError:
        return None
    if isinstance(found, dict) and found and all(
            isinstance(v, int) and not isinstance(v, bool) for v in found.values()):
        return ",".join(f"{k}={v}" for k, v in found.items())
    return None


def kvs_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """``json`` issues of values the minimum's ``nullable_kvs`` type refuses."""
    known = _known(plan)
    if known is None:
        return
    assert plan.minimum is not None
    here = known[plan.minimum.version].kvs_options
    for opt in parsed.options:
        name = opt.option or opt.normalised
        if opt.keys or opt.spec is None or not here.intersection(opt.spec.strings):
            continue
        for at, value in zip(value_at(opt), opt.values, strict=True):
            if "$" in value or not kvs_refuses(value):
                continue
            yield _kvs_issue(name, value, at, plan, known)


def _kvs_issue(name: str, value: str, at: int, plan: VersionPlan,
               known: Mapping[str, ReleaseValues]) -> FlagIssue:
    assert plan.minimum is not None
    pairs = _as_kvs(value)
    write = f"write `{pairs}`" if pairs else "write KEY=VALUE pairs such as `image=4,video=1`"
    json_object = value.lstrip().startswith("{")
    what = (f"value of `{name}` is {'a JSON object' if json_object else 'not KEY=VALUE pairs'}"
            f", but {plan.product} {plan.minimum.version} takes only comma-separated "
            "KEY=VALUE pairs there (its type `nullable_kvs` refuses anything else: vLLM "
            "does not start)")
    later = _later(plan, known, lambda r: name not in r.kvs_options) \
        if json_object else None
    if later is not None:
        return FlagIssue("json", at, f"{what}; JSON is taken from {plan.product} "
                         f"{later}, but {plan.short_of()}: `{value[:80]}`",
                         f"{plan.raise_to(required_vllm(plan.cli, later))}, or {write}",
                         on_value=True, floor=True)
    return FlagIssue("json", at, f"{what}: `{value[:80]}`", write, on_value=True)


def config_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """``config_value`` issues of the config options the minimum describes."""
    known = _known(plan)
    if known is None:
        return
    assert plan.minimum is not None
    for option, cls in known[plan.minimum.version].configs.items():
        value, sources = parsed.json_value(option[2:].replace("-", "_"))
        if not value or not sources:
            continue
        for key, item in value.items():
            source = key_setter(sources, key)
            if source is not None:
                yield from _key_issues(option, key, item, source, cls, plan, known)


def _key_issues(option: str, key: str, item: Any, source: ParsedOption, cls: ConfigClass,
                plan: VersionPlan, known: Mapping[str, ReleaseValues]) -> Iterator[FlagIssue]:
    """The issue of one top-level ``key`` set by ``source`` (its value ``item``)."""
    assert plan.minimum is not None
    low = f"{plan.product} {plan.minimum.version}"
    if key not in cls.keys:
        found = _unknown_key(option, key, source, cls, plan, known)
        if found is not None:
            yield found
        return
    kind, allowed = cls.fields.get(key, ("", frozenset()))
    why = refusal(kind, allowed, item)
    if why is None:
        return
    later = _later(plan, known, lambda r: (f := _config(r, option)) is not None
                   and refusal(*f.fields.get(key, ("", frozenset())), item) is None)
    shown = item if isinstance(item, str) else repr(item)
    text = f"`{option}` key `{key}`: `{shown}` {why}"
    if later is not None:
        yield FlagIssue("config_value", source.value_at, f"{text} in {low}; it is taken from "
                        f"{plan.product} {later}, but {plan.short_of()}",
                        plan.raise_to(required_vllm(plan.cli, later)), on_value=True,
                        floor=True)
        return
    hint = nearest_hint(str(item), sorted(allowed)) if allowed else None
    yield FlagIssue("config_value", source.value_at, f"{text}, so {low} refuses it and does "
                    "not start", hint or (f"one of: {', '.join(sorted(allowed))}" if allowed
                                          else "write an integer"), on_value=True)


def _unknown_key(option: str, key: str, source: ParsedOption, cls: ConfigClass,
                 plan: VersionPlan, known: Mapping[str, ReleaseValues]) -> FlagIssue | None:
    """The issue of a top-level ``key`` that is no field of the minimum's class: a floor
    when a later release takes it, else an error where the class refuses unknown keys
    (naming the release that removed it, when an earlier one took it)."""
    assert plan.minimum is not None
    if not cls.strict:
        return None
    at, on_value = (source.index, False) if source.keys else (source.value_at, True)
    later = _later(plan, known, lambda r: key in _keys(r, option))
    if later is not None:
        return FlagIssue("config_value", at, f"`{option}` key `{key}` is taken only from "
                         f"{plan.product} {later}, but {plan.short_of()}",
                         plan.raise_to(required_vllm(plan.cli, later)), on_value=on_value,
                         floor=True)
    below = [str(v) for v in versions(plan.cli) if v < Version(plan.minimum.version)
             and str(v) in known]
    had = [i for i, v in enumerate(below) if key in _keys(known[v], option)]
    gone = (below[had[-1]], [*below, plan.minimum.version][had[-1] + 1]) if had else None
    return FlagIssue("config_value", at, f"`{option}` key `{key}` is no field of the config "
                     f"{plan.product} {plan.minimum.version} builds from it" + (
                         f" (a field up to {gone[0]})" if gone else "") + ", which refuses "
                     "unknown keys (\"Extra inputs are not permitted\"): vLLM does not start",
                     f"drop the key: {plan.product} {gone[1]} removed the field" if gone
                     else nearest_hint(key, sorted(cls.keys)), on_value=on_value)


def _config(release: ReleaseValues, option: str) -> ConfigClass | None:
    return release.configs.get(option)


def _keys(release: ReleaseValues, option: str) -> frozenset[str]:
    found = release.configs.get(option)
    return frozenset() if found is None else found.keys


def refusal(kind: str, allowed: frozenset[str], item: Any) -> str | None:
    """Why a field of ``kind`` refuses JSON value ``item`` (``None``: it takes it, or the
    kind does not tell). ``None`` and booleans are never judged (an ``Optional`` field
    takes ``None``; pydantic's lax mode turns a boolean into an integer)."""
    if item is None or isinstance(item, bool):
        return None
    if kind == "literal" and (not isinstance(item, str) or item not in allowed):
        return "is none of the values " + ", ".join(sorted(allowed))
    if kind == "enum_name" and isinstance(item, str) and item.upper() not in allowed:
        return "names none of the modes " + ", ".join(sorted(allowed))
    if kind == "int" and not _integer(item):
        return "is not an integer"
    return None


def _integer(item: Any) -> bool:
    """Whether pydantic's lax ``int`` takes ``item``: an integer, a float without a
    fraction, a string of an integer."""
    if isinstance(item, int):
        return True
    if isinstance(item, float):
        return item.is_integer()
    if isinstance(item, str):
        try:
            int(item.strip())
        except ValueError:
            return False
        return True
    return False
