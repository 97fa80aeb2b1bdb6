"""Configuration: which rules run, their severities, per-file ignores and what fails a run.

The vocabulary is ruff's. A ``.recipe-check.toml`` at the recipes root, or a
``[tool.recipe-check]`` table in the root's ``pyproject.toml`` (the first of the two that
exists is used, as ruff prefers ``.ruff.toml`` over ``pyproject.toml``)::

    select = ["ALL"]                 # default: every rule
    extend-select = ["RC"]           # added to select
    ignore = ["FLAG012", "guide"]    # ids, family prefixes, or id prefixes; any case
    fail-on = "new"                  # pr: "new" (default) or "all" errors fail the run

    [severity]                       # per rule or family; "error", "warning" or "info"
    FLAG012 = "warning"

    [per-file-ignores]               # globs over repository-relative paths
    "models/legacy/**" = ["VER"]

A rule runs when the most specific selector matching its id is in ``select`` or
``extend-select`` rather than ``ignore`` (equal length: ``ignore`` wins), as ruff decides
between ``select = ["E"]`` and ``ignore = ["E501"]``. ``--select`` on the command line
replaces the file's ``select``; ``--extend-select`` and ``--ignore`` add to the file's.

A file that is not valid TOML, or has an unknown key, an unknown rule id or a bad value,
is a usage error naming the file and line (:class:`ConfigError`).
"""

from __future__ import annotations

import codecs
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from validator.atomic import read_input_file
from validator.errors import RecipeCheckError
from validator.findings import Severity
from validator.globs import GlobError, compile_glob, unclosed_class

CONFIG_FILES = (".recipe-check.toml", "pyproject.toml")
"""Files looked for at the recipes root, in order."""

ALWAYS_ERRORS = frozenset({"PROV001", "PROV002", "PROV003", "PROV005", "PROV006"})
"""Findings reported whatever the configuration (bytes that failed verification, a file
refused unread, a changed file that cannot be checked): neither ``select``/``ignore`` nor
``[severity]`` governs them, so a ``[severity]`` line naming one is a configuration error
rather than a setting that silently does nothing."""

TABLE = "recipe-check"
"""The table name under ``[tool]`` in ``pyproject.toml``."""

KEYS = ("select", "extend-select", "ignore", "severity", "per-file-ignores", "fail-on")
FAIL_ON = ("new", "all")
_SELECTOR = re.compile(r"^[A-Z]+[0-9]{0,3}$")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


class ConfigError(RecipeCheckError):
    """A configuration file or option is wrong: ``file:line: message``."""

    def __init__(self, where: str, line: int | None, message: str) -> None:
        self.where, self.line, self.message = where, line, message
        super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")


@dataclass(frozen=True)
class Config:
    """One run's rule configuration (the file's, with the command line's applied).

    Attributes:
        select: selectors of the rules to run (``None``: every rule).
        extend_select: selectors added to ``select``.
        ignore: selectors of rules not to run.
        severity: selector -> severity (most specific selector wins).
        per_file_ignores: ``(glob, selectors)`` pairs.
        fail_on: ``"new"``, ``"all"`` or ``None`` (the command's default).
        source: the file it was read from, or ``None``.
    """

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fail_on: str | None = None
    source: str | None = None

    def with_options(self, *, select: Sequence[str] = (), extend_select: Sequence[str] = (),
                     ignore: Sequence[str] = (), fail_on: str | None = None) -> Config:
        """This configuration with command-line options applied (see the module doc).

        Raises:
            ConfigError: an option names an unknown rule or family.
        """
        cli = "command line"
        return replace(
            self,
            select=tuple(_selectors(select, cli, None)) if select else self.select,
            extend_select=self.extend_select + tuple(_selectors(extend_select, cli, None)),
            ignore=self.ignore + tuple(_selectors(ignore, cli, None)),
            fail_on=fail_on or self.fail_on)


def known_ids() -> list[str]:
    """Every registered rule id."""
    from validator.rule_index import all_rules

    return [r.id for r in all_rules()]


def normalise_selector(text: str) -> str:
    """``text`` as a selector: stripped, upper case (ids are case-insensitive)."""
    return text.strip().upper()


