"""The ``vllm serve`` commands written in a recipe's markdown ``guide``.

Finds fenced shell blocks (```` ```bash ````, ``sh``, ``shell``, ``console`` and unlabelled
fences), joins backslash line continuations the way bash does (and notes the two ways
they break: a backslash followed by blanks, which escapes the blank instead of the
newline, and a flag line whose previous line lost its backslash), tokenises each logical
line with :mod:`shlex` (POSIX rules, shell operators split off, ``#`` comments dropped),
and recognises three command shapes:

* ``[VAR=x ...] vllm serve MODEL ARGS`` (also after ``sudo``/``nohup``/``exec``/``env``);
* ``python[3] -m vllm.entrypoints.openai.api_server ARGS`` (the model in ``--model``);
* ``docker run DOCKER-OPTIONS IMAGE [MODEL] ARGS`` for vLLM images, whose entrypoint is
  ``vllm serve`` (``--entrypoint vllm IMAGE serve MODEL ARGS`` and an explicit
  ``vllm serve``/``python -m ...`` command after the image are understood too).

Everything else in a fence (``vllm bench``, ``curl``, ``uv pip``, benchmark output,
comments) is not a serve command. Line numbers are 0-based lines of the guide text, for
``SourceMap.block_line('/guide', i)``. Never raises on any input text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import lru_cache

#: Fence languages treated as shell.
SHELL_LANGS = frozenset({"bash", "sh", "shell", "console", "zsh", ""})

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.*?)\s*#*\s*$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FLAG_LINE = re.compile(r"^-{1,2}[A-Za-z]")
_GLUED_FENCE = re.compile(r"\s`{3,}\s*$")
#: Words that stand for "more arguments here" in prose-like commands.
ELLIPSES = frozenset({"...", "…", "[...]", "<...>"})
_PROMPT = re.compile(r"^(?:\$|#|>)\s+")
_OPERATORS = frozenset({"&", "&&", "||", "|", ";", ";;", ">", ">>", "<", "<<", "(", ")",
                        "|&", "2>", "2>>", "&>"})
_WRAPPERS = frozenset({"sudo", "nohup", "exec", "time", "env", "command"})
_API_SERVER_MODULES = frozenset({"vllm.entrypoints.openai.api_server",
                                 "vllm.entrypoints.api_server"})

#: ``docker run`` options that take a value (docker CLI reference, ``docker run --help``).
DOCKER_VALUE_OPTIONS = frozenset({
    "-a", "--attach", "--add-host", "--blkio-weight", "--cap-add", "--cap-drop",
    "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota",
    "--cpu-shares", "-c", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--device",
    "--device-cgroup-rule", "--dns", "--dns-option", "--dns-search", "--domainname",
    "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus", "--group-add",
    "--health-cmd", "--health-interval", "--health-retries", "--health-start-period",
    "--health-timeout", "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation",
    "--kernel-memory", "-l", "--label", "--label-file", "--link", "--log-driver",
    "--log-opt", "--mac-address", "-m", "--memory", "--memory-reservation",
    "--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net",
    "--network-alias", "--pid", "--pids-limit", "--platform", "-p", "--publish",
    "--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal",
    "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs", "-u", "--user",
    "--ulimit", "--userns", "--uts", "-v", "--volume", "--volume-driver",
    "--volumes-from", "-w", "--workdir",
})


@dataclass(frozen=True)
class Fence:
    """One fenced block: its language, the 0-based guide line of the opening fence and
    the content lines (``first`` is the guide line of ``lines[0]``)."""

    lang: str
    start: int
    first: int
    lines: tuple[str, ...]
    section: str
    section_line: int | None
    closed: bool = True

    @property
    def glued_close(self) -> bool:
        """Whether a line of the block ends with the fence marker after other text (the
        author's closing fence, glued to a command line; see ``GUIDE013``)."""
        return any(_GLUED_FENCE.search(line) for line in self.lines)


@dataclass(frozen=True)
class LineIssue:
    """A broken line continuation.

    ``kind`` is ``"trailing_blank"`` (a ``\\`` followed by blanks), ``"lost_backslash"``
    (a flag line after a command line without ``\\``) or ``"glued_fence"`` (a closing
    ```` ``` ```` written at the end of a command line, so markdown never closes the block
    and bash sees backticks); ``line`` the 0-based guide line concerned.
    """

    kind: str
    line: int
    text: str


@dataclass(frozen=True)
class Word:
    """One shell word and the 0-based guide line it starts on."""

    text: str
    line: int


@dataclass(frozen=True)
class ServeCommand:
    """One ``vllm serve`` invocation found in the guide.

    Attributes:
        kind: ``"vllm serve"``, ``"api_server"`` or ``"docker"``.
        model: the served model (positional or ``--model``), ``None`` when absent.
        model_line: guide line of the model word.
        args: the arguments after the model, as ``vllm serve`` receives them (for
            ``--model`` forms, with ``--model X`` removed).
        arg_lines: guide line of each of ``args``.
        env: environment variables set for it (prefix assignments, ``export`` lines
            earlier in the same fence, ``docker -e``): ``(name, value, line)``.
        line: guide line where the command starts.
        fence: index of its fence in the guide.
        section: the markdown heading it is under (``""`` before the first heading).
        image: the docker image, for ``docker run``.
    """

    kind: str
    model: str | None
    model_line: int
    args: tuple[str, ...]
    arg_lines: tuple[int, ...]
    env: tuple[tuple[str, str, int], ...]
    line: int
    fence: int
    section: str
    image: str | None = None


@dataclass
class GuideCommands:
    """What :func:`parse_guide` found."""

    fences: list[Fence] = field(default_factory=list)
    commands: list[ServeCommand] = field(default_factory=list)
    issues: list[LineIssue] = field(default_factory=list)
    exports: list[tuple[str, str, int]] = field(default_factory=list)


def find_fences(text: str) -> list[Fence]:
    """Every fenced block of markdown ``text`` (unterminated fences run to the end).

    Several rules read the fences of one guide: the scan is done once per text (the
    fences are frozen; each call gets its own list)."""
    return list(_fences(text))


@lru_cache(maxsize=64)
def _fences(text: str) -> tuple[Fence, ...]:
    lines = text.splitlines()
    out: list[Fence] = []
    section, section_line = "", None
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            h = _HEADING.match(lines[i])
            if h is not None:
                section, section_line = h.group("title"), i
            i += 1
            continue
        marker = m.group("fence")
        close = re.compile(r"^\s*" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        out.append(Fence(m.group("lang").lower(), i, i + 1, tuple(lines[i + 1:j]), section,
                         section_line, closed=j < len(lines)))
        i = j + 1
    return tuple(out)


def _logical_lines(fence: Fence, issues: list[LineIssue]) -> list[list[tuple[str, int]]]:
    """Group a shell fence's lines into logical lines: ``[(physical text, line), ...]``,
    continuation backslashes removed."""
    groups: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    quote: str | None = None  # open quote at the end of ``current`` (scanned line by line)
    prev_command = False  # the previous physical line belongs to a command
    for k, raw in enumerate(fence.lines):
        line_no = fence.first + k
        stripped = raw.strip()
        if not current and _FLAG_LINE.match(stripped) and prev_command and groups:
            issues.append(LineIssue("lost_backslash", line_no, stripped))
            current = groups.pop()  # the intended command: check its flags together
            quote = None
            for text, _ in current:
                quote = _quote_after(text, quote)
        glued = _GLUED_FENCE.search(raw)
        if glued is not None and raw[:glued.start()].strip():
            issues.append(LineIssue("glued_fence", line_no, raw.strip()))
            raw = raw[:glued.start()]
            stripped = raw.strip()
        body = raw.rstrip()
        if body.endswith("\\") and raw != body:
            issues.append(LineIssue("trailing_blank", line_no, raw))
        if not stripped:
            if current:
                groups.append(current)
                current, quote = [], None
            prev_command = False
            continue
        if stripped.startswith("#") and not current:
            prev_command = False
            continue
        continued = body.endswith("\\") and not body.endswith("\\\\")
        current.append((body[:-1] if continued else body, line_no))
        quote = _quote_after(current[-1][0], quote)  # one pass per line: linear overall
        if not continued and quote is not None:
            prev_command = True
            continue  # a quoted string spans the newline
        if not continued:
            groups.append(current)
            prev_command = _is_commandish(current)
            current = []
        else:
            prev_command = True
    if current:
        groups.append(current)
    return groups


def _quote_after(text: str, quote: str | None) -> str | None:
    """The open quote (``'``, ``"`` or ``None``) after reading one line ``text`` that starts
    inside ``quote`` (POSIX rules; an unquoted ``#`` ends the line's scan)."""
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif quote == "'":
            if ch == "'":
                quote = None
        elif ch == "\\":
            escaped = True
        elif quote == '"':
            if ch == '"':
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and quote is None:
            break
    return quote


def _is_commandish(group: list[tuple[str, int]]) -> bool:
    """Whether a logical line runs vllm, docker or python (first word after any
    ``VAR=value`` prefixes and wrappers; a cheap whitespace split is enough here)."""
    for word in group[0][0].split():
        if _ENV.match(word) or word in _WRAPPERS or word in ("$", ">"):
            continue
        return word in ("vllm", "docker", "python", "python3") or word.endswith("/vllm")
    return False


def _split_words(group: list[tuple[str, int]]) -> list[Word]:
    """Shell words of one logical line, each with the guide line it starts on.

    Each physical line is tokenised on its own; a quoted string that spans lines is
    tokenised together with the lines it spans. Unbalanced quotes fall back to
    whitespace splitting. Words after a shell operator (``|``, ``&&``, ``>``...) and
    ``#`` comments are dropped.
    """
    words: list[Word] = []
    k = 0
    while k < len(group):
        text, line = group[k]
        # join the lines a quoted string spans, found with one linear scan (retrying
        # shlex on ever longer text was quadratic in the number of lines)
        j = k
        quote = _quote_after(text, None)
        while quote is not None and j + 1 < len(group):
            j += 1
            text = text + "\n" + group[j][0]
            quote = _quote_after(group[j][0], quote)
        try:
            toks = _shlex(text)
        except ValueError:  # unbalanced to the end: plain whitespace splitting
            toks = text.split()
        for tok in toks:
            if tok in _OPERATORS or (tok and set(tok) <= set("&|;<>()")):
                return words
            if tok not in ELLIPSES:
                words.append(Word(tok, line))
        k = j + 1
    return words


_SPECIAL = re.compile(r"[\"'\\#;&|<>()]")
_PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z][\w.\-/ ]*)>(?!>)")


