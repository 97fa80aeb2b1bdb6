"""The commands of one rendering as blocks a user pastes one by one -- install (pip,
docker), dependencies, companions, the Mooncake master and store, each process's
``vllm serve`` (with its exports) and ``docker run``, the router -- each with its title.

``render``'s text output is these blocks under shell-comment titles
(:func:`validator.commands.render_text.text_block`); the catalogue's configuration picker
shows the same blocks (:mod:`validator.evidence.site.configurations`), so a page shows
exactly what ``render`` prints. A ``vllm serve`` / ``docker run`` / ``export`` line holding
shell code has a ``# warning:`` line per hazard above it (REF018), and such a block is not
:attr:`Block.copyable`; an ``export`` that changes where downloads come from has a
``# note: ENV002`` line above it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from validator.analysis.env_hazards import (
    download_source_effect,
    env_name_hazards,
    env_value_hazards,
)
from validator.analysis.shell_hazards import (
    IMAGE_OPERAND,
    MODEL_OPERAND,
    WARNING,
    Hazard,
    comment_line,
    flag_item_hazards,
    hazard_lines,
    model_token,
    printed_word_hazards,
    warning_lines,
)
from validator.findings import printable
from validator.render.args import shell_quote
from validator.render.jsval import js_str
from validator.render.renderer import Process, Rendered


class Block(NamedTuple):
    """One block: its title (``install (pip)``, ``serve: vllm serve``) and lines."""

    title: str
    lines: list[str]

    @property
    def copyable(self) -> bool:
        """Whether a page may offer one click to copy it: no line is a REF018 warning."""
        warned = comment_line(f"warning: {WARNING}")
        return not any(line.startswith(warned) for line in self.lines)


@lru_cache(maxsize=4096)
def _warnings_of(command: str) -> tuple[str, ...]:
    """:func:`warning_lines` of ``command``, scanned once: the configurations of a recipe
    share most of their commands (GLM-5.2: 4,449 commands over 495 configurations), and
    scanning them again was half the time of a catalogue page."""
    return tuple(warning_lines(command))


def _warned(command: str) -> list[str]:
    """``command`` under a ``# warning:`` line per shell hazard it holds."""
    return [*_warnings_of(command), command]


def _warned_with(command: str, words: list[Hazard]) -> list[str]:
    """``command`` under its :func:`_warned` lines and one more per hazard of ``words``
    (what bash does with a value printed unquoted as one word of it: a split, a changed
    word, an operand read as an option) not already named."""
    warned = _warnings_of(command)
    extra = [line for line in hazard_lines(words) if line not in warned]
    return [*warned, *dict.fromkeys(extra), command]


def _docker_words(r: Rendered, proc: Process) -> list[Hazard]:
    """The hazards of the values ``docker run`` prints unquoted as one word each: the
    image, the model id, each ``-e KEY=VALUE`` (as ``REF018`` judges them)."""
    out = _model_words(proc)
    if isinstance(r.docker_image, str):
        out += printed_word_hazards(r.docker_image, literal=True, split=True,
                                    positional=IMAGE_OPERAND)
    for key, value in proc.env.items():
        if value is None or isinstance(value, dict | list):
            continue
        out += printed_word_hazards(str(key), literal=True, split=True)
        out += printed_word_hazards(js_str(value), literal=False, split=True)
    return out


def _model_words(proc: Process) -> list[Hazard]:
    """The hazards of the words a process's command prints unquoted: its model id, and
    each flag item bash changes (as ``FLAG027`` judges them)."""
    model = model_token(proc)
    return flag_item_hazards(proc) + ([] if model is None else printed_word_hazards(
        model.text, literal=True, split=True, positional=MODEL_OPERAND))


def _export_quoted(value: str) -> str:
    """``value`` quoted for an ``export`` line: as the site's ``shellQuote`` does, but a
    value holding a control or invisible character (a carriage return, a bidi control)
    in bash's ``$'...'`` form with that character escaped (``\\r``, ``\\u202e``),
    so that the line ``render`` prints (where such characters are shown escaped) sets
    the recipe's true value when pasted."""
    if printable(value) == value:
        return str(shell_quote(value))
    return "$'" + "".join(_ANSI_C.get(ch) or (
        f"\\u{ord(ch):04x}" if printable(ch) != ch else ch) for ch in value) + "'"


