"""``--additional-config`` keys of a vLLM-Ascend command judged against the release the
plan installs (``config_key_rejected`` / ``config_key_ignored`` / ``unreleased_only``
issues of :func:`validator.analysis.flag_engine.check_tokens`)."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from validator.analysis.arg_layers import ASCEND
from validator.analysis.cli_plan import VersionPlan, first_version, last_version, unverifiable_by
from validator.analysis.flag_values import FlagIssue
from validator.analysis.option_hints import nearest_hint
from validator.vllm_cli import parsed_args
from validator.vllm_cli.parsed_args import ParsedArgs


def additional_config_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """Top-level ``--additional-config`` keys the vLLM-Ascend release of ``plan`` does not
    read: ``config_key_rejected`` where its typed config forbids unknown keys (startup
    fails), else ``config_key_ignored``. Nothing for other CLIs (vLLM-Omni's reads are
    per model, not one platform-wide set). The issue is on the value token (the option
    token for a dotted key)."""
    reg = plan.minimum
    info = reg.plugin if reg is not None else None
    if plan.family != ASCEND or reg is None or info is None or not info.additional_config_keys:
        return
    code = "config_key_rejected" if info.additional_config_strict else "config_key_ignored"
    for opt in parsed.find("additional_config"):
        if opt.keys:
            keys, at = [opt.keys[0]], opt.index
        else:
            try:
                value = parsed_args.parse_json(opt.value or "")
            except ValueError:
                continue  # FLAG007 / GUIDE reports it
            keys = list(value) if isinstance(value, dict) else []
            at = opt.value_at
        for key in keys:
            if key in info.additional_config_keys:
                continue
            first = first_version(plan.cli, "additional_config", key, plan.family)
            if first is None and plan.launch_day:
                # read by no release yet: unverifiable on launch day; in a channel of its
                # own (a launch or community image), an info naming it (check_tokens drops
                # it when the recipe's launch-day note says so once)
                yield FlagIssue("unreleased_only", at, f"`--additional-config` key `{key}` "
                                f"is read by no vendored {plan.product} release; "
                                + unverifiable_by(plan, "a nightly, source or launch-image "
                                                   "install"),
                                nearest_hint(key, sorted(info.additional_config_keys)),
                                on_value=not opt.keys)
                continue
            if first is not None and Version(first) > Version(reg.version):
                why = f"is read only from {plan.product} {first}"
            elif first is not None:
                why = (f"is not read by {plan.product} {reg.version} (read by {first} to "
                       f"{last_version(plan.cli, 'additional_config', key, plan.family)})")
            else:
                why = f"is not read by any vendored {plan.product} release"
            if info.additional_config_strict:
                why += f"; {plan.product} {reg.version} refuses unknown keys and does not start"
            yield FlagIssue(code, at, f"`--additional-config` key `{key}` {why}",
                            nearest_hint(key, sorted(info.additional_config_keys)),
                            on_value=not opt.keys)  # a dotted key is in the flag's name