def _shlex(text: str) -> list[str]:
    # `<model>`-style placeholders are not redirections: keep them as `${model}` words
    text = _PLACEHOLDER.sub(lambda m: "${" + m.group(1).replace(" ", "_") + "}", text)
    if not _SPECIAL.search(text):
        return text.split()  # nothing shlex would treat specially
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lex.whitespace_split = True
    lex.commenters = "#"
    return list(lex)


def _strip_prefix(words: list[Word]) -> tuple[list[tuple[str, str, int]], list[Word]]:
    """Split leading ``VAR=value`` assignments and wrappers (``sudo``, ``nohup``...)."""
    env: list[tuple[str, str, int]] = []
    i = 0
    while i < len(words):
        w = words[i].text
        if _ENV.match(w):
            name, value = w.split("=", 1)
            env.append((name, value, words[i].line))
        elif w not in _WRAPPERS:
            break
        i += 1
    return env, words[i:]


def parse_guide(text: str) -> GuideCommands:
    """Find every serve command, continuation issue and ``export`` in ``text``.

    Never raises: unparseable shell text yields fewer commands, not an exception.
    """
    result = GuideCommands(fences=find_fences(text))
    for f_index, fence in enumerate(result.fences):
        if fence.lang not in SHELL_LANGS:
            continue
        exports: list[tuple[str, str, int]] = []
        for group in _logical_lines(fence, result.issues):
            words = _split_words(group)
            if words and _PROMPT.match(group[0][0].lstrip()) and words[0].text in "$#>":
                words = words[1:]
            if not words:
                continue
            if words[0].text == "export":
                for w in words[1:]:
                    if _ENV.match(w.text):
                        name, value = w.text.split("=", 1)
                        exports.append((name, value, w.line))
                continue
            env, rest = _strip_prefix(words)
            cmd = _recognise(rest, env, exports, group[0][1], f_index, fence.section)
            if cmd is not None:
                result.commands.append(cmd)
        result.exports.extend(exports)
    return result


