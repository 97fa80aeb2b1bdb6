"""Derive ``snapshots/vllm-config-values.json``: per vendored vLLM release, which options
take only ``KEY=VALUE`` pairs and what the config classes behind three JSON-valued options
accept, read from the release's own artifact (the sdist or wheel each
``snapshots/vllm-cli/<version>.json`` was extracted from, fetched from the package index
and verified against the sha256 that file's provenance records), as
``scripts/derive_speculative_config.py`` does for ``--speculative-config``.

The source is read, never run (:mod:`ast`):

- ``kvs_options``: the option strings ``vllm/engine/arg_utils.py`` registers with
  ``type=nullable_kvs`` (``--limit-mm-per-prompt`` up to vLLM 0.8.4): that type splits the
  value at ``,`` and each item at ``=`` and refuses anything else ("Each item should be in
  the form KEY=VALUE"), so a JSON object there stops argparse.
- ``configs``: for ``--compilation-config`` (``CompilationConfig``),
  ``--structured-outputs-config`` (``StructuredOutputsConfig``) and ``--eplb-config``
  (``EPLBConfig``), the class's ``source``, whether it is a pydantic dataclass
  (``validated``, read as for ``SpeculativeConfig``), the fields its constructor takes
  (``keys``), whether another key fails (``unknown_keys``: ``"rejected"`` only for a
  pydantic dataclass declared with ``extra="forbid"``; ``"unchecked"`` otherwise: a
  pydantic default ignores it, and how an older class is built is not read here) and, for
  a validated class, what some fields take (``values``): ``literal`` (the strings of a
  ``Literal`` annotation, its aliases resolved: pydantic refuses any other value),
  ``enum_name`` (a ``mode="before"`` field validator returning ``Enum[value.upper()]``:
  the member names, any case; another name is a ``KeyError``) and ``int`` (an ``int``
  annotation: pydantic refuses a string that is not an integer). A field with another
  ``before``/``wrap`` validator, or a class with a ``before``/``wrap`` model validator, is
  not described (its input is rewritten before the type sees it).

    python scripts/derive_config_values.py --artifacts DIR [--out FILE]

``DIR`` caches the downloaded artifacts (the cache of the other ``derive_*`` scripts).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.derive_speculative_config import (  # noqa: E402
    UTILS,
    _bindings,
    _config_makes_pydantic,
    _forbids_extra,
    _init_fields,
    _literal_strings,
)
from scripts.release_sources import (  # noqa: E402
    SNAPSHOTS,
    derive_main,
    first_class,
    snapshots,
    source_files,
)

OUT = SNAPSHOTS / "vllm-config-values.json"
FORMAT = "recipe-check/vllm-config-values/v1"
ARG_UTILS = "vllm/engine/arg_utils.py"
_OLD = ("vllm/config/__init__.py", "vllm/config.py")
CONFIGS = {
    "--compilation-config": ("CompilationConfig", ("vllm/config/compilation.py", *_OLD)),
    "--structured-outputs-config": ("StructuredOutputsConfig",
                                    ("vllm/config/structured_outputs.py", *_OLD)),
    "--eplb-config": ("EPLBConfig", ("vllm/config/parallel.py", *_OLD)),
}
"""Option -> (its config class, the modules that may define it, newest layout first)."""


def kvs_options(text: str | None) -> list[str]:
    """The option strings ``arg_utils.py`` text registers with ``type=nullable_kvs``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(text or "")):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" \
                and any(k.arg == "type" and isinstance(k.value, ast.Name)
                        and k.value.id == "nullable_kvs" for k in node.keywords):
            found |= {a.value for a in node.args if isinstance(a, ast.Constant)
                      and isinstance(a.value, str) and a.value.startswith("--")}
    return sorted(found)


def _validators(cls: ast.ClassDef, kind: str) -> dict[str, list[tuple[str, ast.FunctionDef]]]:
    """Field (``"*"`` for a model validator) -> (mode, method) of each ``@field_validator``
    / ``@model_validator`` (``kind``) method of ``cls``, in order."""
    out: dict[str, list[tuple[str, ast.FunctionDef]]] = {}
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        for deco in stmt.decorator_list:
            if not (isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == kind):
                continue
            mode = next((k.value.value for k in deco.keywords if k.arg == "mode"
                         and isinstance(k.value, ast.Constant)), "after")
            names = [a.value for a in deco.args if isinstance(a, ast.Constant)] or ["*"]
            for name in names:
                out.setdefault(str(name), []).append((str(mode), stmt))
    return out


