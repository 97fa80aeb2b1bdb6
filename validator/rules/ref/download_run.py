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

- a file a download wrote (a downloader's output option, ``> F``/``>> F`` or ``tee F``
  after a download in the pipeline) that a later command runs or sources (``bash F``,
  ``sh -e F``, ``. ./F``, ``source F``, ``./F``, ``sh < F``);
- a runner that fetches the script it runs from a URL (``uv run URL``, ``pipx run URL``).

The reading is linear in the text (:mod:`validator.rules.ref.download_words` reads the
words; each substitution's text is read once more, as its own text). Each such download
is a :class:`DownloadRun` naming its URLs; ``secure`` says whether
every one of them is ``https://`` (``curl`` without a scheme uses plain HTTP).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from validator.rules.ref.download_words import HOLE, command, fetch, redirections, words

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh"})
"""Commands that print what they fetch (``wget`` with ``-O-``/``-qO-``; any is enough here)."""
INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python2",
                          "python3", "perl", "ruby", "node", "php", "pwsh"})
CODE_WORDS = frozenset({"eval", "source", "."})
"""Builtins whose arguments are run as shell code."""

_SUBSTITUTION = re.compile(r"\$\(((?:[^()]|\([^()]*\))*)\)|`([^`]*)`|<\(((?:[^()]|\([^()]*\))*)\)")
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
    return list(_download_runs(text))


_MAY_FETCH = re.compile(r"curl|wget|fetch|aria2c|xh|http|pip|uv|://", re.IGNORECASE)
"""What every download needs (a downloader, an installer, a runner or a URL), looked for
with quotes and backslashes removed: a text without it runs no download."""
_UNQUOTED = str.maketrans("", "", "\\'\"")
_PIPE = re.compile(r"(?<!\|)\|(?!\|)")


@lru_cache(maxsize=512)
def _download_runs(text: str) -> tuple[DownloadRun, ...]:
    """:func:`download_runs`, once per text (``REF022`` and ``REF023`` read the same
    commands)."""
    if not _MAY_FETCH.search(text.translate(_UNQUOTED)):
        return ()
    holes: list[str] = []
    index: dict[str, str] = {}  # a substitution's text -> its marker (one per text)

    def hide(match: re.Match[str]) -> str:
        inner = match.group(1) or match.group(2) or match.group(3) or ""
        marker = index.get(inner)
        if marker is None:
            marker = index[inner] = f" \x00{len(holes)}\x00 "
            holes.append(inner)
        return marker

    outer = _SUBSTITUTION.sub(hide, text.replace("\\\n", " "))
    found = [run for inner in holes for run in _download_runs(inner)]
    saved: dict[str, tuple[str, ...]] = {}
    for pipeline in _SEPARATORS.split(outer):
        if saved or "\x00" in pipeline or _MAY_FETCH.search(pipeline.translate(_UNQUOTED)):
            found += _pipeline_runs([words(part) for part in _PIPE.split(pipeline)], holes,
                                    saved)
    return tuple(found)


INSTALLERS = frozenset({"pip", "pip3"})
"""Package installers that fetch and run a package's build code (``uv pip``, ``python -m
pip`` too)."""
_RUNNERS = {"uv": "run", "pipx": "run", "uvx": None}
"""Tools that fetch the script they run from a URL operand (``uv run URL``, ``pipx run
URL``; the value names the subcommand, ``None``: none)."""


def _remember(saved: dict[str, tuple[str, ...]], files: list[str],
              urls: list[str]) -> None:
    """Remember that each of ``files`` holds what ``urls`` serve, when some of them are
    not ``https://`` (a file fetched over ``https://`` and then run is the reviewable form
    ``REF023`` recommends)."""
    if not files:
        return
    plain = insecure(urls)
    for file in files:
        if plain and not file.startswith("-"):
            saved[PurePosixPath(file).name] = plain


def _script(name: str, args: list[str], reads: list[str]) -> str | None:
    """The file a command runs as code: an interpreter's script (its first operand; none
    after ``-c``/``-m``) or standard input file, ``source``/``.``'s file, or the command
    word itself (``./F``)."""
    if name in INTERPRETERS:
        for arg in args:
            if arg.startswith("-") and not arg.startswith("--") and ("c" in arg or "m" in arg):
                return None
            if not arg.startswith("-"):
                return arg
        return reads[0] if reads else None
    if name in CODE_WORDS:
        return args[0] if args else None
    return name


def _file_runs(name: str, args: list[str], reads: list[str],
               saved: dict[str, tuple[str, ...]]) -> Iterator[DownloadRun]:
    """A run of a file an earlier download wrote over plain HTTP (``saved``)."""
    script = _script(name, args, reads)
    fetched = saved.get(PurePosixPath(script).name) if script else None
    if fetched:
        yield DownloadRun(f"`{name}` runs the file `{script}` downloaded before", fetched)


