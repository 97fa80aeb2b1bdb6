"""``FLAG027``: a flag item of an argument list that bash changes when it reads the
command the site prints (:mod:`validator.analysis.shell_words` models how bash reads it)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from validator.analysis.arg_layers import collect_layers
from validator.analysis.shell_words import flag_item_change
from validator.findings import Severity
from validator.rules.api import RECIPE_ONLY, Hit, rule

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _yaml_single(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _hint(item: str) -> str:
    m = re.match(r"^(-{1,2}[A-Za-z][\w.+-]*)(?:=|\s+)(.+)$", item, re.DOTALL)
    if m is None:
        return ("write the flag without shell-special characters, and its value as the "
                "next list item (the site quotes a value item)")
    return (f"write the flag and its value as two list items, `- \"{m.group(1)}\"` then "
            f"`- {_yaml_single(m.group(2))}`, so the site quotes the value")


@rule("FLAG027", Severity.ERROR, "Flag item the shell changes",
      reads=RECIPE_ONLY)
def flag_item_the_shell_changes(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A list item starting with ``-`` holds characters bash acts on. The site prints a
    flag item unquoted (only the value item after a flag is quoted), so the command users
    copy passes something else: below, bash expands the braces and removes the quotes, and
    vLLM gets ``--speculative-config=method:ngram`` and
    ``--speculative-config=num_speculative_tokens:2``. Braces, globs (``*``, ``?``,
    ``[...]``), quotes, backslashes, ``; & | < > ( )``, a backquote, ``$(``, a leading
    ``~`` and a ``#`` that starts a word are reported, with the words bash produces; a
    bare ``$NAME`` / ``${NAME}`` is not (bash expands it, which is usually meant), nor is
    whitespace alone (``FLAG020``).

    Failing::

        model:
          base_args: ['--speculative-config={"method":"ngram","num_speculative_tokens":2}']

    Passing::

        model:
          base_args: ["--speculative-config", '{"method":"ngram","num_speculative_tokens":2}']

    How to fix: write the flag and its value as two list items, so the site quotes the
    value."""
    out: list[Hit] = []
    for layer in collect_layers(doc.data):
        for index, item in enumerate(layer.tokens):
            change = flag_item_change(item)
            if change is None:
                continue
            what, words = change
            out.append(Hit(f"{layer.pointer}/{index}",
                           f"the site prints the flag item `{item}` unquoted and bash "
                           f"changes it ({what}): the copied command passes {words}",
                           _hint(item)))
    return out
