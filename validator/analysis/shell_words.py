"""What bash makes of the command the site prints (read by ``FLAG027``,
:mod:`validator.rules.flag.shell_changed_item`, and the rendered checks' words).

The site's shell command quotes each VALUE item (the item after a flag) with its
``shellQuote``, but prints every FLAG item (one starting with ``-``) as it is written. So
bash reads a flag item by its own rules: it splits it at whitespace (``FLAG020``), expands
braces (``{a,b}``, ``{1..3}``), removes quotes and backslashes, expands globs that match a
file, a leading ``~`` and command substitutions, and ends the command at ``;``, ``&``,
``|``, ``<``, ``>``, ``(``, ``)``, a backquote or a ``#`` that starts a word.

:func:`read_item` is a small model of those rules for one item (no shell is ever run on
recipe text); :func:`shell_words` gives the words of a whole rendered argument list, which
the rendered-command checks judge (:mod:`validator.analysis.rendered_commands`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from validator.render.args import shell_quote

#: One character of a word and whether it was quoted (quoted braces and globs are literal).
Char = tuple[str, bool]
_OPERATORS = {";": "a command separator", "&": "a background operator",
              "|": "a pipe", "<": "a redirection", ">": "a redirection",
              "(": "a subshell", ")": "a subshell"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
#: Every character :func:`read_item` may act on besides splitting at blanks (a line break,
#: quotes, a backslash, ``#``, the operators, a backquote, ``$(`` and ``${`` through their
#: ``(`` and ``{``, ``~``, braces and globs): an item with none of them is read as its
#: whitespace-split words, unchanged. ``$NAME`` alone changes nothing.
_SHELL_SPECIAL = frozenset("\n'\"\\#;&|<>()`~{*?[!")
HISTORY_CHANGE = ("`!` is history expansion in an interactive bash (where a copied "
                  "command is pasted): it puts an earlier command line of the user's here")
_NO_HISTORY_AFTER = frozenset(" \t\n\r=(")
"""The characters after which bash does not expand a ``!`` (``history_no_expand_chars``
and ``(`` of an extended glob), besides the end of the line."""


def history_expansion_at(text: str, i: int, *, in_double_quotes: bool = False) -> bool:
    """Whether the ``!`` at ``text[i]`` (unquoted or in double quotes) starts a history
    expansion in an interactive bash: it is followed by a character other than a blank,
    a line break, ``=`` or ``(`` (in double quotes, also other than the closing ``"``)."""
    if text[i] != "!" or i + 1 >= len(text):
        return False
    after = text[i + 1]
    return after not in _NO_HISTORY_AFTER and not (in_double_quotes and after == '"')
PLAIN_ITEMS_KEPT = 4096
"""How many distinct items :func:`_plain` remembers (least recently used dropped first):
a corpus run prints ~85,000 flag items, a few thousand of them distinct."""


@dataclass
class ShellReading:
    """How bash reads one item of the printed command.

    ``words`` are the arguments bash passes (up to where the command ends, see
    ``breaks``); ``changes`` what it did to the text besides splitting at whitespace;
    ``variables`` whether the item holds ``$NAME`` / ``${NAME}`` (expanded, usually meant).
    """

    words: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    breaks: str | None = None
    variables: bool = False

    @property
    def changed(self) -> bool:
        """Whether bash passes something else than the item's whitespace-split words."""
        return bool(self.changes) or self.breaks is not None


def _substitution(ch: str) -> str:
    return ("a backquote" if ch == "`" else "`$(`") + " runs a command (command substitution)"


def _note(out: ShellReading, change: str) -> None:
    if change not in out.changes:
        out.changes.append(change)


def read_item(item: str) -> ShellReading:
    """What bash makes of ``item`` printed unquoted in a command line."""
    reader = _ItemReader(item)
    reader.read()
    out = reader.out
    for word in reader.words:
        expanded = _braces(word)
        if len(expanded) > 1 or expanded[0] != word:
            _note(out, "braces expanded")
        for chars in expanded:
            if _globs(chars):
                _note(out, "a glob pattern, replaced by file names where files match it")
            out.words.append(_tilde_expanded(chars))
    return out


def flag_item_change(item: str) -> tuple[str, str] | None:
    """What bash does to a flag item (one starting with ``-``, which the site prints
    unquoted) and the words it then passes, or ``None`` when it passes the item's
    whitespace-split words unchanged (or ``item`` is no flag item): the one predicate of
    ``FLAG027`` and of ``render``'s warning line for such an item."""
    if not item.startswith("-"):
        return None
    reading = read_item(item)
    if not reading.changed:
        return None
    what = "; ".join(reading.changes + ([reading.breaks] if reading.breaks else []))
    return what, ", ".join(f"`{w}`" for w in reading.words) or "nothing"


_TILDE_PREFIX = re.compile(r"~([A-Za-z0-9_.][A-Za-z0-9_.-]*|[+-])?(?=/|$)")
_TILDE_HOMES = {"": "$HOME", "+": "$PWD", "-": "$OLDPWD", "root": "/root"}


def _tilde_expanded(chars: list[Char]) -> str:
    """The word as bash passes it: a leading unquoted tilde-prefix (``~``, ``~+``, ``~-``,
    ``~NAME`` up to the first ``/``) shown as what it becomes (``$HOME``, ``/root``,
    ``<home of NAME>``)."""
    text = "".join(c for c, _ in chars)
    m = _TILDE_PREFIX.match(text)
    if m is None or any(quoted for _, quoted in chars[:m.end()]):
        return text
    name = m.group(1) or ""
    return _TILDE_HOMES.get(name, f"<home of {name}>") + text[m.end():]


class _ItemReader:
    """Reads one item character by character as bash does: the words it splits it into
    (each character with whether it was quoted), what it changes, where it stops."""

    def __init__(self, item: str) -> None:
        self.item = item
        self.out = ShellReading()
        self.words: list[list[Char]] = []
        self.cur: list[Char] | None = None

    def read(self) -> None:
        """Read the whole item, or up to where bash ends the command."""
        i = 0
        while i < len(self.item):
            last = self._step(i)
            if last is None:
                return
            i = last + 1

    def push(self, ch: str, quoted: bool) -> None:
        """Add one character to the current word (starting one)."""
        self._word().append((ch, quoted))

    def _word(self) -> list[Char]:
        if self.cur is None:
            self.cur = []
            self.words.append(self.cur)
        return self.cur

    def _stop(self, why: str) -> None:
        self.out.breaks = why

    def _step(self, i: int) -> int | None:
        """Read the character at ``i`` (and what it opens); the index of the last one
        read, ``None`` where bash ends the command."""
        item, ch = self.item, self.item[i]
        if ch in " \t":
            self.cur = None
        elif ch == "\n":
            self._stop("a line break: bash ends the command there")
            return None
        elif ch == "'":
            return self._single_quoted(i)
        elif ch == '"':
            return self._double_quoted(i)
        elif ch == "\\":
            if i + 1 < len(item):
                self.push(item[i + 1], True)
                i += 1
            _note(self.out, "backslashes removed")
        elif (ends := self._ends_command(ch, i)) is not None:
            self._stop(ends)
            return None
        else:
            self._unquoted(ch, i)
        return i

    def _single_quoted(self, i: int) -> int | None:
        end = self.item.find("'", i + 1)
        if end < 0:
            self._stop("an unclosed `'`: bash reads on into the next lines")
            return None
        self._word().extend((c, True) for c in self.item[i + 1:end])
        _note(self.out, "quotes removed")
        return end

    def _double_quoted(self, i: int) -> int | None:
        end = _double_quoted(self.item, i, self.out, self.push)
        if self.out.breaks is not None:
            return None
        self._word()  # an empty "" is still a word
        _note(self.out, "quotes removed")
        return end

    def _ends_command(self, ch: str, i: int) -> str | None:
        """Why bash ends the command at ``ch`` (``None``: it does not)."""
        if ch == "#" and self.cur is None:
            return "`#` starts a comment: bash drops the rest of the command"
        if ch in _OPERATORS:
            return f"`{ch}` is {_OPERATORS[ch]} to bash: the command ends there"
        if ch == "`" or self.item.startswith("$(", i):
            return _substitution(ch)
        return None

    def _unquoted(self, ch: str, i: int) -> None:
        """An unquoted character that does not end the command."""
        item, out = self.item, self.out
        if ch == "$" and (item.startswith("${", i) or _NAME.match(item, i + 1)):
            out.variables = True
        elif ch == "~" and self.cur is None:
            _note(out, "a leading `~` or `~NAME` becomes a home directory (the user's, or "
                  "NAME's)")
        elif history_expansion_at(item, i):
            _note(out, HISTORY_CHANGE)
        self.push(ch, False)


def _double_quoted(item: str, i: int, out: ShellReading, push: Callable[[str, bool], None]) -> int:
    """Read ``"..."`` from ``item[i]``; returns the index of the closing quote."""
    j = i + 1
    while j < len(item):
        ch = item[j]
        if ch == '"':
            return j
        if ch == "\\" and j + 1 < len(item) and item[j + 1] in '$`"\\\n':
            push(item[j + 1], True)
            _note(out, "backslashes removed")
            j += 2
            continue
        if ch == "`" or item.startswith("$(", j):
            out.breaks = _substitution(ch)
            return j
        if ch == "$" and (item.startswith("${", j) or _NAME.match(item, j + 1)):
            out.variables = True
        if history_expansion_at(item, j, in_double_quotes=True):
            _note(out, HISTORY_CHANGE)
        push(ch, True)
        j += 1
    out.breaks = "an unclosed `\"`: bash reads on into the next lines"
    return j


def _braces(word: list[Char]) -> list[list[Char]]:
    """Bash's brace expansion of one word (``a{b,c}d`` -> ``abd``, ``acd``)."""
    for start, (ch, quoted) in enumerate(word):
        if ch != "{" or quoted or (start > 0 and word[start - 1] == ("$", False)):
            continue
        depth, commas = 0, []
        for end in range(start, len(word)):
            c, q = word[end]
            if q:
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            elif c == "," and depth == 1:
                commas.append(end)
        else:
            continue  # no closing brace: this one is literal
        head, tail = word[:start], word[end + 1:]
        if commas:
            cuts = [start, *commas, end]
            parts: list[list[Char]] | None = [word[a + 1:b]
                                              for a, b in itertools.pairwise(cuts)]
        else:
            parts = _sequence("".join(c for c, _ in word[start + 1:end]))
        if parts is None:
            continue
        return [w for part in parts for w in _braces(head + part + tail)]
    return [word]


def _sequence(text: str) -> list[list[Char]] | None:
    """``1..3`` -> ``1``, ``2``, ``3``; ``a..c`` likewise; ``None``: not a sequence."""
    m = _SEQUENCE.match(text)
    if m is None:
        return None
    a, b, step_text = m.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        values = [str(v) for v in range(lo, hi + (1 if hi >= lo else -1),
                                        step if hi >= lo else -step)]
    elif a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        values = [chr(v) for v in range(lo, hi + (1 if hi >= lo else -1),
                                        step if hi >= lo else -step)]
    else:
        return None
    return [[(c, False) for c in v] for v in values]


def _globs(chars: list[Char]) -> bool:
    """Whether an unquoted ``*``, ``?`` or ``[...]`` makes the word a glob pattern."""
    for k, (c, q) in enumerate(chars):
        if q:
            continue
        if c in "*?":
            return True
        if c == "[" and any(d == "]" and not dq for d, dq in chars[k + 2:]):
            return True
    return False


@functools.lru_cache(maxsize=PLAIN_ITEMS_KEPT)
def _plain(item: str) -> bool:
    """Whether bash passes ``item``'s whitespace-split words unchanged (a pure function of
    the item's text, so the item is the whole cache key)."""
    if _SHELL_SPECIAL.isdisjoint(item):
        return True
    return not read_item(item).changed


def printed_raw(args: Sequence[str]) -> list[bool]:
    """Which items of a ``vllm serve`` argument list (after the model) the site prints as
    they are: a flag item, and an item no flag takes; a flag's value is quoted."""
    raw: list[bool] = []
    i = 0
    while i < len(args):
        nxt = args[i + 1] if i + 1 < len(args) else None
        if args[i].startswith("-") and nxt is not None and not nxt.startswith("-"):
            raw += [True, False]
            i += 2
        else:
            raw.append(True)
            i += 1
    return raw


def shell_words(args: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The words bash gives vLLM for the printed command of ``args``, and the item each
    word comes from. A raw item of plain words (``--tool-call-parser hermes``) splits at
    whitespace; an item bash changes otherwise is kept whole (``FLAG027`` reports it, so
    one mistake is one finding)."""
    words: list[str] = []
    where: list[int] = []
    for index, (item, raw) in enumerate(zip(args, printed_raw(args), strict=True)):
        parts = item.split() if raw and _plain(item) else [item]
        words += parts or [item]
        where += [index] * len(parts or [item])
    return tuple(words), tuple(where)


#: A whole shell parameter expansion: ``$NAME``, ``${NAME}``, ``${NAME[@]}``,
#: ``${NAME:-default}``, the special parameters ``$@ $* $# $? $$ $! $-`` and ``$0``-``$9``
#: (or several, back to back: ``$A$B``).
_EXPANSION = re.compile(r"(?:\$(?:[A-Za-z_][A-Za-z0-9_]*|[@*#?$!0-9-]|\{[^{}]+\}))+")


def whole_expansion(word: str) -> bool:
    """Whether ``word`` (after shell-quote removal, or in one pair of double quotes) is a
    whole parameter expansion: bash replaces it before vLLM sees anything, by words no
    check can know (none, one, or several: an unquoted ``$EXTRA_ARGS``, ``"$@"``,
    ``"${ARGS[@]}"``)."""
    if "$" not in word:  # every expansion starts with one
        return False
    if len(word) > 2 and word[0] == word[-1] == '"':
        word = word[1:-1]
    return _EXPANSION.fullmatch(word) is not None


def word_expansions(words: Sequence[str]) -> frozenset[int]:
    """Indexes of the whole expansions among shell words (a guide command's, quotes
    already removed): the ``expansions`` of :func:`validator.vllm_cli.argv.parse_args`."""
    return frozenset(k for k, w in enumerate(words) if whole_expansion(w))


def printed_expansions(items: Sequence[str], words: Sequence[str],
                       where: Sequence[int]) -> frozenset[int]:
    """Indexes of ``words`` (of argument list ``items``, ``where`` their item) that bash
    expands in the command the site prints: a whole expansion printed raw (an item no flag
    takes, or a word of a flag item), or a flag's value the site's quoting leaves bare
    (``$NAME``; ``'${NAME}'`` reaches vLLM as written)."""
    raw = printed_raw(items)
    return frozenset(k for k, w in enumerate(words) if whole_expansion(w) and (
        raw[where[k]] or shell_quote(w) == w))


def printed_literals(items: Sequence[str], words: Sequence[str],
                     where: Sequence[int]) -> frozenset[int]:
    """Indexes of ``words`` holding a ``$`` that reach vLLM as written: a flag's value the
    site's quoting makes literal (``'abc$'``, ``'${PORT}'``; a bare ``$NAME`` is left to
    expand: :func:`printed_expansions`), judged as the text it is."""
    if not any("$" in w for w in words):
        return frozenset()
    raw = printed_raw(items)
    return frozenset(k for k, w in enumerate(words)
                     if "$" in w and not raw[where[k]] and shell_quote(w) != w)
