"""``FLAG038``: a file path of the recipe that starts with ``~``, which the command the site
prints never expands."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.arg_layers import collect_layers
from validator.analysis.shell_words import printed_raw
from validator.findings import Severity
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

FILE_OPTIONS: dict[str, str] = {
    "--chat-template": "vLLM opens it as written and stops (\"looks like a file path, but it "
    "failed to be opened\")",
    "--ssl-keyfile": "uvicorn's `ssl` opens it as written and the server does not start",
    "--ssl-certfile": "uvicorn's `ssl` opens it as written and the server does not start",
    "--ssl-ca-certs": "uvicorn's `ssl` opens it as written and the server does not start",
}
"""The ``vllm serve`` options whose value is a file vLLM (or uvicorn) opens without
expanding ``~`` -> what happens to it. (``--lora-modules`` paths are expanded by vLLM's
``get_adapter_absolute_path``: not listed.)"""


def home_paths(tokens: tuple[str, ...]) -> Iterator[tuple[int, str, str]]:
    """``(item index, option, value)`` of each listed option whose value starts with ``~``
    and reaches vLLM as written: a value item the site quotes (after its flag item), or
    ``--option=~/...`` (bash expands a ``~`` only at the start of a word or after the
    ``=`` of an assignment)."""
    raw = printed_raw(tokens)
    for at, token in enumerate(tokens):
        option, eq, inline = token.partition("=")
        if option not in FILE_OPTIONS:
            continue
        if eq and inline.startswith("~"):
            yield at, option, inline
        elif not eq and at + 1 < len(tokens) and not raw[at + 1] \
                and tokens[at + 1].startswith("~"):
            yield at + 1, option, tokens[at + 1]


@rule("FLAG038", Severity.ERROR, "A file path that starts with ~ is never expanded",
      reads=RECIPE_ONLY)
def unexpanded_home_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A file option of an argument list (``--chat-template``, ``--ssl-keyfile``,
    ``--ssl-certfile``, ``--ssl-ca-certs``) has a value that starts with ``~``. The site
    prints a flag's value single-quoted (``--chat-template '~/t.jinja'``), so bash does
    not expand the ``~``, nor after ``--chat-template=``; vLLM then opens a path under a
    folder literally named ``~`` in its working directory, which does not exist, and
    stops at start-up. A path inside the container of ``docker run`` would not be the
    reader's home either.

    Failing::

        model:
          base_args: ["--chat-template", "~/templates/chat.jinja"]

    Passing::

        model:
          base_args: ["--chat-template", "/opt/templates/chat.jinja"]

    How to fix: write an absolute path (one the reader creates, mounted into the
    container for ``docker run``), or leave the option out to use the model's own chat
    template."""
    for layer in collect_layers(doc.data):
        for at, option, value in home_paths(layer.tokens):
            yield Hit(join_pointer(layer.pointer, at),
                      f"`{option} {value}` in {layer.label}: the site prints the path "
                      f"quoted, so the shell never expands `~`: {FILE_OPTIONS[option]}",
                      "write an absolute path, or leave the option out")
