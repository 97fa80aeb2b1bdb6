"""Extraction subprocess, value kinds: what the ``type`` callable of each ``serve`` option
accepts, named as one kind a checker can judge values by without the release's code.

argparse's ``type`` is a callable (``int``, ``float``, vLLM's ``optional_type(int)``,
``human_readable_int``, ``human_readable_int_or_auto``, ``parse_type(json.loads)``, old
releases' own lambdas). Its name says little, so each callable is *run* on a fixed set of
probe strings, and what it accepts names the kind:

* ``int``: takes ``8192``, refuses ``1.5`` and ``abc`` (``human_int`` when it also takes
  ``1k``: vLLM's human-readable integers, ``32K``, ``25.6k``);
* ``float``: takes ``1.5`` and ``1e3``, refuses ``abc``;
* ``bool``: takes ``true`` and ``false``, refuses ``abc`` (its accepted words are listed);
* anything that takes ``abc`` (a string, a JSON-or-string union, a list splitter) or that
  none of these describe has no kind: its values are not judged.

``words`` lists the special probe words the callable also takes (``auto`` of
``human_readable_int_or_auto``, ``None`` and the empty string of ``optional_type``).

Part of the extraction subprocess (:mod:`validator.vllm_cli._introspect`): it runs in the
release's own interpreter and imports nothing of ``validator``.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

#: Special words a typed option may also take (checked against the callable itself).
SPECIAL_WORDS = ("auto", "None", "none", "")
#: The words a boolean type may take.
BOOL_WORDS = ("true", "false", "True", "False", "1", "0", "yes", "no", "on", "off")


def _accepts(fn: Any, text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(text)
    except Exception:
        return False
    return True


def _kind(fn: Any) -> str | None:
    """The kind of type callable ``fn`` (``None``: no kind judges its values)."""
    if _accepts(fn, "abc") or _accepts(fn, "{}"):
        return None
    if _accepts(fn, "8192") and not _accepts(fn, "1.5"):
        return "human_int" if _accepts(fn, "1k") else "int"
    if _accepts(fn, "1.5") and _accepts(fn, "1e3"):
        return "float"
    if _accepts(fn, "true") and _accepts(fn, "false"):
        return "bool"
    return None


def value_kind(action: argparse.Action) -> dict[str, Any] | None:
    """``{"kind": ..., "words": [...]}`` for a value-taking option with a typed value and
    no ``choices`` (a choice list is judged by itself), else ``None``."""
    fn = action.type
    if fn is None or action.nargs == 0 or not action.option_strings or action.choices:
        return None
    if not callable(fn):
        return None
    kind = _kind(fn)
    if kind is None:
        return None
    probes = BOOL_WORDS if kind == "bool" else SPECIAL_WORDS
    return {"kind": kind, "words": [w for w in probes if _accepts(fn, w)]}


def value_kinds(parser: argparse.ArgumentParser) -> dict[str, dict[str, Any]]:
    """The :func:`value_kind` of each typed option of ``parser``, by its first option
    string (``--max-model-len``)."""
    out: dict[str, dict[str, Any]] = {}
    for action in parser._actions:
        found = value_kind(action)
        if found is not None:
            out.setdefault(action.option_strings[0], found)
    return out