def is_known_selector(selector: str, ids: Iterable[str] | None = None) -> bool:
    """Whether ``selector`` (normalised) is ``ALL``, or a family or id prefix of at least
    one registered rule (``FLAG``, ``FLAG01``, ``FLAG013``)."""
    if selector == "ALL":
        return True
    if not _SELECTOR.match(selector):
        return False
    return any(matches(selector, i) for i in (known_ids() if ids is None else ids))


def matches(selector: str, rule_id: str) -> bool:
    """Whether ``selector`` selects ``rule_id``: ``ALL``, or the same family and a prefix
    of the number (``REF`` and ``REF00`` select ``REF004``; ``RE`` selects nothing, so
    ``R`` cannot silence both ``REF`` and ``RC``)."""
    if selector == "ALL":
        return True
    letters = selector.rstrip("0123456789")
    return (rule_id.rstrip("0123456789") == letters
            and rule_id[len(letters):].startswith(selector[len(letters):]))


def specificity(selectors: Iterable[str], rule_id: str) -> int | None:
    """Length of the longest selector matching ``rule_id`` (``ALL`` counts 0), or ``None``."""
    best: int | None = None
    for s in selectors:
        if matches(s, rule_id):
            n = 0 if s == "ALL" else len(s)
            best = n if best is None or n > best else best
    return best


def _selectors(values: Iterable[Any], where: str, text: str | None) -> list[str]:
    """The selectors ``values`` name, each once, in order (so that a long list repeating
    ids costs what its distinct ids cost)."""
    out: dict[str, None] = {}
    valid: set[str] = set()  # the rules are imported only to judge a selector
    for value in values:
        if not isinstance(value, str):
            raise ConfigError(where, _line_of(text, repr(value)), f"{value!r} is not a string "
                              "(rule ids and family prefixes are strings)")
        sel = normalise_selector(value)
        if not value.strip():
            raise ConfigError(where, _line_of(text, value), "an empty rule id (an "
                              "empty value or a stray comma): name rule ids or families "
                              "(see 'recipe-check rules')")
        if sel != "ALL" and not valid:
            valid = {p for rule_id in known_ids() for p in _prefixes(rule_id)}
        if sel != "ALL" and sel not in valid:
            raise ConfigError(where, _line_of(text, value),
                              f"unknown rule or family {value!r} (see 'recipe-check rules')")
        out[sel] = None
    return list(out)


def _prefixes(rule_id: str) -> list[str]:
    """The selectors that select ``rule_id``, ``ALL`` aside: its family and each prefix of
    its number (``REF``, ``REF0``, ``REF00``, ``REF004``); see :func:`matches`."""
    letters = rule_id.rstrip("0123456789")
    return [rule_id[:n] for n in range(len(letters), len(rule_id) + 1)]


def _line_of(text: str | None, needle: str) -> int | None:
    """1-based line of the first quoted or bare occurrence of ``needle`` in ``text``."""
    if text is None:
        return None
    for pattern in (rf"[\"']{re.escape(needle)}[\"']", rf"(?<![\w-]){re.escape(needle)}(?![\w-])"):
        m = re.search(pattern, text)
        if m:
            return text.count("\n", 0, m.start()) + 1
    return None


def _list(value: Any, key: str, where: str, text: str | None) -> list[Any]:
    if not isinstance(value, list):
        example = f" ({key} = [{value!r}])".replace("'", '"') if isinstance(value, str) else ""
        raise ConfigError(where, _line_of(text, key), f"{key} must be a list of rule ids, "
                          f"not {type(value).__name__} {value!r}{example}")
    return value


