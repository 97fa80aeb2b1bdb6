"""Extraction subprocess, description: one JSON record per ``argparse`` action of the
captured ``serve`` parser (strings, value shape, JSON-valued, deprecated, ...) and the
probes that run the real root parser on argv shaped like the real command.

Part of the extraction subprocess (:mod:`validator.vllm_cli._introspect`), imported by
bare name from this folder, as ``_stubs`` is: it runs in the release's own isolated
interpreter and imports nothing of ``validator``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import warnings
from typing import Any

from _introspect_load import (  # type: ignore[import-not-found]
    DUMMY_MODEL,
)

# ------------------------------------------------------------------- describe parser


def _first_sentence(text: str | None) -> str:
    if not text or text == argparse.SUPPRESS:
        return ""
    t = " ".join(str(text).split())
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z`\[(])", t)
    if m:
        t = t[: m.start()]
    return t[:200]


def _safe_repr(v: Any) -> str | None:
    if v is None:
        return None
    if v is argparse.SUPPRESS:
        return "==SUPPRESS=="
    if isinstance(v, (str, int, float, bool)):
        return repr(v)
    if isinstance(v, (list, tuple, dict, set, frozenset)):
        try:
            s = json.dumps(v, sort_keys=True, default=str)
            return s if len(s) <= 300 else s[:297] + "..."
        except (TypeError, ValueError):
            pass
    import enum

    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    r = repr(v)
    # object reprs carry memory addresses: drop them for determinism
    r = re.sub(r" at 0x[0-9a-fA-F]+", "", r)
    return r[:300]


def _code_mentions_json(fn: Any, depth: int = 0) -> bool:
    """Does a type callable (or what it wraps) parse JSON?

    ``json.loads`` itself, a ``functools.partial`` of something that does, a closure
    over something that does (``optional_type(json.loads)``, ``parse_type(lambda x:
    TypeAdapter(C).validate_json(x))``).  When a function closes over callables, only
    those decide: ``optional_type(int)`` mentions ``json.loads`` in its body (to special-
    case it) but wraps ``int``."""
    if depth > 4 or fn is None:
        return False
    import functools

    if fn is json.loads:
        return True
    if isinstance(fn, functools.partial):
        return _code_mentions_json(fn.func, depth + 1) or any(
            _code_mentions_json(a, depth + 1) for a in fn.args)
    code = getattr(fn, "__code__", None)
    if code is None:
        call = type(fn).__dict__.get("__call__")
        code = getattr(call, "__code__", None)
        if code is None:
            return False
    wrapped = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value):
            wrapped.append(value)
    if wrapped:
        return any(_code_mentions_json(w, depth + 1) for w in wrapped)
    return bool({"loads", "validate_json", "json_loads"} & set(code.co_names))


def _is_json_action(action: argparse.Action) -> bool:
    t = action.type
    if t is None or action.nargs == 0:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = t('{"__probe__": 1}')  # type: ignore[operator]
    except Exception:
        # Rejected: a typed JSON config (validate_json of a config class) rejects
        # unknown keys; decide from what the callable does.
        return _code_mentions_json(t)
    # Accepted: a dict came back decoded -> JSON.  A string/number/None or a list (the
    # ``--device-ids`` comma splitter) -> not JSON.  Another object (a config class
    # built by ``TypeAdapter(C).validate_json``) -> decided by what the callable does.
    if isinstance(out, dict):
        return True
    if out is None or isinstance(out, (str, bytes, int, float, list, tuple)):
        return False
    return _code_mentions_json(t)


def _json_takes_string(action: argparse.Action) -> bool | None:
    """For a JSON-valued option: whether its ``type`` also takes a plain string (vLLM's
    ``union_dict_and_str`` returns non-JSON text unchanged; ``json.loads`` and typed
    config parsers raise). ``None`` for options that are not JSON-valued."""
    if not _is_json_action(action):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = action.type("image=4,audio=1")  # type: ignore[misc,operator]
    except Exception:
        return False
    return isinstance(out, str)


def _accepts(action: argparse.Action, text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            action.type(text)  # type: ignore[misc,operator]
    except Exception:
        return False
    return True


def _parses_json(action: argparse.Action) -> bool:
    """Whether the option's ``type`` decodes JSON: it takes ``{}`` and refuses JSON with a
    trailing comma. True for the custom types of old releases too (``--compilation-config``
    of 0.8-0.9 takes a level or a JSON object), which :func:`_is_json_action` misses."""
    if action.type is None or action.nargs == 0:
        return False
    return _accepts(action, "{}") and not _accepts(action, '{"level": 3,}')


def _is_deprecated(action: argparse.Action) -> bool:
    if getattr(action, "deprecated", False):
        return True
    if "deprecat" in type(action).__name__.lower():
        return True
    h = " ".join(str(action.help or "").split())
    return bool(_DEPRECATED_RE.search(h))


_DEPRECATED_RE = re.compile(
    r"^\W*deprecated\b|\b(?:is|are|now|been|being|option|flag|argument)\s+deprecated\b"
    r"|\bdeprecated\s*(?:[:;,.(-]|and\b|in\b|since\b|in favou?r\b)|\bwill be removed\b",
    re.IGNORECASE,
)


def _choices(action: argparse.Action) -> list[str] | None:
    c = action.choices
    if c is None:
        return None
    try:
        out = []
        for x in c:
            import enum

            out.append(x.value if isinstance(x, enum.Enum) and isinstance(x.value, str)
                       else str(x))
        return out
    except TypeError:
        return None


def describe(parser: argparse.ArgumentParser) -> list[dict[str, Any]]:
    """One record per action of ``parser`` (positionals and ``-h/--help`` included)."""
    groups: dict[int, str] = {}
    for g in parser._action_groups:
        for a in g._group_actions:
            groups[id(a)] = str(g.title or "")
    out = []
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            continue
        nargs = a.nargs
        negatable = isinstance(a, argparse.BooleanOptionalAction) or any(
            s.startswith("--no-") for s in a.option_strings)
        out.append({
            "strings": list(a.option_strings),
            "dest": a.dest,
            "positional": not a.option_strings,
            "action": type(a).__name__,
            "nargs": None if nargs is None else str(nargs),
            "takes_value": nargs != 0,
            "choices": _choices(a),
            "default": _safe_repr(a.default),
            "required": bool(a.required),
            "hidden": a.help == argparse.SUPPRESS,
            "deprecated": _is_deprecated(a),
            "help": _first_sentence(a.help),
            "is_json": _is_json_action(a),
            "json_takes_string": _json_takes_string(a),
            "parses_json": _parses_json(a),
            "negatable": negatable,
            "group": groups.get(id(a), ""),
        })
    return out


# ------------------------------------------------------------------------- probes


def _probe(root: argparse.ArgumentParser, argv: list[str]) -> dict[str, Any]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ns = root.parse_args(argv)
        return {"argv": argv, "ok": True, "namespace": {
            k: _safe_repr(v) for k, v in sorted(vars(ns).items())
            if not callable(v) and k in _PROBE_KEYS}}
    except SystemExit as exc:
        return {"argv": argv, "ok": False, "error": f"SystemExit({exc.code}): "
                + err.getvalue().strip().splitlines()[-1:][0][:300] if err.getvalue().strip()
                else f"SystemExit({exc.code})"}
    except Exception as exc:
        return {"argv": argv, "ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}


_PROBE_KEYS = {"speculative_config", "tensor_parallel_size", "hf_overrides",
               "compilation_config", "enable_prefix_caching", "model", "model_tag",
               "optimization_level"}


def run_probes(root: argparse.ArgumentParser, serve_available: bool,
               actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Exercise the real root parser with argv shaped like the real command."""
    prefix = ["serve", DUMMY_MODEL] if serve_available else ["--model", DUMMY_MODEL]
    strings = {s for a in actions for s in a["strings"]}
    probes: dict[str, Any] = {}
    probes["baseline"] = _probe(root, prefix)
    probes["underscore"] = _probe(root, [*prefix, "--tensor_parallel_size", "2"])
    probes["underscore_eq"] = _probe(root, [*prefix, "--tensor_parallel_size=2"])
    probes["abbrev"] = _probe(root, [*prefix, "--tensor-parallel-si", "2"])
    if "-O" in strings or "--optimization-level" in strings:
        probes["short_O"] = _probe(root, [*prefix, "-O3"])
    if "--speculative-config" in strings:
        probes["dotted"] = _probe(root, [*prefix, "--speculative-config.method", "mtp"])
        probes["dotted_underscore"] = _probe(
            root, [*prefix, "--speculative_config.num_speculative_tokens", "1"])
    if "--hf-overrides" in strings:
        probes["dotted_hf_overrides"] = _probe(root, [*prefix, "--hf-overrides.foo", "1"])
    return probes