def _passes_through(method: ast.FunctionDef) -> bool:
    """Whether a ``wrap`` validator hands its input on unchanged: each ``return`` gives the
    value itself or ``handler(value)`` (vLLM's "skip validation of None" wrapper)."""
    args = [a.arg for a in method.args.args]
    if len(args) < 3:
        return False
    value, handler = args[1], args[2]
    returns = [n for n in ast.walk(method) if isinstance(n, ast.Return)]
    return bool(returns) and all(ast.unparse(r.value) in (value, f"{handler}({value})")
                                 for r in returns if r.value is not None)


def _enum_members(tree: ast.Module, name: str) -> list[str] | None:
    """The member names of enum class ``name`` of the module (``NAME = value`` lines)."""
    cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name), None)
    if cls is None:
        return None
    return sorted(t.id for s in cls.body if isinstance(s, ast.Assign) for t in s.targets
                  if isinstance(t, ast.Name) and t.id.isupper())


def _enum_by_name(method: ast.FunctionDef, tree: ast.Module) -> list[str] | None:
    """The members a before-validator ``return Enum[value.upper()]`` takes, else ``None``."""
    for node in ast.walk(method):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Subscript) \
                and isinstance(node.value.value, ast.Name) \
                and ast.unparse(node.value.slice).endswith(".upper()"):
            return _enum_members(tree, node.value.value.id)
    return None


def _field_kind(stmt: ast.AnnAssign, aliases: dict[str, ast.expr]) -> dict[str, Any] | None:
    """``literal`` or ``int`` of a field annotation without a validator rewriting it."""
    text = ast.unparse(stmt.annotation).replace(" ", "")
    if text in ("int", "int|None", "Optional[int]"):
        return {"kind": "int"}
    try:
        strings = _literal_strings(stmt.annotation, aliases)
    except ValueError:
        return None
    return {"kind": "literal", "values": sorted(strings)} if strings else None


def field_values(cls: ast.ClassDef, tree: ast.Module,
                 aliases: dict[str, ast.expr]) -> dict[str, dict[str, Any]]:
    """What each describable field of a validated config class takes (module docstring)."""
    if any(mode != "after" for mode, _ in _validators(cls, "model_validator").get("*", [])):
        return {}
    validators = _validators(cls, "field_validator")
    out: dict[str, dict[str, Any]] = {}
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        rewriting = [(mode, method) for mode, method in validators.get(name, [])
                     if mode != "after" and not (mode == "wrap" and _passes_through(method))]
        if len(rewriting) == 1 and rewriting[0][0] == "before":
            members = _enum_by_name(rewriting[0][1], tree)
            if members:
                out[name] = {"kind": "enum_name", "values": members}
            continue
        kind = None if rewriting else _field_kind(stmt, aliases)
        if kind is not None:
            out[name] = kind
    return out


def config_class(files: dict[str, str], name: str, candidates: tuple[str, ...]
                 ) -> dict[str, Any]:
    """``{"source", "validated", "keys", "unknown_keys", "values"}`` of config class
    ``name`` in a release whose files are ``files`` (module docstring)."""
    path, tree, cls, aliases = first_class(files, candidates, name)
    bound = _bindings(tree, cls)
    names = [d.id if isinstance(d, ast.Name) else getattr(d.func, "id", "")
             for d in cls.decorator_list if isinstance(d, (ast.Name, ast.Call))]
    pydantic = any(bound.get(n) == "pydantic.dataclasses.dataclass" for n in names) or (
        "config" in names and bound.get("config") == "vllm.config.utils.config"
        and _config_makes_pydantic(files.get(UTILS)))
    forbids = pydantic and _forbids_extra(cls, files.get(UTILS))
    return {"source": path, "validated": pydantic, "keys": _init_fields(cls),
            "unknown_keys": "rejected" if forbids else "unchecked",
            "values": field_values(cls, tree, aliases) if pydantic else {}}


def release_entry(files: dict[str, str], options: set[str]) -> dict[str, Any]:
    """``{"kvs_options", "configs"}`` of one release (``options``: its option strings)."""
    configs = {option: config_class(files, name, candidates)
               for option, (name, candidates) in CONFIGS.items() if option in options}
    return {"kvs_options": kvs_options(files.get(ARG_UTILS)), "configs": configs}


def main() -> int:
    wanted = {ARG_UTILS, UTILS, *(p for _, c in CONFIGS.values() for p in c)}

    def describe(doc: dict[str, Any], local: Path) -> dict[str, Any]:
        options = {s for o in doc["options"] for s in o["strings"]}
        return release_entry(source_files(local, wanted), options)

    return derive_main(__doc__ or "", OUT, FORMAT, "scripts/derive_config_values.py",
                       snapshots(lambda d: "options" in d), describe)


if __name__ == "__main__":
    raise SystemExit(main())