def parse_table(table: Mapping[str, Any], where: str, text: str | None = None) -> Config:
    """The :class:`Config` of a parsed table; ``text`` (the file) is used for line numbers.

    Raises:
        ConfigError: unknown key, rule id, severity, glob list or ``fail-on`` value.
    """
    for key in table:
        if key not in KEYS:
            raise ConfigError(where, _line_of(text, key),
                              f"unknown key {key!r} (known: {', '.join(KEYS)})")
    select = None
    if "select" in table:
        select = tuple(_selectors(_list(table["select"], "select", where, text), where, text))
    severity: dict[str, Severity] = {}
    raw_sev = table.get("severity", {})
    if not isinstance(raw_sev, dict):
        raise ConfigError(where, _line_of(text, "severity"),
                          "severity must be a table of rule id = \"error\"|\"warning\"|\"info\"")
    written: dict[str, str] = {}  # selector -> how the file wrote it
    for sel, value in raw_sev.items():
        (norm,) = _selectors([sel], where, text)
        if norm in written:  # ids are case-insensitive: two spellings of one selector
            raise ConfigError(where, _line_of(text, sel), f"severity: {sel!r} and "
                              f"{written[norm]!r} name the same selector {norm} (ids are "
                              "case-insensitive); keep one")
        written[norm] = sel
        if value not in {s.value for s in Severity}:
            raise ConfigError(where, _line_of(text, sel), f"severity of {sel} must be "
                              f"\"error\", \"warning\" or \"info\", not {value!r}")
        if norm in ALWAYS_ERRORS and value != Severity.ERROR.value:
            raise ConfigError(where, _line_of(text, sel), f"the severity of {norm} cannot be "
                              "changed: findings about bytes that failed verification or "
                              "were refused unread are always errors; remove this line")
        severity[norm] = Severity(value)
    per_file: list[tuple[str, tuple[str, ...]]] = []
    raw_pfi = table.get("per-file-ignores", {})
    if not isinstance(raw_pfi, dict):
        raise ConfigError(where, _line_of(text, "per-file-ignores"),
                          "per-file-ignores must be a table of glob = [rule ids]")
    for glob, ids in raw_pfi.items():
        try:
            compile_glob(glob)
        except GlobError as exc:  # e.g. a class '[z-a]' with its range reversed
            raise ConfigError(where, _line_of(text, glob), f"per-file-ignores: {exc}") from exc
        if (at := unclosed_class(glob)) is not None:
            raise ConfigError(where, _line_of(text, glob), f"per-file-ignores: {glob!r}: the "
                              f"'[' at {at + 1} opens no class; write '[[]' for a literal '['")
        per_file.append((glob, tuple(_selectors(_list(ids, glob, where, text), where, text))))
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(where, _line_of(text, "fail-on"),
                          f"fail-on must be \"new\" or \"all\", not {fail_on!r}")
    return Config(select=select,
                  extend_select=tuple(_selectors(_list(table.get("extend-select", []),
                                                       "extend-select", where, text),
                                                 where, text)),
                  ignore=tuple(_selectors(_list(table.get("ignore", []), "ignore", where, text),
                                          where, text)),
                  severity=severity, per_file_ignores=tuple(per_file), fail_on=fail_on,
                  source=where)


MAX_TOML_NESTING = 64
"""How deep a configuration file's arrays, inline tables and dotted keys may nest
(``tomllib`` recurses once per level: a thousand levels are a ``RecursionError``)."""
_TOML_QUOTES = ('"""', "'''", '"', "'")


def _toml_nesting_problem(text: str) -> int | None:
    """The line where ``text`` nests deeper than :data:`MAX_TOML_NESTING` (``None``: it
    does not). Counts open ``[`` / ``{`` and the parts of a dotted key or table header
    outside strings and comments; the same text always gives the same answer, whatever
    the interpreter's recursion limit."""
    depth, line, i = 0, 1, 0
    dots = 0
    while i < len(text):
        ch = text[i]
        quote = next((q for q in _TOML_QUOTES if text.startswith(q, i)), None)
        if quote is not None:
            end = _string_end(text, i, quote)
            line += text.count("\n", i, end)
            i = end
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if ch == "\n":
            line, dots = line + 1, 0
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "." and not text[i - 1:i].isdigit():
            dots += 1
        if depth + dots > MAX_TOML_NESTING:
            return line
        i += 1
    return None


def _string_end(text: str, start: int, quote: str) -> int:
    """Index after the TOML string opened by ``quote`` at ``start`` (the end of the text
    if it is never closed: tomllib reports that)."""
    i = start + len(quote)
    while i < len(text):
        if quote[0] == '"' and text[i] == "\\":
            i += 2
            continue
        if text.startswith(quote, i):
            return i + len(quote)
        if len(quote) == 1 and text[i] == "\n":
            return i
        i += 1
    return len(text)


