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
from collections.abc import Iterable, Iterator, Sequence
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
        return insecure(self.urls)


def insecure(urls: Iterable[str]) -> tuple[str, ...]:
    """Those of ``urls`` that are not ``https://`` (``curl host/x`` fetches over plain
    HTTP)."""
    return tuple(u for u in urls if not u.lower().startswith("https://"))


def download_runs(text: str) -> list[DownloadRun]:
    """Every download ``text`` (a whole shell command or snippet) runs as code."""
    holes: list[str] = []

    def hide(match: re.Match[str]) -> str:
        holes.append(next(g for g in match.groups() if g is not None))
        return f" \x00{len(holes) - 1}\x00 "

    outer = _SUBSTITUTION.sub(hide, text.replace("\\\n", " "))
    found = [run for inner in holes for run in download_runs(inner)]
    saved: dict[str, tuple[str, ...]] = {}
    for pipeline in _SEPARATORS.split(outer):
        stages = [_words(part) for part in re.split(r"(?<!\|)\|(?!\|)", pipeline)]
        found += _pipeline_runs(stages, holes)
        for words in stages:
            found += _plain_http_installs(words)
            found += _saved_runs(words, saved)
    return found


_OUTPUT_OPTIONS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
"""The options naming the file a downloader writes."""
INSTALLERS = frozenset({"pip", "pip3"})
"""Package installers that fetch and run a package's build code (``uv pip``, ``python -m
pip`` too)."""


def _saved_runs(words: list[str], saved: dict[str, tuple[str, ...]]) -> Iterator[DownloadRun]:
    """A file a downloader saved over plain HTTP (``curl URL -o F``, ``wget -O F URL``)
    and a later command runs (``sh F``, ``bash ./F``, ``./F``): remembered in ``saved``
    (file -> URLs), reported when run. A file fetched over ``https://`` and then run is the
    reviewable form ``REF023`` recommends: not reported."""
    name, args = _command(words)
    if name in _OUTPUT_OPTIONS:
        urls = insecure(_urls(args))
        target = _output_file(name, args, urls)
        if urls and target:
            saved[PurePosixPath(target).name] = urls
        return
    script = args[0] if name in INTERPRETERS | CODE_WORDS and args else name
    fetched = saved.get(PurePosixPath(script).name) if script else None
    if fetched:
        yield DownloadRun(f"`{name}` runs the file `{script}` downloaded before",
                          tuple(fetched))


def _output_file(name: str, args: list[str], urls: Sequence[str]) -> str | None:
    for i, arg in enumerate(args):
        for option in _OUTPUT_OPTIONS[name]:
            if arg == option and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(option) and len(arg) > len(option) and arg[len(option)] != "-":
                return arg[len(option):].lstrip("=")
    remote = name == "wget" or "-O" in args or "--remote-name" in args
    return PurePosixPath(urls[0].split("?")[0]).name if remote and urls else None


def _plain_http_installs(words: list[str]) -> Iterator[DownloadRun]:
    """A package install that fetches over plain HTTP: ``pip install http://…``, a
    ``git+http://`` requirement, ``--index-url``/``-i``/``--extra-index-url``/
    ``--find-links`` at an ``http://`` address (``uv pip``, ``python -m pip`` too). The
    installer runs the package's build code, so whoever answers that request chooses it."""
    name, args = _command(words)
    if name == "uv" and args[:1] == ["pip"]:
        args = args[1:]
    elif name.startswith("python") and args[:2] == ["-m", "pip"]:
        args = args[2:]
    elif name not in INSTALLERS:
        return
    if not args or args[0] not in ("install", "download", "wheel"):
        return
    urls = [arg.split("=", 1)[-1] for arg in args[1:] if _plain_http(arg.split("=", 1)[-1])]
    if urls:
        yield DownloadRun(f"`{' '.join(words[:words.index(args[0]) + 1])}` fetches and "
                          "installs a package over plain HTTP (running its build code)",
                          tuple(urls))


def _plain_http(arg: str) -> bool:
    lower = arg.lower()
    return lower.startswith(("http://", "git+http://", "hg+http://", "svn+http://",
                             "bzr+http://")) or "@http://" in lower


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
        if not fetched and downloads and name == "xargs":
            name, args = _command(_after_options(args))  # `xargs sh -c`: the text is code
            if name in INTERPRETERS or name in CODE_WORDS:
                yield DownloadRun(f"`xargs {name}` runs the downloaded text it reads from "
                                  "the pipe", tuple(downloads))
                downloads = []
            continue
        if not fetched and downloads and _runs_stdin(name, args):
            yield DownloadRun(f"`{name}` runs the downloaded text it reads from the pipe",
                              tuple(downloads))
            downloads = []
        label = "the command word" if _HOLE.search(name) else f"`{name}`"
        run = set(_holes_run(name, args))
        for index in run:
            fetched_urls = _fetched(holes[index])
            if fetched_urls is not None:
                yield DownloadRun(f"{label} runs the text a substitution downloads",
                                  fetched_urls)
        for index in {int(m.group(1)) for arg in args for m in _HOLE.finditer(arg)} - run:
            fetched_urls = _fetched(holes[index])
            plain = insecure(fetched_urls or ())
            if plain:  # over https the words are the author's to review (no finding)
                yield DownloadRun(f"the words a substitution downloads become arguments of "
                                  f"{label} (options included)", plain)


def _after_options(args: list[str]) -> list[str]:
    """``args`` of ``xargs`` from its command on (its options skipped; ``-I R``,
    ``-n N``, ``-d D``, ``-P N``, ``-L N``, ``-s N``, ``-E E`` take a value)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-I", "-n", "-d", "-P", "-L", "-s", "-E", "-a") else 1
    return args[i:]


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
