"""Argument lists with provenance: last-wins de-duplication, shell quoting, formatting.

Every argument the renderer emits is an :class:`Arg`: its value plus where it came from
(the layer, the document and the JSON Pointer of the YAML node), so that after the site's
"last occurrence of a flag wins" de-duplication each surviving argv token still knows its
source line.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from validator.render import jsval

_BARE_VAR = re.compile(r"\$[A-Z_][A-Z0-9_]*")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")
LINE_JOIN = " \\\n  "
"""Separator between the lines of a rendered command (backslash continuation, 2 spaces)."""


class Arg(NamedTuple):
    """One argument and its origin.

    Attributes:
        value: the value as the YAML holds it (normally a string).
        layer: the source layer (``model.base_args``, ``strategy:multi_node_tp`` ...).
        document: path of the document it came from ("" when synthesized from nothing).
        pointer: JSON Pointer of the YAML node inside ``document``.
    """

    value: Any
    layer: str
    document: str
    pointer: str


def push_layer(out: list[Arg], value: Any, layer: str, document: str, pointer: str) -> None:
    """``if (value) out.push(...value)``: append a YAML list (or, as JS spreads it, the
    characters of a string) with per-item provenance.

    Raises:
        jsval.JsTypeError: ``value`` is truthy but not iterable.
    """
    if not jsval.truthy(value):
        return
    items = jsval.spread(value, layer, pointer, document)
    if isinstance(value, list):
        # an index needs no RFC 6901 escaping: "{pointer}/{i}" is join_pointer(pointer, i)
        out.extend([Arg(v, layer, document, f"{pointer}/{i}") for i, v in enumerate(items)])
    else:
        out.extend(Arg(v, layer, document, pointer) for v in items)


class Override(NamedTuple):
    """A flag unit the last-wins de-duplication drops, and the later unit that wins."""

    dropped: Arg
    dropped_value: Arg | None
    winner: Arg
    winner_value: Arg | None


def dedupe(args: list[Arg]) -> list[Arg]:
    """Keep only the last occurrence of each flag (with its value); positionals stay.

    A flag followed by a non-flag is one unit (flag, value); a flag followed by another
    flag, or last, stands alone.
    """
    return dedupe_traced(args)[0]


def dedupe_traced(args: list[Arg]) -> tuple[list[Arg], list[Override]]:
    """:func:`dedupe` and the :class:`Override` of every unit it drops."""
    return planned(args, dedupe_plan([a.value for a in args]))


Plan = tuple[tuple[int, ...], tuple[tuple[int, int, int, int], ...]]
"""What a de-duplication keeps and drops, by index into the values it was made from: the
indices kept, in order, and per :class:`Override` the indices of its four arguments
(``-1`` for a unit without a value)."""


def dedupe_plan(values: list[Any] | tuple[Any, ...]) -> Plan:
    """:func:`dedupe_traced` of arguments with these values, by index: it reads nothing of
    an argument but its value."""
    return _dedupe_plan(values, range(len(values)))


def final_plan(values: tuple[Any, ...]) -> Plan:
    """:func:`final_args_traced` of arguments with these values, by index into them."""
    return _dedupe_plan(values, [i for i, v in enumerate(values) if jsval.truthy(v)])


def planned(args: list[Arg], plan: Plan) -> tuple[list[Arg], list[Override]]:
    """The arguments a :data:`Plan` made from ``args``' values keeps, and its overrides."""
    kept, dropped = plan
    return [args[i] for i in kept], [
        Override(args[a], None if b < 0 else args[b], args[c], None if d < 0 else args[d])
        for a, b, c, d in dropped]


