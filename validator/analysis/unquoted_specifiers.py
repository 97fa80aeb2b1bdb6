"""Version specifiers bash reads as redirections in a copied install command (``REF042``).

A requirement such as ``transformers>=5.8.0`` holds ``>`` or ``<``: written unquoted in a
command a reader pastes (``pip install transformers>=5.8.0``), bash takes ``>=5.8.0`` as a
redirection of the output into a file named ``=5.8.0`` and passes ``transformers`` alone
to the installer, so the pin is dropped without a word; ``vllm<0.12`` reads a file ``0.12``
as input (the command fails when there is none, and the bound is dropped all the same).

:func:`unquoted_specifiers` reads a command text as bash splits it (quotes, backslashes,
comments, ``;``/``&``/``|``/parentheses/line breaks ending a simple command; nothing is
run) and returns each such requirement of an installer's command: one whose words include
an installer (``pip``, ``uv``, ``conda`` ...) and ``install`` or ``add``. A redirection
after a number (``2>&1``) or into a path (``> log``, ``>/dev/null``) is what it says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9._,-]*\])?")
"""A requirement's name with its extras (PEP 508), as it stands before a specifier."""
_INSTALLERS = re.compile(r"(?:^|/)(?:pip[0-9.]*|uv|conda|mamba|micromamba|pipx|poetry|pdm)$")
_VERBS = frozenset({"install", "add"})
_ENDS = frozenset(";&|()\n")
_BLANKS = frozenset(" \t")


@dataclass(frozen=True)
class UnquotedSpecifier:
    """``requirement`` (as written, e.g. ``transformers>=5.8.0``) starts at ``offset`` of
    the command text; bash reads its ``operator`` (``>`` or ``<``) as a redirection from
    or into the file ``target``, and the installer gets ``name`` alone."""

    offset: int
    requirement: str
    name: str
    operator: str
    target: str


@dataclass
class _Command:
    """The words of the simple command read so far, and the word being read."""

    words: list[str]
    start: int = -1
    quoted: bool = False

    def installs(self) -> bool:
        return any(_INSTALLERS.search(w) for w in self.words) and \
            any(w in _VERBS for w in self.words)


def unquoted_specifiers(text: str) -> list[UnquotedSpecifier]:
    """Each requirement of an installer's command in ``text`` whose version specifier bash
    reads as a redirection (see the module docstring), in the order of the text."""
    if "<" not in text and ">" not in text:
        return []
    out: list[UnquotedSpecifier] = []
    cmd = _Command([])
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "<>" and (found := _specifier(text, i, cmd)) is not None:
            out.append(found)
        if ch == "\\":
            if text[i + 1:i + 2] != "\n":  # a backslash-newline joins the lines: nothing
                cmd.quoted = True
                cmd.start = i if cmd.start < 0 else cmd.start
            i += 2
            continue
        if ch in "'\"":
            close = text.find(ch, i + 1)
            cmd.quoted = True
            cmd.start = i if cmd.start < 0 else cmd.start
            i = len(text) if close < 0 else close + 1
            continue
        if ch == "#" and cmd.start < 0:
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        if ch in _BLANKS or ch in _ENDS or ch in "<>":
            if cmd.start >= 0:
                cmd.words.append(text[cmd.start:i])
            cmd.start, cmd.quoted = -1, False
            if ch in _ENDS:
                cmd.words = []
        elif cmd.start < 0:
            cmd.start = i
        i += 1
    return out


def _specifier(text: str, i: int, cmd: _Command) -> UnquotedSpecifier | None:
    """The requirement whose unquoted ``<``/``>`` is ``text[i]``: glued to a name before
    it and followed by ``=`` or a digit (``pkg>=1``, ``pkg<2``), or written apart from the
    name with ``=`` after it (``pkg >= 1``); ``None`` for any other redirection."""
    glued = cmd.start >= 0
    name = text[cmd.start:i] if glued else (cmd.words[-1] if cmd.words else "")
    after = text[i + 1:i + 2]
    if (cmd.quoted and glued) or not _NAME.fullmatch(name) or name.isdigit() \
            or not (after == "=" or (glued and after.isdigit())) or not cmd.installs():
        return None
    start = cmd.start if glued else text.rfind(name, 0, i)
    end = i + 1
    while end < len(text) and text[end] not in _BLANKS and text[end] not in _ENDS:
        end += 1
    target = text[i + 1:end].split("<")[0].split(">")[0] or "="
    return UnquotedSpecifier(start, text[start:end], name, text[i], target)
