"""Whether a command text runs code it downloads: the reading behind ``REF022``/``REF023``.

A command the site shows verbatim (an install command, a dependency's command, a
kv-store companion's command, a platform's install snippet) is read here as bash reads
its words, without running anything:

- a pipeline that feeds a downloader's output (``curl``, ``wget`` ...) into an
  interpreter that runs its standard input (``| sh``, ``| sudo -E bash -s --``,
  ``| python3 -``);
- a command or process substitution holding a download where its text becomes code: the
  command word itself (``$(curl …)``), or the script or argument of an interpreter,
  ``eval``, ``source`` or ``.`` (``bash <(curl …)``, ``sh -c "$(wget -qO- …)"``).

Each such download is a :class:`DownloadRun` naming its URLs; ``secure`` says whether
every one of them is ``https://`` (``curl`` without a scheme uses plain HTTP).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh"})
"""Commands that print what they fetch (``wget`` with ``-O-``/``-qO-``; any is enough here)."""
INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python2",
                          "python3", "perl", "ruby", "node", "php", "pwsh"})
CODE_WORDS = frozenset({"eval", "source", "."})
"""Builtins whose arguments are run as shell code."""
PREFIXES = frozenset({"sudo", "env", "exec", "command", "nohup", "time", "doas"})
"""Words that run the command after them (their options are skipped)."""

_SUBSTITUTION = re.compile(r"\$\(((?:[^()]|\([^()]*\))*)\)|`([^`]*)`|<\(((?:[^()]|\([^()]*\))*)\)")
_HOLE = re.compile(r"\x00(\d+)\x00")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://|(?<![\w/.-])(?=[\w-]+\.[\w.-]+/))[^\s'\"|;&)]*")
_SEPARATORS = re.compile(r"\n|;|&&|\|\||&")


@dataclass(frozen=True)
class DownloadRun:
    """A download whose content is run: how, and the URLs it fetches."""

    how: str
    urls: tuple[str, ...]

    @property
    def secure(self) -> bool:
        """Every URL is ``https://`` (no URL at all is not secure: nothing says so)."""
        return bool(self.urls) and all(u.lower().startswith("https://") for u in self.urls)

    @property
    def insecure_urls(self) -> tuple[str, ...]:
        """The URLs that are not ``https://`` (``curl host/x`` fetches over plain HTTP)."""
        return tuple(u for u in self.urls if not u.lower().startswith("https://"))


def download_runs(text: str) -> list[DownloadRun]:
    """Every download ``text`` (a whole shell command or snippet) runs as code."""
    holes: list[str] = []

    def hide(match: re.Match[str]) -> str:
        holes.append(next(g for g in match.groups() if g is not None))
        return f" \x00{len(holes) - 1}\x00 "

    outer = _SUBSTITUTION.sub(hide, text.replace("\\\n", " "))
    found = [run for inner in holes for run in download_runs(inner)]
    for pipeline in _SEPARATORS.split(outer):
        found += _pipeline_runs([_words(part) for part in re.split(r"(?<!\|)\|(?!\|)", pipeline)],
                                holes)
    return found


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # an unclosed quote: the words as written
        return text.split()


def _command(words: list[str]) -> tuple[str, list[str]]:
    """The command name (base name, after assignments and prefixes) and its arguments."""
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word) and not _HOLE.search(word.split("=", 1)[0]):
            i += 1
        elif PurePosixPath(word).name in PREFIXES:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        else:
            return (word if _HOLE.search(word) else PurePosixPath(word).name), words[i + 1:]
    return "", []


def _runs_stdin(name: str, args: list[str]) -> bool:
    """Whether interpreter ``name`` with ``args`` reads its program from standard input."""
    if name not in INTERPRETERS:
        return name in ("source", ".") and bool(args) and args[0] in ("/dev/stdin", "-")
    for arg in args:
        if arg in ("-", "-s", "--"):
            return True
        if arg.startswith("-") and not arg.startswith("--") and ("c" in arg or "m" in arg):
            return False  # -c CODE, -m MODULE: stdin is data
        if not arg.startswith("-"):
            return False  # a script file
    return True


def _pipeline_runs(stages: list[list[str]], holes: list[str]) -> Iterator[DownloadRun]:
    downloads: list[str] = []
    for words in stages:
        name, args = _command(words)
        if name in DOWNLOADERS:
            downloads += _urls(args)
            fetched = True
        else:
            fetched = False
        if not fetched and downloads and _runs_stdin(name, args):
            yield DownloadRun(f"`{name}` runs the downloaded text it reads from the pipe",
                              tuple(downloads))
            downloads = []
        label = "the command word" if _HOLE.search(name) else f"`{name}`"
        for index in _holes_run(name, args):
            fetched_urls = _fetched(holes[index])
            if fetched_urls is not None:
                yield DownloadRun(f"{label} runs the text a substitution downloads",
                                  fetched_urls)


def _holes_run(name: str, args: list[str]) -> Iterator[int]:
    """Indexes of the substitutions whose text is run as code in this command."""
    hole = _HOLE.fullmatch(name.strip())
    if hole:
        yield int(hole.group(1))
    if name in INTERPRETERS or name in CODE_WORDS:
        for arg in args:
            yield from (int(m.group(1)) for m in _HOLE.finditer(arg))


def _fetched(inner: str) -> tuple[str, ...] | None:
    """The URLs of the downloads a substitution's text prints, or ``None`` when none."""
    urls: list[str] = []
    downloads = False
    for pipeline in _SEPARATORS.split(inner):
        for part in re.split(r"(?<!\|)\|(?!\|)", pipeline):
            name, args = _command(_words(part))
            if name in DOWNLOADERS:
                downloads = True
                urls += _urls(args)
    return tuple(urls) if downloads else None


def _urls(args: list[str]) -> list[str]:
    return [m.group(0) for arg in args if not arg.startswith("-")
            for m in [_URL.match(arg)] if m and m.group(0)]
