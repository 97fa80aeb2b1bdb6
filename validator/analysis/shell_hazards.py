"""What bash does with printed text beyond running one command of plain words (``REF018``,
the ``# warning:`` lines of ``render`` and the catalogue).

:func:`command_hazards` reads a whole printed command (``vllm serve ... \\`` lines, a
``docker run``) or one value printed unquoted inside one, as bash reads it, and returns
every :class:`Hazard`: a command substitution (``$(...)``, a backquote, ``<(...)``), an
arithmetic expansion, a control operator (``;``, ``&``, ``&&``, ``|``, ``||``), a
redirection (``<``, ``>``, ``>>``, ``2>``, ``&>``, ``<<``), a subshell parenthesis, a line
break or a carriage return (Enter, once pasted) that starts another command, a control
character a terminal takes as a key (Ctrl-U, Escape ...), a ``#`` that drops the rest, a
quote left open, a history expansion (``!-2``, ``!!``: an interactive bash, where users
paste, puts an earlier command there), and a parameter expansion with an operator
(``${X:-...}``). A backslash-newline continuation, quoted text and a plain ``$NAME`` /
``${NAME}`` (which the site prints itself: ``$HEAD_IP``) are no hazard.
:func:`word_hazards` adds what matters for one value printed as (part of) one word: a
split at blanks, quotes / backslashes / braces / globs / ``~`` bash changes
(:func:`validator.analysis.shell_words.read_item`), and
-- where a literal is expected -- any parameter expansion. Nothing is ever run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from validator.analysis.shell_words import flag_item_change, history_expansion_at, read_item
from validator.findings import printable
from validator.render.renderer import Process, Token

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_BRACED_NAME = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_OPERATOR = re.compile(r"&&|\|\||;;|\|&|[;&|]")
_REDIRECTION = re.compile(r"[0-9]*(?:&>>|&>|<<<|<<-?|>>|>&|<&|<>|>\||[<>])")
IMAGE_OPERAND = "the image of `docker run`"
MODEL_OPERAND = "the model of `vllm serve`"
"""The operands a printed command holds (:func:`word_hazards` ``positional``)."""
SHOWN = 80
"""At most this many characters of a piece of text are quoted in a description."""


@dataclass(frozen=True)
class Hazard:
    """One thing bash does with the text besides passing plain words.

    ``kind`` names it (``command substitution``, ``control operator`` ...); ``text`` is
    the characters concerned; ``effect`` says what bash does (``runs `touch pwned```).
    """

    kind: str
    text: str
    effect: str

    def describe(self) -> str:
        """``command substitution `$(touch pwned)`: bash runs `touch pwned```."""
        return f"{self.kind} `{_short(self.text)}`: {self.effect}"


def _short(text: str) -> str:
    one = " ".join(text.replace("\\\n", " ").split())
    return one if len(one) <= SHOWN else one[:SHOWN - 1] + "…"


def _code(text: str) -> str:
    return f"`{_short(text)}`" if text.strip() else "nothing"


@dataclass
class _Scan:
    """The state of one :func:`command_hazards` reading."""

    text: str
    embedded: bool
    out: list[Hazard] = field(default_factory=list)
    expansions: list[str] = field(default_factory=list)
    started: bool = False  # a word of the current command was read
    in_word: bool = False

    def add(self, kind: str, text: str, effect: str) -> None:
        self.out.append(Hazard(kind, text, effect))

    def rest_of_command(self, start: int) -> str:
        """The text from ``start`` up to the next operator or line break."""
        end = start
        while end < len(self.text):
            if self.text.startswith("\\\n", end):
                end += 2
                continue
            if self.text[end] in ";&|\n\r":
                break
            end += 1
        return self.text[start:end]


def command_hazards(text: str, *, embedded: bool = False) -> list[Hazard]:
    """Every :class:`Hazard` of ``text`` read as bash reads a command line. ``embedded``:
    the text is one value printed inside a longer command, so any line break in it ends
    that command early (for a whole command, only a line break between two commands
    counts). A command of :data:`_PLAIN` text has none and is not read character by
    character (a catalogue reads thousands of them)."""
    if _PLAIN.fullmatch(text):
        return []
    return _scan(text, embedded).out


_NAMED = (r"\$(?:[A-Za-z][A-Za-z0-9_]*+|_[A-Za-z0-9_]++)"
          r"|\$\{(?:[A-Za-z][A-Za-z0-9_]*+|_[A-Za-z0-9_]++)\}")
_PLAIN = re.compile(
    r"(?:[^\x00-\x08\x0a-\x1f\x7f#'\"`$!<>&|;()\\]++"  # plain characters
    r"|\\[\s\S]"  # a backslash and what it escapes
    r"|'[^']*+'"  # a closed single-quoted string
    r'|"(?:[^"\\`$!]++|\\[\s\S]|' + _NAMED + r')*+"'  # a closed double-quoted one
    r"|" + _NAMED + r")*+"  # $NAME, ${NAME}
    r"\\?")  # a backslash ending the text
"""Text in which :func:`_step` finds no hazard, read item by item as it reads it: plain
characters (none that starts a construct: no control character but a tab, no ``#``,
quote, ``$``, ``!``, redirection, operator or parenthesis), a backslash and the character
it escapes (a continuation too), a closed single-quoted string, a plain ``$NAME`` or
``${NAME}``, and a closed double-quoted string of plain characters, escapes and such
names. The quantifiers are possessive: each item is read as :func:`_step` reads it,
never shortened."""


def _scan(text: str, embedded: bool) -> _Scan:
    scan = _Scan(text, embedded)
    i = 0
    while i < len(text):
        i = _step(scan, i)
    return scan


def _step(scan: _Scan, i: int) -> int:
    """Read the construct at ``text[i]``; returns the index after it."""
    text, ch = scan.text, scan.text[i]
    if text.startswith("\\\n", i):
        return i + 2  # a continuation: the command goes on
    if ch == "\\":
        scan.started = scan.in_word = True
        return i + 2
    if ch in " \t":
        scan.in_word = False
        return i + 1
    if ch in "\n\r":  # pasted into a terminal, a carriage return is Enter too
        return _line_break(scan, i)
    if ch in _CONTROL_KEYS:
        scan.add("control character", f"U+{ord(ch):04X}", "a terminal reads it as a key "
                 "(Ctrl-" + chr(ord(ch) ^ 0x40) + ") when the command is pasted, not as "
                 "text of the command")
        scan.started = scan.in_word = True
        return i + 1
    if ch == "#" and not scan.in_word:
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        if scan.started or scan.embedded:
            scan.add("comment", text[i:end], "bash drops the rest of the line "
                     f"({_code(text[i + 1:end])}) and what follows it on that command")
        return end
    scan.started = scan.in_word = True
    if ch == "'":
        end = text.find("'", i + 1)
        if end < 0:
            scan.add("unclosed quote", text[i:], "bash reads on into the next lines, "
                     "taking them into this word until another `'`")
            return len(text)
        return end + 1
    if ch == '"':
        return _double_quoted(scan, i)
    if ch == "`" or text.startswith("$(", i) or text.startswith(("<(", ">("), i):
        return _substitution(scan, i)
    if ch == "$":
        return _dollar(scan, i)
    if history_expansion_at(text, i):
        _history(scan, i)
        return i + 1
    return _operator(scan, i)


_CONTROL_KEYS = frozenset(map(chr, [*range(0x20), 0x7F])) - set("\t\n\r")
"""C0 controls and DEL a terminal takes as keys (Ctrl-C, Ctrl-U, Escape ...); a tab, a
line break and a carriage return are read above as bash reads them."""


def _history(scan: _Scan, i: int) -> None:
    event = re.match(r"![^\s;&|<>()'\"]*", scan.text[i:])
    scan.add("history expansion", event.group() if event else "!", "an interactive bash "
             "(where a copied command is pasted) replaces it by an earlier command line of "
             "the user's history, or stops with `event not found`")


def _line_break(scan: _Scan, i: int) -> int:
    """A line break, or a carriage return (Enter, once pasted into a terminal)."""
    text = scan.text
    following = text[i + 1:].lstrip(" \t\r\n\\")
    if scan.embedded or (scan.started and following and not following.startswith("#")):
        nxt = scan.rest_of_command(i + 1)
        ends = "bash ends the command there and runs " + (
            f"the next line ({_code(nxt)})" if nxt.strip() else "what the command prints "
            "after this value") + " as a command of its own"
        if text[i] == "\r":
            scan.add("carriage return", "\\r", f"pasted into a terminal it is Enter: {ends}")
        else:
            scan.add("line break", "\\n", ends)
    scan.started = scan.in_word = False
    return i + 1


def _operator(scan: _Scan, i: int) -> int:
    text = scan.text
    redirect = _REDIRECTION.match(text, i)
    if redirect is not None:
        op = redirect.group()
        if i > 0 and op[0].isdigit() and text[i - 1] not in " \t\n":
            return i + 1  # a digit inside a word (`x2>y`): the redirection starts at `>`
        target = text[redirect.end():].lstrip(" \t")
        word = re.match(r"[^\s;&|<>()]*", target)
        name = word.group() if word else ""
        if op.startswith("<<") and not op.startswith("<<<"):
            effect = "bash reads the next lines as this command's input (a here-document)"
        elif "<" in op and ">" not in op:
            effect = f"bash feeds the file {_code(name)} to the command as input"
        else:
            effect = (f"bash writes the command's output into the file {_code(name)} "
                      "(creating or emptying it)")
        scan.add("redirection", op + (" " + name if name else ""), effect)
        return redirect.end()
    op_match = _OPERATOR.match(text, i)
    if op_match is not None:
        op = op_match.group()
        nxt = scan.rest_of_command(op_match.end()).strip()
        what = {"&": "runs the command so far in the background", "|": "pipes the output "
                "into", "|&": "pipes the output into", "&&": "then, if it succeeded, runs",
                "||": "then, if it failed, runs"}.get(op, "ends the command there and runs")
        if op == "&":
            effect = f"bash {what}, then runs {_code(nxt)}"
        else:
            effect = f"bash {what} {_code(nxt)}" + (
                " as a command of its own" if op in (";", ";;") else "")
        scan.add("control operator", op, effect)
        scan.started = scan.in_word = False
        return op_match.end()
    if text[i] in "()":
        scan.add("subshell", text[i], "bash reads a parenthesis as a subshell or a syntax "
                 "error, not as text")
    return i + 1


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    """Index of the ``closing`` that balances the ``opening`` before ``start`` (quotes
    skipped), or -1."""
    depth, j = 1, start
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"":
            end = text.find(c, j + 1)
            if end < 0:
                return -1
            j = end + 1
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def _substitution(scan: _Scan, i: int) -> int:
    text = scan.text
    if text[i] == "`":
        end = text.find("`", i + 1)
        inner = text[i + 1:] if end < 0 else text[i + 1:end]
        scan.add("command substitution", text[i:] if end < 0 else text[i:end + 1],
                 f"bash runs {_code(inner)} and puts its output here")
        return len(text) if end < 0 else end + 1
    if text.startswith("$((", i):
        end = _closing(text, i + 3, "(", ")")
        inner = text[i + 3:] if end < 0 else text[i + 3:end]
        scan.add("arithmetic expansion", text[i:end + 2] if end >= 0 else text[i:],
                 f"bash evaluates {_code(inner.rstrip(')'))} (an array index in it runs "
                 "commands)")
        return len(text) if end < 0 else min(len(text), end + 2)
    end = _closing(text, i + 2, "(", ")")
    inner = text[i + 2:] if end < 0 else text[i + 2:end]
    kind = "command substitution" if text[i] == "$" else "process substitution"
    scan.add(kind, text[i:] if end < 0 else text[i:end + 1],
             f"bash runs {_code(inner)}" + (" and puts its output here"
                                            if kind == "command substitution" else ""))
    return len(text) if end < 0 else end + 1


def _dollar(scan: _Scan, i: int) -> int:
    text = scan.text
    if text.startswith("${", i):
        end = _closing(text, i + 2, "{", "}")
        whole = text[i:] if end < 0 else text[i:end + 1]
        scan.expansions.append(whole)
        if not _BRACED_NAME.fullmatch(whole):
            scan.add("parameter expansion", whole, "bash computes the value with an operator "
                     "(a default, a pattern, an indirection), not as written")
        else:
            _special(scan, whole, whole[2:-1])
        return len(text) if end < 0 else end + 1
    name = _NAME.match(text, i + 1)
    if name is not None:
        scan.expansions.append(text[i:name.end()])
        _special(scan, text[i:name.end()], name.group())
        return name.end()
    return i + 1


def _special(scan: _Scan, whole: str, name: str) -> None:
    """A hazard for ``whole``, an expansion of ``name``, when that is one of bash's
    special parameters (``$_``, ``$1``, ``$@`` ...) or a variable bash sets for the
    running shell (``$IFS``, ``$BASH_COMMAND`` ...): never a variable the recipe sets,
    though ``$_`` and those look like one (the site leaves them unquoted as a bare
    ``$NAME``)."""
    special = _SPECIAL_PARAMETERS.get(name)
    if special is not None:
        scan.add("special parameter", whole, f"bash puts {special} here, not a variable of "
                 "the recipe")


def _double_quoted(scan: _Scan, i: int) -> int:
    text = scan.text
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == '"':
            return j + 1
        if c == "\\":
            j += 2
            continue
        if c == "`" or text.startswith("$(", j):
            j = _substitution(scan, j)
            continue
        if c == "$":
            j = _dollar(scan, j)
            continue
        if history_expansion_at(text, j, in_double_quotes=True):
            _history(scan, j)
        j += 1
    scan.add("unclosed quote", text[i:], 'bash reads on into the next lines, taking them '
             'into this word until another `"`')
    return len(text)


def word_hazards(value: str, *, literal: bool, split: bool,
                 positional: str = "") -> list[Hazard]:
    """The :class:`Hazard` list of ``value`` printed unquoted as (part of) one word of a
    longer command: :func:`command_hazards` (any line break counts), then -- ``split`` --
    blanks that cut it into several words, what bash changes in the word (quotes,
    backslashes, braces, globs, a leading ``~``), and -- ``literal`` (a model id, an
    image, an env name) -- any parameter expansion. ``positional`` (``the image of
    `docker run```) names the argument the word stands for where a program reads its
    operands: the word is always split-checked there, and a leading ``-`` makes it an
    option of that program instead."""
    scan = _scan(value, embedded=True)
    out = list(scan.out)
    reading = read_item(value)
    split = split or bool(positional)
    if not out and reading.changes:
        out.append(Hazard("word changed", value, "bash passes "
                          f"{', '.join(_code(w) for w in reading.words) or 'nothing'} "
                          f"({'; '.join(reading.changes)})"))
    elif split and not out and len(reading.words) > 1:
        out.append(Hazard("word split", value, f"bash passes {len(reading.words)} words "
                          f"({', '.join(_code(w) for w in reading.words[:4])}), not one"))
    if positional and not out and value.startswith("-"):
        out.append(Hazard("option", value, f"the program reads it as an option, not as "
                          f"{positional}: it changes how the command runs"))
    for name in dict.fromkeys(scan.expansions if literal else ()):
        if not any(h.text == name for h in out):  # a special parameter is named by the scan
            out.append(Hazard("parameter expansion", name, "bash replaces it by the value of "
                              "that variable (nothing when unset), where a literal is expected"))
    return out


_SPECIAL_PARAMETERS = {
    "@": "the shell's positional parameters (none in a terminal: the text vanishes, or "
         "splits into several words)",
    "*": "the shell's positional parameters (none in a terminal)",
    "#": "the number of the shell's positional parameters",
    "?": "the exit status of the user's previous command",
    "$": "the shell's process id",
    "!": "the process id of the user's last background job",
    "-": "the shell's option letters",
    "_": "the last word of the user's previous command",
    **{str(d): "the shell's name" if d == 0 else "a positional parameter of the shell "
       "(empty in a terminal)" for d in range(10)},
    "IFS": "its field separators (blanks: unquoted, the word vanishes and the option takes "
           "the next word as its value)",
    "BASH_COMMAND": "the words of the command it is running (this command's own)",
    "BASH_ARGV": "the arguments of the shell's current function or script",
    "BASH_ARGC": "the argument counts of the shell's function or script frames",
    "BASH_LINENO": "the line numbers of the shell's call stack",
    "BASH_SOURCE": "the source files of the shell's call stack",
    "BASH_REMATCH": "the match of the user's last `[[ =~ ]]` test",
    "FUNCNAME": "the name of the shell function running (empty in a terminal)",
    "PIPESTATUS": "the exit status of the user's previous pipeline",
    "LINENO": "the line number of the command in the shell",
    "HISTCMD": "the history number of the command",
    "BASHPID": "the process id of the current bash",
}
"""Bash's special parameters (``$@``, ``$1``, ``$_`` ...) and the variables bash sets
itself for the running shell (``$IFS``, ``$BASH_COMMAND``, ``$PIPESTATUS`` ...), with what
each expands to: never a value the recipe sets, so not a plain ``$NAME``."""


@functools.lru_cache(maxsize=4096)
def _cached_word_hazards(value: str, literal: bool, split: bool,
                         positional: str) -> tuple[Hazard, ...]:
    return tuple(word_hazards(value, literal=literal, split=split, positional=positional))


def printed_word_hazards(value: str, *, literal: bool, split: bool,
                         positional: str = "") -> list[Hazard]:
    """:func:`word_hazards`, remembered: a recipe's configurations print the same values
    again and again (``REF018`` and ``render``'s ``# warning`` lines judge them alike)."""
    return list(_cached_word_hazards(value, literal, split, positional))


def arguments_start(proc: Process) -> int:
    """Index of the first token after ``vllm serve`` or the ``vllm-omni`` binary's words
    among a process's tokens (the model id, when it has one)."""
    start = 0
    while start < len(proc.tokens) and proc.tokens[start].layer in ("vllm",
                                                                     "omni.serve_binary"):
        start += 1
    return start


def model_token(proc: Process) -> Token | None:
    """The model id among a process's tokens; ``None`` if the process has none (its
    first argument is a flag of no ``model_id`` field)."""
    start = arguments_start(proc)
    if start >= len(proc.tokens):
        return None
    token = proc.tokens[start]
    if token.text.startswith("-") and not token.pointer.endswith("/model_id"):
        return None
    return token


def flag_item_hazards(proc: Process) -> list[Hazard]:
    """A :class:`Hazard` per flag item of ``proc`` that bash changes
    (:func:`~validator.analysis.shell_words.flag_item_change`, ``FLAG027``'s predicate)
    and that holds no code :func:`command_hazards` already names (``--x*``, ``--y{a,b}``,
    ``--x\\``: a glob, braces, a backslash)."""
    return [h for h in map(_flag_item_hazard, (t.text for t in proc.tokens)) if h is not None]


@functools.lru_cache(maxsize=8192)
def _flag_item_hazard(text: str) -> Hazard | None:
    """The :func:`flag_item_hazards` entry of one token's text, remembered: the processes
    of a recipe's configurations (and of their cu129 renderings) hold the same tokens
    again and again."""
    change = flag_item_change(text)
    if change is None or command_hazards(text):
        return None
    return Hazard("flag item", text, f"bash changes it ({change[0]}) and passes {change[1]}")


def comment_line(text: str) -> str:
    """``# text`` as one shell comment line: a line break or another control character of
    ``text`` (recipe text: a note, a label, a variant name) is written as ``\\uXXXX``, so
    nothing after it leaves the comment and runs."""
    return "# " + printable(text)


def warning_lines(command: str) -> list[str]:
    """``# warning:`` lines naming each :class:`Hazard` of a printed ``command`` (none for
    a command of plain words): shown above a command that holds shell code, which a page
    then offers no one-click copy of."""
    return hazard_lines(command_hazards(command))


def hazard_lines(hazards: Iterable[Hazard]) -> list[str]:
    """One ``# warning:`` line per hazard of ``hazards`` (as :func:`warning_lines`)."""
    return [comment_line(f"warning: {WARNING} {hazard.describe()}") for hazard in hazards]


WARNING = "REF018: bash would not run this command as shown:"
"""The start of each :func:`warning_lines` line."""