@lru_cache(maxsize=8)
def parsed_guide(text: str) -> GuideCommands:
    """:func:`parse_guide` of ``text``, once per text for the last few texts: the rules of
    one recipe read its guide five times. Shared: callers read it, never change it."""
    return parse_guide(text)


def _recognise(words: list[Word], env: list[tuple[str, str, int]],
               exports: list[tuple[str, str, int]], line: int, fence: int,
               section: str) -> ServeCommand | None:
    if not words:
        return None
    head = words[0].text
    envs = tuple(exports) + tuple(env)
    if (head == "vllm" or head.endswith("/vllm")) and len(words) > 1 and words[1].text == "serve":
        return _serve(words[2:], "vllm serve", envs, line, fence, section, None)
    if head.rsplit("/", 1)[-1].startswith("python") and len(words) > 2 and (
            words[1].text == "-m" and words[2].text in _API_SERVER_MODULES):
        return _serve(words[3:], "api_server", envs, line, fence, section, None,
                      positional=False)
    if head == "docker" and len(words) > 1 and words[1].text == "run":
        return _docker(words[2:], envs, line, fence, section)
    return None


def _serve(words: list[Word], kind: str, env: tuple[tuple[str, str, int], ...], line: int,
           fence: int, section: str, image: str | None, positional: bool = True
           ) -> ServeCommand:
    model: str | None = None
    model_line = line
    rest = list(words)
    if positional and rest and not rest[0].text.startswith("-"):
        model, model_line = rest[0].text, rest[0].line
        rest = rest[1:]
    if model is None:
        for k, w in enumerate(rest):
            if w.text == "--model" and k + 1 < len(rest):
                model, model_line = rest[k + 1].text, rest[k + 1].line
                rest = rest[:k] + rest[k + 2:]
                break
            if w.text.startswith("--model="):
                model, model_line = w.text.split("=", 1)[1], w.line
                rest = rest[:k] + rest[k + 1:]
                break
    return ServeCommand(kind, model, model_line, tuple(w.text for w in rest),
                        tuple(w.line for w in rest), env, line, fence, section, image)


