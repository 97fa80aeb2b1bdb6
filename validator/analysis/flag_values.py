"""What the ``FLAG`` engine reports (:class:`FlagIssue`) and how it judges a value:
JSON values by each release's own type (``json_takes_string``, ``parses_json`` in the
vendored registry), the token a value finding points at, parser-plugin options."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from validator.vllm_cli import argv, parsed_args
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption

#: A parser plugin file registers its own parser names: their values are not checked.
PLUGIN_OPTIONS = {"tool_call_parser": "tool_parser_plugin",
                   "reasoning_parser": "reasoning_parser_plugin"}
_PLUGIN_DESTS = frozenset(PLUGIN_OPTIONS.values())


#: Every :attr:`FlagIssue.code`: the engine's (:func:`~validator.analysis.flag_engine.check_tokens`)
#: and ``auto_tool`` of a rendered command (:mod:`validator.analysis.rendered_commands`). The rule
#: maps of the ``FLAG`` and ``GUIDE`` families are checked against it.
ISSUE_CODES = frozenset({
    "unknown", "newer", "removed", "missing_value", "switch_value", "choice", "json",
    "spec_tokens", "spec_method", "spec_key", "dotted", "duplicate", "underscore", "abbreviation",
    "config_key_ignored", "config_key_rejected", "range_rejected", "unreleased_only",
    "auto_tool", "value_type", "eplb_without_ep", "kv_transfer", "spec_refused",
    "refused_pair", "config_value", "kv_extra"})


@dataclass(frozen=True)
class FlagIssue:
    """One problem in one argument list.

    ``code`` is one of ``unknown``, ``newer``, ``removed``, ``missing_value``,
    ``switch_value``, ``choice``, ``json``, ``spec_tokens``, ``spec_method`` / ``spec_key`` (a
    speculative ``method`` / top-level key the minimum rejects), ``dotted``, ``duplicate``,
    ``underscore``, ``abbreviation``, ``config_key_ignored``, ``config_key_rejected``,
    ``range_rejected`` (accepted at the minimum, rejected by a release of the install
    range), ``unreleased_only`` (in no vendored release; the recipe installs unreleased
    code), ``value_type`` (a value the option's argparse type refuses), ``auto_tool`` and
    ``eplb_without_ep`` (a switch without the one it needs, in a whole command),
    ``kv_transfer`` (a KV connector or role of ``--kv-transfer-config`` the minimum refuses),
    ``spec_refused`` (a speculative config whose values the minimum refuses together),
    ``refused_pair`` (two options' values a release of the plan refuses together, in a
    whole command: :mod:`validator.analysis.paired_values`), ``config_value`` (a key or
    value of a config option the minimum's config class refuses:
    :mod:`validator.analysis.config_values`), ``kv_extra`` (a ``kv_connector_extra_config``
    value the minimum's connector misreads or refuses: :mod:`validator.analysis.kv_extra_config`);
    ``index`` the token it is about; ``on_value``: the issue judges the option's value,
    so a finding about a ``--flag=value`` token points at the value after ``=``;
    ``consequences``: (token, what happens there) for each issue this one causes at another
    token, folded into it (:mod:`validator.analysis.flag_cascade`): one defect, one finding,
    the consequences its related locations; ``floor``: the token is accepted from a later
    release than the plan's minimum, so raising the minimum fixes it (the finding's
    :data:`~validator.findings.FLOOR` reason).
    """

    code: str
    index: int
    message: str
    hint: str | None = None
    related_index: int | None = None
    on_value: bool = False
    consequences: tuple[tuple[int, str], ...] = ()
    floor: bool = False

    def __post_init__(self) -> None:
        if self.code not in ISSUE_CODES:
            raise ValueError(f"unknown issue code {self.code!r}: add it to ISSUE_CODES "
                             "and to the FLAG and GUIDE rule maps")


_SHELL_VAR = re.compile(r"\$(?:\{\w+\}|\w+)")


def json_shape_ok(option: str, value: str,
                   takes_string: bool | None = None) -> tuple[bool, str]:
    """Whether ``value`` is acceptable for a JSON-valued option (see FLAG007).

    ``takes_string`` is the release's own answer (``CliOption.json_takes_string``): a
    plain string is accepted only where the option's type is a dict-or-string union;
    ``None`` (not recorded) falls back to the option's name."""
    text = value.strip()
    if text in ("", "None") or text.startswith("$"):
        return True, ""
    if "$" in text:  # shell variables expand before vLLM sees the value
        text = _SHELL_VAR.sub("0", text)
    try:
        parsed = parsed_args.parse_json(text)
    except json.JSONDecodeError as exc:
        looks_json = text.startswith(("{", "["))
        if takes_string is False and not looks_json:
            return False, ("is not JSON, and this release parses the value with a JSON "
                           "type that takes no plain string")
        if looks_json or (takes_string is None
                          and option.endswith(("-config", "-kwargs", "overrides"))):
            return False, f"is not valid JSON ({exc.msg} at column {exc.colno})"
        return True, ""  # dict-or-str options (union_dict_and_str) take plain strings
    if option.endswith("-config") and not isinstance(parsed, dict):
        if option == "--compilation-config" and isinstance(parsed, int):
            return True, ""  # an optimisation level (-O3 shorthand)
        return False, f"is JSON {type(parsed).__name__}, not a JSON object"
    return True, ""


def value_at(opt: ParsedOption) -> tuple[int, ...]:
    """The token index of each value of ``opt`` (a finding about a value points at it)."""
    if len(opt.value_indexes) == len(opt.values):
        return opt.value_indexes
    return (opt.index,) * len(opt.values)


def custom_json(spec: object) -> bool:
    """A custom type of an old release that decodes JSON (not ``is_json``)."""
    return getattr(spec, "parses_json", None) is True


def takes_string(spec: object) -> bool | None:
    """Whether the release's type of a JSON option takes a plain string (``None``: not
    recorded); a custom JSON type takes none."""
    if custom_json(spec) and not parsed_args.json_valued(spec):  # type: ignore[arg-type]
        return False
    found = getattr(spec, "json_takes_string", None)
    return found if isinstance(found, bool) else None


def plugged(parsed: ParsedArgs) -> set[str]:
    """Parser options whose names a parser plugin file of the same list registers (a
    plugin in another list of the same rendered command: :func:`plugin_in_words`)."""
    # one look at each option: only a plugin option's own, or one spelled like one, plugs
    near = [o for o in parsed.options if o.dest in _PLUGIN_DESTS or "parser-plugin" in o.normalised]
    return {dest for dest, plugin in PLUGIN_OPTIONS.items()
            if any(o.dest == plugin or _plugs(o.normalised, dest) for o in near)}


def plugin_in_words(words: Sequence[str], dest: str) -> bool:
    """Whether a command's words set the parser plugin option of parser option ``dest``
    (``--tool-parser-plugin`` for ``tool_call_parser``), as :func:`plugged` reads it."""
    return any(w.startswith("--") and _plugs(argv.normalise(w.split("=", 1)[0]), dest)
               for w in words)


def _plugs(normalised: str, dest: str) -> bool:
    """Whether option ``normalised`` (``--tool-parser-plugin``) is the plugin option of
    parser option ``dest``."""
    return "parser-plugin" in normalised and dest.split("_")[0] in normalised


_SWITCHED_OFF = ("--no-", "--disable-")
"""How the option strings that turn a switch off begin (``--no-enable-eplb``,
``--disable-expert-parallel``)."""


def switched_on(parsed: ParsedArgs, dest: str) -> ParsedOption | None:
    """The occurrence that leaves switch ``dest`` on (the last one, argparse's last wins),
    or ``None`` when it is not set or its last occurrence turns it off."""
    found = parsed.find(dest)
    if found and not (found[-1].option or "").startswith(_SWITCHED_OFF):
        return found[-1]
    return None


def eplb_issues(parsed: ParsedArgs) -> list[FlagIssue]:
    """``--enable-eplb`` without ``--enable-expert-parallel`` in one whole command (a
    rendered one): vLLM's ``ParallelConfig`` refuses it ("enable_expert_parallel must be
    True to use EPLB") in every release that has the flag."""
    eplb = switched_on(parsed, "enable_eplb")
    if eplb is None or switched_on(parsed, "enable_expert_parallel") is not None:
        return []
    return [FlagIssue("eplb_without_ep", eplb.index, f"{eplb.option} without "
                      "--enable-expert-parallel: vLLM refuses to start (the load balancer "
                      "moves the experts of expert parallelism)",
                      "offer the feature only with expert-parallel strategies (its "
                      "`strategies:` list) or add --enable-expert-parallel to it")]


def auto_tool_issues(parsed: ParsedArgs) -> list[FlagIssue]:
    """``--enable-auto-tool-choice`` without ``--tool-call-parser`` in one whole command
    (a rendered one: the layers and the guide judge it their own ways)."""
    if parsed.has("tool_call_parser"):
        return []
    return [FlagIssue("auto_tool", opt.index, "--enable-auto-tool-choice without "
                      "--tool-call-parser in the rendered command: vLLM refuses to start",
                      "add --tool-call-parser <name> where the flag is set")
            for opt in parsed.find("enable_auto_tool_choice")
            if not (opt.option or "").startswith("--no-")]
