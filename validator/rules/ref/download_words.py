"""The words of a shell command as :mod:`validator.rules.ref.download_run` reads them: a
linear tokenizer (the words ``shlex.split(text, comments=True)`` gives, read with one
regular expression instead of one Python step per character), the command name after
assignments and prefixes, redirections, and what ``curl``/``wget`` fetch and write."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

PREFIXES = frozenset({"sudo", "env", "exec", "command", "nohup", "time", "doas", "busybox"})
"""Words that run the command after them (their options are skipped)."""
HOLE = re.compile(r"\x00(\d+)\x00")
"""A substitution hidden in a word (its index)."""

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_TOKEN = re.compile(r"""[ \t\r\n]+|#[^\n]*\n?|'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^ \t\r\n'"\\#]+|.""",
                    re.DOTALL)
_DOUBLE_QUOTED_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_REDIRECT = re.compile(r"^(?:1|&)?(>>?|<)(.*)$", re.DOTALL)


def words(text: str) -> list[str]:
    """``shlex.split(text, comments=True)`` (POSIX rules: quotes removed, a backslash
    escapes, ``#`` outside quotes starts a comment to the end of the line); an unclosed
    quote or a final backslash gives the words as written, as ``text.split()``."""
    out: list[str] = []
    current: list[str] = []
    quoted = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in " \t\r\n#":
            if current or quoted:
                out.append("".join(current))
            current, quoted = [], False
        elif first == "'" or first == '"':
            if len(token) < 2 or token[-1] != first:
                return text.split()
            inner = token[1:-1]
            current.append(inner if first == "'" else _DOUBLE_QUOTED_ESCAPE.sub(
                lambda m: m.group(1) if m.group(1) in '\\"' else m.group(0), inner))
            quoted = True
        elif first == "\\":
            if len(token) < 2:
                return text.split()
            current.append(token[1])
        else:
            current.append(token)
    if current or quoted:
        out.append("".join(current))
    return out


def command(parts: list[str]) -> tuple[str, list[str]]:
    """The command name (base name, after assignments and prefixes; ``.`` kept) and its
    arguments."""
    i = 0
    while i < len(parts):
        word = parts[i]
        if _ASSIGNMENT.match(word) and not HOLE.search(word.split("=", 1)[0]):
            i += 1
        elif PurePosixPath(word).name in PREFIXES:
            i += 1
            while i < len(parts) and parts[i].startswith("-"):
                i += 1
        else:
            name = word if HOLE.search(word) or word == "." else PurePosixPath(word).name
            return name, parts[i + 1:]
    return "", []


def redirections(parts: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``parts`` without their redirections, the files written (``> F``, ``>> F``,
    ``1>F``, ``&>F``; ``/dev/null`` left out) and the files read as standard input
    (``< F``)."""
    kept: list[str] = []
    writes: list[str] = []
    reads: list[str] = []
    i = 0
    while i < len(parts):
        match = _REDIRECT.match(parts[i])
        if match is None or match.group(2).startswith(("&", ">", "(", "<")):
            kept.append(parts[i])
            i += 1
            continue
        target = match.group(2) or (parts[i + 1] if i + 1 < len(parts) else "")
        (reads if match.group(1) == "<" else writes).append(target)
        i += 1 if match.group(2) else 2
    return kept, [w for w in writes if w and w != "/dev/null"], [r for r in reads if r]


_VALUE_LETTERS = {"curl": frozenset("ACDEFHKPQTUXYbcdehmoqrtuwxyz"),
                  "wget": frozenset("ABDIOPQRTUXaehilortw")}
"""The short options of ``curl``/``wget`` that take a value (the rest of the cluster or
the next word: ``-fsSLo F``)."""
_LONG_VALUE_OPTIONS = frozenset({
    "--output", "--header", "--data", "--data-raw", "--data-binary", "--data-urlencode",
    "--request", "--user", "--user-agent", "--retry", "--retry-delay", "--retry-max-time",
    "--max-time", "--connect-timeout", "--proto", "--proto-redir", "--cacert", "--capath",
    "--cert", "--key", "--config", "--write-out", "--referer", "--cookie", "--cookie-jar",
    "--form", "--upload-file", "--range", "--proxy", "--resolve", "--limit-rate",
    "--output-dir", "--max-filesize", "--continue-at", "--dump-header", "--interface",
    "--oauth2-bearer", "--netrc-file", "--unix-socket", "--speed-limit", "--speed-time",
    "--time-cond", "--trace", "--trace-ascii", "--stderr", "--json", "--variable", "--url",
    "--output-document", "--tries", "--timeout", "--wait", "--directory-prefix",
    "--append-output", "--output-file", "--input-file", "--execute", "--post-data",
    "--password", "--http-user", "--http-password", "--ca-certificate", "--certificate",
    "--private-key", "--load-cookies", "--save-cookies"})
"""Long options of ``curl``/``wget`` that take the next word as their value."""
_OUTPUT = {"-o", "--output", "--output-document"}


def fetch(name: str, args: list[str]) -> tuple[list[str], list[str]]:
    """The operands a ``curl``/``wget`` command fetches (``--url``'s too; one without a
    scheme is fetched over plain HTTP) and the files it writes (``-o F``, ``-fsSLoF``,
    ``--output F``, ``-O``/``--remote-name`` and ``wget``'s default file: the URL's
    name)."""
    operands: list[str] = []
    files: list[str] = []
    remote = name == "wget"
    i = 0
    while i < len(args):
        option, value, i = _option(name, args, i)
        if option is None:
            operands.append(value or "")
        elif option in _OUTPUT or (option == "-O" and name == "wget"):
            files.append(value or "")
        elif option == "--url":
            operands.append(value or "")
        remote = remote or option in ("--remote-name", "-O")
    operands = [u for u in operands if u and not HOLE.fullmatch(u.strip())]
    if remote and operands and not files:
        files.append(PurePosixPath(operands[0].split("?")[0]).name)
    return operands, [f for f in files if f and f != "-"]


def _option(name: str, args: list[str], i: int) -> tuple[str | None, str | None, int]:
    """``(option, value, next index)`` of ``args[i]`` (``option`` ``None``: an operand,
    given as the value; ``-O`` in a cluster of ``curl`` is reported as ``-O``)."""
    arg = args[i]
    if arg.startswith("--"):
        option, equals, inline = arg.partition("=")
        if equals:
            return option, inline, i + 1
        if option in _LONG_VALUE_OPTIONS and i + 1 < len(args):
            return option, args[i + 1], i + 2
        return option, None, i + 1
    if not arg.startswith("-") or arg == "-":
        return None, arg, i + 1
    letters = _VALUE_LETTERS.get(name, frozenset())
    seen = None
    for j, letter in enumerate(arg[1:], 1):
        if letter in letters:
            rest = arg[j + 1:]
            if rest:
                return "-" + letter, rest, i + 1
            return "-" + letter, args[i + 1] if i + 1 < len(args) else None, i + 2
        if letter == "O":
            seen = "-O"
    return seen or arg, None, i + 1