def _docker(words: list[Word], env: tuple[tuple[str, str, int], ...], line: int, fence: int,
            section: str) -> ServeCommand | None:
    denv: list[tuple[str, str, int]] = []
    entrypoint: str | None = None
    i = 0
    while i < len(words):
        w = words[i].text
        if not w.startswith("-") or w == "-":
            break
        key, eq, value = w.partition("=")
        takes = key in DOCKER_VALUE_OPTIONS
        if takes and not eq:
            value = words[i + 1].text if i + 1 < len(words) else ""
            i += 1
        if key in ("-e", "--env") and "=" in value:
            name, val = value.split("=", 1)
            denv.append((name, val, words[i].line))
        if key == "--entrypoint":
            entrypoint = value
        i += 1
    if i >= len(words):
        return None
    image = words[i].text
    cmd = words[i + 1:]
    all_env = env + tuple(denv)
    if entrypoint is not None:
        base = entrypoint.rsplit("/", 1)[-1]
        if base == "vllm" and cmd and cmd[0].text == "serve":
            return _serve(cmd[1:], "docker", all_env, line, fence, section, image)
        if entrypoint.split() == ["vllm", "serve"]:
            return _serve(cmd, "docker", all_env, line, fence, section, image)
        return None
    if cmd and cmd[0].text in ("vllm",) and len(cmd) > 1 and cmd[1].text == "serve":
        return _serve(cmd[2:], "docker", all_env, line, fence, section, image)
    if cmd and cmd[0].text.rsplit("/", 1)[-1].startswith("python"):
        if len(cmd) > 2 and cmd[1].text == "-m" and cmd[2].text in _API_SERVER_MODULES:
            return _serve(cmd[3:], "docker", all_env, line, fence, section, image,
                          positional=False)
        return None
    if cmd and cmd[0].text in ("bash", "sh", "/bin/bash", "/bin/sh"):
        return None
    if "vllm" not in image.lower() or "omni" in image.lower():
        return None
    return _serve(cmd, "docker", all_env, line, fence, section, image)
