"""The ``kv_connector`` and ``kv_role`` of ``--kv-transfer-config`` against what each release
of a plan accepts (:mod:`validator.vllm_cli.kv_connectors`, derived from each release's
source): issues ``kv_transfer`` (the minimum refuses it: vLLM does not start),
``unreleased_only`` (no vendored release registers the connector and the recipe installs
unreleased code) and ``range_rejected`` (a later release of the install range does not
register it). A ``MultiConnector`` builds each of its ``kv_connector_extra_config.connectors``
the same way, so each child is judged too. A connector loaded by
``kv_connector_module_path`` is a class of that module, not a registered name: not judged."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import Version

from validator.analysis.cli_plan import VLLM, VersionPlan, required_vllm, unverifiable_by, versions
from validator.analysis.flag_values import FlagIssue
from validator.analysis.option_hints import close_matches, nearest_hint
from validator.analysis.release_range import release_runs
from validator.vllm_cli.kv_connectors import PATH, KvTransferRelease, load
from validator.vllm_cli.parsed_args import ParsedArgs, key_setter

OPTION = "--kv-transfer-config"
DEST = "kv_transfer_config"
MULTI = "MultiConnector"


def kv_transfer_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """The issues of the connector names and roles vLLM ends up with for
    ``--kv-transfer-config`` (the last whole JSON value, or the merged dotted keys), on the
    token that sets each."""
    low = plan.minimum
    if plan.family != VLLM or low is None:
        return
    value, sources = parsed.json_value(DEST)
    if not value or not sources:
        return
    known = plan.cli.memoised(("kv_transfer:releases", str(PATH)), load)
    if low.version not in known:
        return
    key_at = {key: source.value_at if (source := key_setter(sources, key)) else None
              for key in ("kv_connector", "kv_role")}
    for config in connector_configs(value):
        name, role = config.get("kv_connector"), config.get("kv_role")
        if isinstance(name, str) and not config.get("kv_connector_module_path") \
                and key_at["kv_connector"] is not None:
            yield from _connector(name, plan, key_at["kv_connector"], known)
        if isinstance(role, str) and key_at["kv_role"] is not None \
                and role not in known[low.version].roles:
            roles = sorted(known[low.version].roles)
            yield FlagIssue("kv_transfer", key_at["kv_role"], f"kv_role `{role}` (`{OPTION}`) "
                            f"is none of the roles {plan.product} {low.version} accepts "
                            f"({', '.join(roles)}): KVTransferConfig refuses it and vLLM "
                            "does not start", nearest_hint(role, roles)
                            or f"one of: {', '.join(roles)}", on_value=True)


def connector_configs(value: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The config and, for a ``MultiConnector``, each child config it builds."""
    out = [value]
    if value.get("kv_connector") == MULTI:
        extra = value.get("kv_connector_extra_config")
        children = extra.get("connectors") if isinstance(extra, dict) else None
        if isinstance(children, list):
            out += [c for c in children if isinstance(c, dict)]
    return out


def _connector(name: str, plan: VersionPlan, at: int,
               known: Mapping[str, KvTransferRelease]) -> Iterator[FlagIssue]:
    assert plan.minimum is not None
    low = plan.minimum.version
    here = known[low].connectors
    what = f"kv_connector `{name}` (`{OPTION}`)"
    if name in here:
        found = [v for v in plan.checked if v in known and name not in known[v].connectors]
        if found:
            yield FlagIssue("range_rejected", at, f"{what} is not registered by "
                            f"{plan.product} {release_runs(found, plan.checked)}, {len(found)} "
                            f"release{'s' if len(found) != 1 else ''} (\"Unsupported connector "
                            f"type\" there), inside the install range {plan.range_label} the "
                            "recipe claims", nearest_hint(name, sorted(known[found[0]].connectors))
                            or "pin an install path below the first release that drops it",
                            on_value=True)
        return
    window = [str(v) for v in versions(plan.cli)]
    registering = [v for v in window if v in known and name in known[v].connectors]
    later = [v for v in registering if Version(v) > Version(low)]
    if later and len(later) == len(registering):
        yield FlagIssue("kv_transfer", at, f"{what} is registered only from {plan.product} "
                        f"{later[0]}, but {plan.short_of()}",
                        plan.raise_to(required_vllm(plan.cli, later[0])), on_value=True,
                        floor=True)
        return
    hint = nearest_hint(name, sorted(here))
    if not registering and plan.launch_day:
        return  # a connector no release has yet: unverifiable on launch day
    if not registering and plan.unreleased \
            and not close_matches(name, tuple(sorted(here)), n=1, cutoff=0.6):
        yield FlagIssue("unreleased_only", at, f"{what} is a KV connector no vendored "
                        f"{plan.product} release registers; " + unverifiable_by(
                            plan, "a nightly, source or launch-image install"),
                        hint, on_value=True)
        return
    yield FlagIssue("kv_transfer", at, _unregistered(name, plan, known, registering),
                    hint or f"one of: {', '.join(sorted(here))}", on_value=True)


def _unregistered(name: str, plan: VersionPlan, known: Mapping[str, KvTransferRelease],
                  registering: list[str]) -> str:
    """The message of a connector the minimum does not register: the releases of the
    install range that refuse it, and where it is registered at all."""
    assert plan.minimum is not None
    span = [plan.minimum.version, *plan.checked]
    refusing = [v for v in span if v in known and name not in known[v].connectors]
    runs = release_runs(refusing, span)
    window = [str(v) for v in versions(plan.cli)]
    where = (f" (registered by {release_runs(registering, window)})"
             if registering else " (no vendored release registers it)")
    return (f"kv_connector `{name}` (`{OPTION}`) is not registered by {plan.product} "
            f"{runs}{where}: KVConnectorFactory refuses it (\"Unsupported connector type\") "
            "and vLLM does not start")