def parse_config(data: bytes, where: str) -> Config | None:
    """The configuration in file ``where``'s bytes; ``None`` for a ``pyproject.toml``
    without a ``[tool.recipe-check]`` table.

    Raises:
        ConfigError: not UTF-8, not TOML (with tomllib's line and column), or a bad table.
    """
    try:
        # a UTF-8 byte order mark (that some Windows editors write) is not TOML: dropped
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(where, None, f"not UTF-8 text ({exc.reason} at byte "
                          f"{exc.start})") from exc
    too_deep = _toml_nesting_problem(text)
    if too_deep is not None:
        raise ConfigError(where, too_deep, f"nested deeper than {MAX_TOML_NESTING} levels "
                          "(arrays, inline tables or dotted keys): not a configuration; "
                          "refused before parsing")
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_POSITION.search(str(exc))
        message = _TOML_POSITION.sub("", str(exc)).strip()
        line = int(m.group(1)) if m else None
        if m is None and message.endswith("(at end of document)"):
            message = message[:-len("(at end of document)")].rstrip() + " at the end of the file"
            line = max(1, len(text.splitlines()))
        raise ConfigError(where, line,
                          f"not valid TOML: {message}" + (f" (column {m.group(2)})" if m
                                                          else "")) from exc
    if Path(where).name == "pyproject.toml":
        tool = parsed.get("tool", {})
        if not isinstance(tool, dict):
            return None
        if TABLE not in tool:
            _refuse_near_miss(tool, where, text)
            return None
        table = tool[TABLE]
        if not isinstance(table, dict):
            raise ConfigError(where, _line_of(text, TABLE), "tool.recipe-check must be a table")
        return parse_table(table, where, text)
    return parse_table(parsed, where, text)


def _refuse_near_miss(tool: Mapping[str, Any], where: str, text: str) -> None:
    """A ``[tool.*]`` table spelt like ``recipe-check`` but not equal to it (``recipe_check``,
    ``RecipeCheck``) is read by nothing; rather than run every rule while its author believes
    them configured, name the table to use.

    Raises:
        ConfigError: such a table is there.
    """
    wanted = re.sub(r"[-_.]", "", TABLE)
    for name in tool:
        if re.sub(r"[-_.]", "", str(name)).lower() == wanted:
            raise ConfigError(where, _line_of(text, str(name)),
                              f"[tool.{name}] is not read: the table is [tool.{TABLE}]")


def load_config_file(path: Path) -> Config:
    """The configuration in ``path`` (``--config``); a ``pyproject.toml`` without the
    table gives the empty configuration.

    Raises:
        ConfigError: the file cannot be read or is wrong.
    """
    try:  # a regular file (through a link), bounded: never a FIFO or /dev/zero
        data = read_input_file(path)
    except OSError as exc:
        raise ConfigError(str(path), None, exc.strerror or str(exc)) from exc
    return parse_config(data, str(path)) or Config(source=str(path))


def find_config(read: Any, exists: Any, label: str = "",
                names: Sequence[str] = CONFIG_FILES) -> Config:
    """The configuration at a recipes root, read through a tree's ``read``/``exists``
    (a local checkout or a git revision): the first of ``names`` (default
    :data:`CONFIG_FILES`; ``pr`` passes the one ``--config`` names inside the repository)
    that exists and holds one, else the default :class:`Config`. ``exists`` should say whether the
    name is taken at all (a folder too): what is there and cannot be read is an error.

    Raises:
        ConfigError: the file found is wrong.
    """
    for name in names:
        if exists(name):
            where = (f"{label}{name}" if not label or label.endswith((":", "/"))
                     else f"{label}/{name}")
            try:
                data = read(name)
            except (OSError, RecipeCheckError) as exc:
                # a folder, FIFO or dangling link of that name: skipping it would run
                # every rule while its author believes them configured
                reason = getattr(exc, "strerror", None) or str(exc).removeprefix(f"{name}: ")
                raise ConfigError(where, None, f"cannot be read as a configuration file "
                                  f"({reason}); make it a TOML file or remove it") from exc
            found = parse_config(data, where)
            if found is not None:
                return found
    return Config()