def _remote_runs(name: str, args: list[str]) -> Iterator[DownloadRun]:
    """``uv run URL``, ``pipx run URL``: the runner fetches the script and runs it."""
    if name not in _RUNNERS:
        return
    sub = _RUNNERS[name]
    if sub is not None:
        if args[:1] != [sub]:
            return
        args = args[1:]
    urls = tuple(a.split("=", 1)[-1] for a in args if "://" in a.split("=", 1)[-1])
    if urls:
        runner = f"{name} {sub}" if sub else name
        yield DownloadRun(f"`{runner}` fetches the script at that URL and runs it", urls)


def _plain_http_installs(words: list[str]) -> Iterator[DownloadRun]:
    """A package install that fetches over plain HTTP: ``pip install http://…``, a
    ``git+http://`` requirement, ``--index-url``/``-i``/``--extra-index-url``/
    ``--find-links`` at an ``http://`` address (``uv pip``, ``python -m pip`` too). The
    installer runs the package's build code, so whoever answers that request chooses it."""
    name, args = command(words)
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


def _pipeline_runs(stages: list[list[str]], holes: list[str],
                   saved: dict[str, tuple[str, ...]]) -> Iterator[DownloadRun]:
    """The downloads one pipeline runs; the files its downloads write go to ``saved``
    (file -> URLs) for the later commands of the text."""
    downloads: list[str] = []
    for stage in stages:
        parts, writes, reads = redirections(stage)
        name, args = command(parts)
        yield from _plain_http_installs(parts)
        yield from _remote_runs(name, args)
        yield from _file_runs(name, args, reads, saved)
        fetched = name in DOWNLOADERS
        if fetched:
            urls, files = fetch(name, args) if name in ("curl", "wget") else (_urls(args), [])
            downloads += urls
            _remember(saved, files, urls)
        elif downloads and name == "tee":
            _remember(saved, [a for a in args if not a.startswith("-")], downloads)
        if downloads:
            _remember(saved, writes, downloads)
        yield from _stage_runs(name, args, holes, downloads, fetched)
        if not fetched and downloads and (name == "xargs" or _runs_stdin(name, args)):
            downloads = []


def _stage_runs(name: str, args: list[str], holes: list[str], downloads: list[str],
                fetched: bool) -> Iterator[DownloadRun]:
    """What one stage runs of the downloads before it in the pipe (``downloads``) and of
    the downloads its substitutions hold."""
    if not fetched and downloads and name == "xargs":
        name, args = command(_after_options(args))  # `xargs sh -c`: the text is code
        if name in INTERPRETERS or name in CODE_WORDS:
            yield DownloadRun(f"`xargs {name}` runs the downloaded text it reads from "
                              "the pipe", tuple(downloads))
        return
    if not fetched and downloads and _runs_stdin(name, args):
        yield DownloadRun(f"`{name}` runs the downloaded text it reads from the pipe",
                          tuple(downloads))
    label = "the command word" if HOLE.search(name) else f"`{name}`"
    run = set(_holes_run(name, args))
    for index in run:
        fetched_urls = _fetched(holes[index])
        if fetched_urls is not None:
            yield DownloadRun(f"{label} runs the text a substitution downloads",
                              fetched_urls)
    for index in {int(m.group(1)) for arg in args for m in HOLE.finditer(arg)} - run:
        plain = insecure(_fetched(holes[index]) or ())
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
    hole = HOLE.fullmatch(name.strip())
    if hole:
        yield int(hole.group(1))
    if name in INTERPRETERS or name in CODE_WORDS:
        for arg in args:
            yield from (int(m.group(1)) for m in HOLE.finditer(arg))


@lru_cache(maxsize=512)
def _fetched(inner: str) -> tuple[str, ...] | None:
    """The URLs of the downloads a substitution's text prints, or ``None`` when none."""
    urls: list[str] = []
    downloads = False
    if not _MAY_FETCH.search(inner.translate(_UNQUOTED)):
        return None
    for pipeline in _SEPARATORS.split(inner):
        for part in _PIPE.split(pipeline):
            name, args = command(redirections(words(part))[0])
            if name in DOWNLOADERS:
                downloads = True
                urls += fetch(name, args)[0] if name in ("curl", "wget") else _urls(args)
    return tuple(urls) if downloads else None


def _urls(args: list[str]) -> list[str]:
    return [m.group(0) for arg in args if not arg.startswith("-")
            for m in [_URL.match(arg)] if m and m.group(0)]