def _dedupe_plan(values: list[Any] | tuple[Any, ...], at: Any) -> Plan:
    """The de-duplication of ``values`` at the indices ``at`` (in order)."""
    units: list[tuple[int, int, bool]] = []  # (head, value or -1, positional)
    append = units.append
    flag = [False] * len(values)  # whether each value at ``at`` is a flag, found once
    for i in at:
        v = values[i]
        flag[i] = isinstance(v, str) and v.startswith("-")
    heads = [values[i] for i in at if flag[i]]  # every flag heads a unit
    if len(set(heads)) == len(heads):  # no flag twice: every unit is kept, in order
        return tuple(at), ()
    i, n = 0, len(at)
    while i < n:
        cur = at[i]
        if flag[cur]:
            nxt = at[i + 1] if i + 1 < n else -1
            if nxt >= 0 and not flag[nxt]:
                append((cur, nxt, False))
                i += 2
                continue
            append((cur, -1, False))
        else:
            append((cur, -1, True))
        i += 1
    seen: dict[str, int] = {}
    keep = [False] * len(units)
    overrides: list[tuple[int, int, int, int]] = []
    for index in range(len(units) - 1, -1, -1):
        head, value, positional = units[index]
        if positional:
            keep[index] = True
        elif values[head] not in seen:
            seen[values[head]] = index
            keep[index] = True
        else:
            winner, winner_value, _ = units[seen[values[head]]]
            overrides.append((head, value, winner, winner_value))
    out: list[int] = []
    for index, (head, value, _) in enumerate(units):
        if keep[index]:
            out.append(head)
            if value >= 0:
                out.append(value)
    overrides.reverse()
    return tuple(out), tuple(overrides)


def shell_quote(value: Any) -> Any:
    """Single-quote a value with shell-special characters; bare ``$VAR`` stays unquoted."""
    if not isinstance(value, str) or value == "":
        return value
    if _BARE_VAR.fullmatch(value) or _SHELL_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def final_args(args: list[Arg]) -> list[Arg]:
    """``dedupe(args.filter(Boolean))``: what both the command and the argv are built from."""
    return dedupe([a for a in args if jsval.truthy(a.value)])


def final_args_traced(args: list[Arg]) -> tuple[list[Arg], list[Override]]:
    """:func:`final_args` and the overrides its de-duplication resolves."""
    return planned(args, final_plan(tuple(a.value for a in args)))


def format_command(args: list[Arg], model_id: Any, binary: str = "vllm serve") -> str:
    """The paste-ready command: each flag on its own line with its (quoted) value.

    Raises:
        jsval.JsTypeError: a non-string argument (the site's renderer throws there).
    """
    return command_of(final_args(args), model_id, binary)


def command_of(filtered: list[Arg], model_id: Any, binary: str = "vllm serve") -> str:
    """:func:`format_command` of arguments already through :func:`final_args`."""
    if not filtered:
        return f"{binary} {jsval.js_str(model_id)}"
    lines: list[str] = []
    i = 0
    while i < len(filtered):
        cur = filtered[i].value
        nxt = filtered[i + 1].value if i + 1 < len(filtered) else None
        _require_string(filtered[i])
        if cur.startswith("-") and nxt is not None:
            _require_string(filtered[i + 1])
        if cur.startswith("-") and nxt is not None and not nxt.startswith("-"):
            lines.append(f"{cur} {jsval.js_str(shell_quote(nxt))}")
            i += 2
        else:
            lines.append(cur)
            i += 1
    return f"{binary} {jsval.js_str(model_id)}{LINE_JOIN}{LINE_JOIN.join(lines)}"


def _require_string(arg: Arg) -> None:
    if not isinstance(arg.value, str):
        kind = "a list" if isinstance(arg.value, list) else "a mapping" if isinstance(
            arg.value, dict) else f"the {type(arg.value).__name__} {jsval.js_str(arg.value)}"
        raise jsval.JsTypeError(
            f"{arg.layer} holds {kind} where the command needs a string "
            "(the site's renderer calls .startsWith on it and throws); quote it",
            arg.document, arg.pointer)


LEAD = [Arg("vllm", "vllm", "", ""), Arg("serve", "vllm", "", "")]


def format_argv(args: list[Arg], model: Arg) -> list[Arg]:
    """``["vllm", "serve", MODEL, ...deduped args]`` with provenance for every token."""
    return [*LEAD, model, *final_args(args)]
