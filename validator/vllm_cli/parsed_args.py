"""What a parse of one ``vllm serve`` argument list gives, and how vLLM reads its values.

The option table the parse reads (:class:`CliSpec`, :class:`OptionSpec`), the result
(:class:`ParsedArgs` of :class:`ParsedOption` and :class:`ArgProblem`) and the JSON
reading of option values (whole values and dotted keys). The walk over the argument
list that produces it is :func:`validator.vllm_cli.argv.parse_args`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class OptionSpec(Protocol):
    """What the parser needs to know about one option (a registry ``CliOption``)."""

    @property
    def strings(self) -> tuple[str, ...]: ...
    @property
    def dest(self) -> str: ...
    @property
    def takes_value(self) -> bool: ...
    @property
    def nargs(self) -> str | None: ...
    @property
    def choices(self) -> tuple[str, ...] | None: ...
    @property
    def is_json(self) -> bool: ...
    @property
    def deprecated(self) -> bool: ...


class CliSpec(Protocol):
    """The option table of one vLLM release (a registry ``CliRegistry``)."""

    @property
    def version(self) -> str: ...
    @property
    def dotted_keys(self) -> bool: ...
    def normalise(self, option: str) -> str: ...
    def lookup(self, option: str) -> Any: ...
    def abbreviations(self, prefix: str) -> list[str]: ...


class Problem(enum.StrEnum):
    """Kinds of trouble the parser model finds in one argument list."""

    UNKNOWN = "unknown"                  # no such option (argparse: unrecognized arguments)
    AMBIGUOUS = "ambiguous"              # prefix of several options (argparse error)
    ABBREVIATION = "abbreviation"        # unique prefix accepted by argparse
    UNDERSCORE = "underscore"            # spelled with underscores, normalised by vLLM
    MISSING_VALUE = "missing_value"      # value-taking option without a value
    SWITCH_VALUE = "switch_value"        # a value given to a switch
    STRAY = "stray"                      # a bare token no option consumes
    DOTTED_NO_VALUE = "dotted_no_value"  # dotted key whose value is the next flag
    DOTTED_UNSUPPORTED = "dotted_unsupported"  # release without dotted-key support
    DOTTED_NOT_JSON = "dotted_not_json"  # dotted key on an option that is not JSON-valued


@dataclass(frozen=True)
class ArgProblem:
    """One problem at token ``index`` of the list (``value_index``: the token it concerns
    when that is a value, e.g. the value given to a switch)."""

    kind: Problem
    index: int
    message: str
    value_index: int | None = None
    option: ParsedOption | None = None


@dataclass(frozen=True)
class ParsedOption:
    """One option occurrence.

    Attributes:
        index: position of the option token in the list.
        written: the option as written, without any ``=value`` (``--max_model_len``).
        normalised: after vLLM's underscore rewrite (``--max-model-len``); for a dotted key
            the part before the first ``.``.
        option: the option string it resolves to in the release (after abbreviation), or
            ``None`` when the release has no such option.
        spec: the release's entry for it, or ``None``.
        keys: dotted JSON key path (``("method",)`` for ``--speculative-config.method``).
        append: dotted key written with a trailing ``+`` (list append).
        values: the value tokens (empty for a switch); ``value_indexes`` their positions
            (an inline ``=value`` has the option's own index).
        inline: the value was written as ``--flag=value``.
    """

    index: int
    written: str
    normalised: str
    option: str | None
    spec: OptionSpec | None
    keys: tuple[str, ...] = ()
    append: bool = False
    values: tuple[str, ...] = ()
    value_indexes: tuple[int, ...] = ()
    inline: bool = False

    @property
    def value(self) -> str | None:
        """The (last) value, ``None`` for switches and missing values."""
        return self.values[-1] if self.values else None

    @property
    def value_at(self) -> int:
        """The position of the (last) value token, the option's own for ``--flag=value``
        or a switch: where a finding about the value points."""
        return self.value_indexes[-1] if self.value_indexes else self.index

    @property
    def ident(self) -> str:
        """What makes two occurrences "the same option": the destination (or the option
        string when unknown) plus the dotted key path."""
        base = self.spec.dest if self.spec is not None else (self.option or self.normalised)
        return ".".join((base, *self.keys))

    @property
    def dest(self) -> str:
        """The argparse destination, or the normalised spelling for unknown options."""
        return self.spec.dest if self.spec is not None else self.normalised

    @property
    def display(self) -> str:
        """The option as a reader knows it (canonical string plus dotted keys)."""
        return ".".join((self.option or self.normalised, *self.keys))


@dataclass
class ParsedArgs:
    """The result of :func:`~validator.vllm_cli.argv.parse_args`: options in order,
    positionals and problems."""

    tokens: tuple[str, ...]
    options: list[ParsedOption] = field(default_factory=list)
    positionals: list[tuple[int, str]] = field(default_factory=list)
    problems: list[ArgProblem] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)
    """Tokens not judged (``expansions`` of :func:`~validator.vllm_cli.argv.parse_args`)."""

    def find(self, *dests: str) -> list[ParsedOption]:
        """Occurrences whose destination is one of ``dests`` (argparse ``dest`` names,
        e.g. ``"tool_call_parser"``), in order."""
        return [o for o in self.options if o.dest in dests]

    def has(self, dest: str) -> bool:
        """Whether any occurrence sets ``dest``."""
        return any(o.dest == dest for o in self.options)

    def json_value(self, dest: str) -> tuple[dict[str, Any] | None, list[ParsedOption]]:
        """The JSON object vLLM ends up with for ``dest`` and the occurrences it came from.

        Mirrors ``FlexibleArgumentParser``: dotted keys are merged into one dict which is
        appended after every other argument, so it replaces (not merges with) a whole
        ``--option '<json>'``; otherwise the last whole value wins. Values that are not
        JSON objects yield ``None``.
        """
        whole = [o for o in self.options if o.dest == dest and not o.keys]
        dotted = [o for o in self.options if o.dest == dest and o.keys]
        if dotted:
            merged: dict[str, Any] = {}
            for o in dotted:
                if o.value is not None:
                    _merge(merged, o.keys, dotted_value(o.value, o.append))
            return merged, dotted
        if whole and whole[-1].value is not None:
            try:
                value = parse_json(whole[-1].value)
            except ValueError:
                return None, whole[-1:]
            return (value if isinstance(value, dict) else None), whole[-1:]
        return None, []


def key_setter(sources: Sequence[ParsedOption], key: str) -> ParsedOption | None:
    """Of the occurrences a JSON value came from (:meth:`ParsedArgs.json_value`), the one
    that sets its top-level ``key``: the whole value, else the last dotted ``key`` option
    (``None`` when none does)."""
    keyed = [o for o in sources if not o.keys or o.keys[0] == key]
    return keyed[-1] if keyed else None


def _merge(target: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    node = target
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    last = keys[-1]
    if isinstance(value, list) and isinstance(node.get(last), list):
        node[last] = node[last] + value
    else:
        node[last] = value


#: Option names whose value vLLM parses as JSON (config dataclasses via
#: ``TypeAdapter(cls).validate_json``, dicts via ``json.loads``) in every release that has
#: them; a registry's own ``is_json`` flag is trusted when set, these fill its gaps.


def json_valued(spec: OptionSpec) -> bool:
    """Whether ``spec`` takes a JSON value (and so accepts dotted keys), as the vendored
    registry records it (decided from the option's ``type`` callable in that release)."""
    return bool(spec.is_json)


def parse_json(text: str) -> Any:
    """``json.loads(text)``, with nesting too deep for Python's parser (``RecursionError``,
    about 1,000 levels: vLLM's own ``json.loads`` fails the same way) reported as
    :class:`json.JSONDecodeError` too, so one ``except ValueError`` handles both.

    Raises:
        json.JSONDecodeError: not JSON, or nested too deeply (``msg`` says which).
    """
    if _nesting_bound(text) > JSON_DEPTH_LIMIT and _nesting_depth(text) > JSON_DEPTH_LIMIT:
        raise json.JSONDecodeError("nested too deeply to parse", text, 0)
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to parse", text, 0) from None


JSON_DEPTH_LIMIT = 900
"""Nesting deeper than this is "too deep to parse" whatever the interpreter's recursion
limit is at the time (``json.loads`` fails near the limit of 1,000, less the frames
already on the stack; a test framework may raise the limit for a while): the same
verdict in every process."""


def _nesting_bound(text: str) -> int:
    """An upper bound of the nesting depth of ``text``: each level opens a ``[`` or ``{``
    (counted at C speed, so the exact scan below runs only for a value that might be
    deep, as the loader's pre-scan test does for YAML)."""
    return text.count("[") + text.count("{")


def _nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text`` (outside strings)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped = char == "\\"
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def dotted_value(text: str, append: bool = False) -> Any:
    """How vLLM reads the value of a dotted key: ``json.loads`` and, when that fails, the
    string itself (0.10-0.2x) — newer releases also try ``human_readable_int`` (``80g``).
    With a trailing ``+`` the value is split on commas into a list."""
    if append:
        text = json.dumps(text.split(","))
    try:
        return parse_json(text)
    except ValueError:
        return text