_ANSI_C = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
"""Characters bash's ``$'...'`` quoting writes escaped."""


def _download_source_note(name: str, value: str) -> list[str]:
    """A ``# note: ENV002 ...`` line for an export that changes where code, weights or
    packages are fetched from (a mirror has honest uses: a note, the block stays
    copyable), as ``check``'s warning says; none for any other export."""
    effect = download_source_effect(name, value)
    if effect is None:
        return []
    return [comment_line(f"note: ENV002 {name}={value} changes where code, weights or "
                         f"packages are fetched from: {effect}")]


def _process_blocks(r: Rendered, proc: Process) -> list[Block]:
    lines: list[str] = []
    for key, value in proc.env.items():
        lines += hazard_lines(env_name_hazards(str(key))
                              + env_value_hazards(str(key), js_str(value)))
        lines += _download_source_note(str(key), js_str(value))
        lines += _warned(f"export {key}={_export_quoted(js_str(value))}")
    out = [Block(f"{proc.role}: vllm serve",
                 [*lines, *_warned_with(str(proc.command), _model_words(proc))])]
    if proc.docker_command:
        notes = [line for key, value in proc.env.items()
                 for line in _download_source_note(str(key), js_str(value))]
        out.append(Block(f"{proc.role}: docker", [
            *notes, *_warned_with(proc.docker_command, _docker_words(r, proc))]))
    return out


def _install_blocks(r: Rendered) -> list[Block]:
    install = r.install or {}
    out = []
    if "pip" in install:
        pip = [str(install["pip"]["command"])]
        if install["pip"].get("note"):
            pip.append(comment_line(str(install["pip"]["note"])))
        out.append(Block("install (pip)", pip))
    if "docker" in install:
        out.append(Block("install (docker)", _docker_install(r, install["docker"])))
    for extra in install.get("extras") or []:
        if isinstance(extra, dict) and extra.get("command"):
            note = str(extra.get("note") or extra.get("name") or "")
            out.append(Block(f"dependency{': ' + note if note else ''}",
                             [str(extra["command"]).rstrip()]))
    return out


def blocks(r: Rendered) -> list[Block]:
    """The blocks of one rendering, in the order ``render`` prints them."""
    site = r.site or {}
    out = _install_blocks(r)
    for comp in site.get("companions") or []:
        out.append(Block(f"{comp['label']} (separate terminal)", [comp["command"]]))
    if r.deploy_type == "kv_store_lb":
        out.append(Block("mooncake master", [str((site.get("master") or {}).get(
            "command", ""))]))
        if site.get("store"):
            out.append(Block("mooncake store", [str(site["store"].get("command", ""))]))
    for proc in r.processes:
        out += _process_blocks(r, proc)
    router = site.get("router")
    if isinstance(router, dict) and router.get("command"):
        out.append(Block("router", [str(router.get("install", "")),
                                    *_warned(str(router["command"]))]))
    return out


def block_text(block: Block) -> list[str]:
    """``block`` as ``render`` prints it: a blank line, its title as a shell comment, its
    lines."""
    return ["", comment_line(f"--- {block.title} ---"), *block.lines]


def _docker_install(r: Rendered, docker: dict[str, Any]) -> list[str]:
    # The JSON API's docker line always pulls the NVIDIA image; the page pulls the image the
    # `docker run` below uses (that of the chosen hardware). A recipe's own install command
    # (not a plain pull) is shown as written.
    command = str(docker.get("command", ""))
    if r.docker_image is not None and command.startswith("docker pull ") and "\n" not in command:
        image = js_str(r.docker_image)
        return _warned_with(f"docker pull {image}", printed_word_hazards(
            image, literal=True, split=True, positional=IMAGE_OPERAND))
    return [command]
