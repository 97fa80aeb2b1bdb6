"""Verdicts on one ``VLLM_*`` environment variable against one
:class:`~validator.analysis.cli_plan.VersionPlan`: not read at the plan's minimum, read
only from a later release, no longer read (:func:`env_issue`), or unverifiable in a
channel no vendored release describes (:func:`env_unverifiable`). The FLAG and GUIDE
rules that turn them into findings call these."""

from __future__ import annotations

from packaging.version import Version

from validator.analysis.cli_plan import (
    VersionPlan,
    first_version,
    first_without,
    last_version,
    required_vllm,
    unverifiable_by,
)
from validator.analysis.option_hints import nearest_hint


def env_issue(name: str, plan: VersionPlan) -> tuple[str, str | None] | None:
    """Why ``VLLM_*`` variable ``name`` is not read at ``plan`` (or was removed since),
    with a hint; ``None`` when it is fine or cannot be judged."""
    reg, top = plan.minimum, plan.newest
    if reg is None or not reg.env_vars or not name.startswith("VLLM_"):
        return None
    fam, prod = plan.family, plan.product
    if reg.reads_env(name):
        if top is not None and top.env_vars and not top.reads_env(name):
            gone = first_without(plan.cli, "env", name, reg.version, fam)
            return f"`{name}` is no longer read from {prod} {gone or top.version}", None
        return None
    first = first_version(plan.cli, "env", name, fam)
    if first is not None and Version(first) > Version(reg.version):
        return (f"`{name}` is read only from {prod} {first}, but {plan.short_of()}",
                plan.raise_to(required_vllm(plan.cli, first, fam)))
    if first is not None:
        return (f"`{name}` is not read by {prod} {reg.version} (read by {first} to "
                f"{last_version(plan.cli, 'env', name, fam)})", None)
    if plan.launch_day:
        return None  # read by no release yet: unverifiable on launch day (env_unverifiable)
    return (f"`{name}` is not an environment variable any vendored {prod} release reads",
            nearest_hint(name, _known_env(plan)))


def env_unverifiable(name: str, plan: VersionPlan) -> tuple[str, str | None] | None:
    """For a ``VLLM_*`` variable no vendored release reads, set for commands that run in
    a channel of their own no vendored release describes (:attr:`VersionPlan.channel`: a
    launch, nightly, community or dev image): that it cannot be verified there, naming
    the channel, with the nearest released name as a hint; else ``None`` (judged by
    :func:`env_issue`, or said once by a launch-day recipe's note)."""
    reg = plan.minimum
    if not (plan.launch_day and plan.channel is not None) or reg is None or not reg.env_vars \
            or not name.startswith("VLLM_") or reg.reads_env(name) \
            or first_version(plan.cli, "env", name, plan.family) is not None:
        return None
    return (f"`{name}` is not an environment variable any vendored {plan.product} release "
            "reads; " + unverifiable_by(plan, ""), nearest_hint(name, _known_env(plan)))


def _known_env(plan: VersionPlan) -> list[str]:
    """The variables the newest release of ``plan`` reads (for "did you mean")."""
    top = plan.newest
    return sorted(v for v in top.env_vars if not v.endswith("*")) if top is not None else []
