"""Derive ``snapshots/vllm-speculative-config.json``: per vendored vLLM release, the
speculative ``method`` names its ``SpeculativeConfig`` accepts, read from the release's own
artifact (the sdist or wheel each ``snapshots/vllm-cli/<version>.json`` was extracted from,
fetched from the package index and verified against the sha256 that file's provenance
records).

The source is read, never run: :mod:`ast` finds the module declaring ``class
SpeculativeConfig`` (``vllm/config.py``, ``vllm/config/__init__.py`` or
``vllm/config/speculative.py``), the ``Literal`` its ``method`` field is annotated with (with
the module's ``Literal`` aliases it names resolved), and whether the class is a pydantic
dataclass (``dataclass`` bound to ``pydantic.dataclasses.dataclass`` where the class is
defined, or the ``config`` decorator of ``vllm/config/utils.py`` making one). Only then does
vLLM check the ``Literal`` when ``--speculative-config`` builds the object
(``SpeculativeConfig(**value)``); a standard-library dataclass takes any string and, with a
draft model, replaces an unknown method by the one it detects, so such a release records
``"methods": null`` (it rejects none). It also records the fields the constructor takes
(``keys``) and whether another key fails (``unknown_keys``: ``"rejected"`` for a
standard-library dataclass, whose constructor raises ``TypeError``, and for a pydantic one
declared with ``extra="forbid"``, vLLM 0.16.0 on; ``"ignored"``, pydantic's default, in
between). From ``__post_init__`` it records the methods taken with
``num_speculative_tokens`` and no draft ``model`` (``without_model``) and those for which
``prompt_lookup_min`` above ``prompt_lookup_max`` is refused (``lookup_order``).

    python scripts/derive_speculative_config.py --artifacts DIR [--out FILE]

``DIR`` caches the downloaded artifacts (about 2.3 GB for every release).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.release_sources import (  # noqa: E402
    SNAPSHOTS,
    derive_main,
    first_class,
    snapshots_with_option,
    source_files,
)

OUT = SNAPSHOTS / "vllm-speculative-config.json"
FORMAT = "recipe-check/vllm-speculative-config/v1"
CANDIDATES = ("vllm/config/speculative.py", "vllm/config/__init__.py", "vllm/config.py")
UTILS = "vllm/config/utils.py"


def _literal_strings(node: ast.expr, aliases: dict[str, ast.expr]) -> set[str]:
    """The strings of a ``Literal``/``Optional``/``Union``/``X | None`` annotation, the
    module's aliases it names resolved; raises ``ValueError`` on anything else."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return set()
        if isinstance(node.value, str):
            return {node.value}
    if isinstance(node, ast.Name):
        if node.id == "None":
            return set()
        if node.id in aliases:
            return _literal_strings(aliases[node.id], aliases)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _literal_strings(node.left, aliases) | _literal_strings(node.right, aliases)
    if isinstance(node, ast.Subscript):
        head = node.value.attr if isinstance(node.value, ast.Attribute) else \
            getattr(node.value, "id", "")
        if head in ("Literal", "Optional", "Union"):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return set().union(*(_literal_strings(p, aliases) for p in parts))
    raise ValueError(f"unexpected annotation {ast.unparse(node)}")


def _bindings(tree: ast.Module, stop: ast.stmt) -> dict[str, str]:
    """Where each module-level name is bound last before ``stop``: ``module.name`` of an
    import, ``def`` for a function of the module."""
    bound: dict[str, str] = {}
    for stmt in tree.body:
        if stmt is stop:
            break
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                bound[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
        elif isinstance(stmt, ast.FunctionDef):
            bound[stmt.name] = "def"
    return bound


def _config_makes_pydantic(utils: str | None) -> bool:
    """Whether ``vllm/config/utils.py``'s ``config`` decorator returns a pydantic
    dataclass (it calls ``dataclass`` bound to ``pydantic.dataclasses.dataclass``)."""
    if utils is None:
        return False
    tree = ast.parse(utils)
    defs = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "config"]
    func = defs[-1] if defs else None  # the implementation after any typing overloads
    if func is None:
        return False
    bound = _bindings(tree, func)
    calls = {n.func.id for n in ast.walk(func) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name)}
    return "dataclass" in calls and bound.get("dataclass") == "pydantic.dataclasses.dataclass"


def _init_fields(cls: ast.ClassDef) -> list[str]:
    """The fields of the class its constructor takes: annotated names of its body, less
    ``ClassVar`` ones and those whose ``field(...)`` says ``init=False``."""
    names = []
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(stmt.annotation):
            continue
        if isinstance(stmt.value, ast.Call) and any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in stmt.value.keywords):
            continue
        names.append(stmt.target.id)
    return sorted(names)


def _forbids_extra(cls: ast.ClassDef, utils: str | None) -> bool:
    """Whether the pydantic dataclass refuses keys that are no field (``extra="forbid"``
    in its own decorator, or in the ``config`` decorator of ``vllm/config/utils.py``);
    pydantic's default ignores them."""
    texts = [ast.unparse(d) for d in cls.decorator_list]
    if any("extra='forbid'" in t or 'extra="forbid"' in t for t in texts):
        return True
    if utils is None or "config" not in texts:
        return False
    tree = ast.parse(utils)
    defs = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "config"]
    return bool(defs) and any(
        isinstance(n, ast.keyword) and n.arg == "extra" and isinstance(n.value, ast.Constant)
        and n.value.value == "forbid" for n in ast.walk(defs[-1]))


def _method_strings(test: ast.expr, aliases: dict[str, ast.expr]) -> set[str] | None:
    """The methods a test ``self.method == "x"`` / ``self.method in (...)`` /
    ``self.method in get_args(Alias)`` names (``None``: a test of anything else)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and ast.unparse(test.left) == "self.method"
            and isinstance(test.ops[0], (ast.Eq, ast.In))):
        return None
    node = test.comparators[0]
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "get_args" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Name) and isinstance(aliases.get(node.id), (ast.Tuple, ast.List)):
        node = aliases[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(_literal_strings(e, aliases) for e in node.elts))
    return _literal_strings(node, aliases)


def _raises(body: list[ast.stmt]) -> bool:
    """Whether ``body`` raises outright, or when ``self.model is None`` (which it is)."""
    return any(isinstance(s, ast.Raise) or (isinstance(s, ast.If) and ast.unparse(s.test)
               == "self.model is None" and any(isinstance(b, ast.Raise) for b in s.body))
               for s in body)


def without_model(init: ast.FunctionDef, aliases: dict[str, ast.expr]) -> list[str] | None:
    """The methods ``__post_init__`` takes with ``num_speculative_tokens`` and no draft
    ``model`` (every other one raises "num_speculative_tokens was provided but without
    speculative model"); ``None`` when the chain also tests other things (the target's
    model type, before vLLM 0.11.0) and so cannot be read per method."""
    renamed: set[str] = set()
    for stmt in init.body:
        if isinstance(stmt, ast.If) and "self.model is None" in ast.unparse(stmt.test) \
                and "self.num_speculative_tokens is not None" in ast.unparse(stmt.test):
            taken: set[str] = set()
            branch: ast.If | None = stmt.body[0] if isinstance(stmt.body[0], ast.If) else None
            while branch is not None:
                names = _method_strings(branch.test, aliases)
                if names is None:
                    return None
                if not _raises(branch.body):
                    taken |= names
                orelse = branch.orelse
                branch = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) \
                    else None
                if branch is None and not _raises(orelse):
                    return None  # a method-less fallback that takes any method
            if "mtp" in taken:
                taken |= renamed
            return sorted(taken)
        if isinstance(stmt, ast.If) and any(ast.unparse(b) == "self.method = 'mtp'"
                                            for b in stmt.body):
            test = stmt.test.values[0] if isinstance(stmt.test, ast.BoolOp) else stmt.test
            renamed |= _method_strings(test, aliases) or set()
    return None


def lookup_order(init: ast.FunctionDef, aliases: dict[str, ast.expr]) -> list[str]:
    """The methods for which ``__post_init__`` refuses ``prompt_lookup_min`` above
    ``prompt_lookup_max`` (the ``if self.method ...`` branch holding that test)."""
    for stmt in ast.walk(init):
        if not isinstance(stmt, ast.If):
            continue
        names = _method_strings(stmt.test, aliases)
        if names and any(isinstance(n, ast.Compare) and ast.unparse(n) ==
                         "self.prompt_lookup_min > self.prompt_lookup_max"
                         for b in stmt.body for n in ast.walk(b)):
            return sorted(names)
    return []


def speculative_config(files: dict[str, str]) -> dict[str, Any]:
    """``{"source", "validated", "methods", "keys", "unknown_keys", "without_model",
    "lookup_order"}`` of the release whose files are ``files`` (the last two:
    :func:`without_model`, :func:`lookup_order`): ``keys`` the fields the constructor
    takes, ``unknown_keys``
    ``"rejected"`` when another key fails (a standard-library dataclass's ``TypeError``, a
    pydantic one with ``extra="forbid"``), else ``"ignored"``."""
    path, tree, cls, aliases = first_class(files, CANDIDATES, "SpeculativeConfig")
    field = next(s for s in cls.body if isinstance(s, ast.AnnAssign)
                 and isinstance(s.target, ast.Name) and s.target.id == "method")
    bound = _bindings(tree, cls)
    names = [d.id if isinstance(d, ast.Name) else getattr(d.func, "id", "")
             for d in cls.decorator_list if isinstance(d, (ast.Name, ast.Call))]
    pydantic = any(bound.get(n) == "pydantic.dataclasses.dataclass" for n in names) or (
        "config" in names and bound.get("config") == "vllm.config.utils.config"
        and _config_makes_pydantic(files.get(UTILS)))
    methods = sorted(_literal_strings(field.annotation, aliases)) if pydantic else None
    forbids = not pydantic or _forbids_extra(cls, files.get(UTILS))
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__post_init__"), None)
    return {"source": path, "validated": pydantic, "methods": methods,
            "keys": _init_fields(cls), "unknown_keys": "rejected" if forbids else "ignored",
            "without_model": None if init is None else without_model(init, aliases),
            "lookup_order": [] if init is None else lookup_order(init, aliases)}


def main() -> int:
    return derive_main(__doc__ or "", OUT, FORMAT, "scripts/derive_speculative_config.py",
                       snapshots_with_option("--speculative-config"),
                       lambda _, local: speculative_config(
                           source_files(local, (*CANDIDATES, UTILS))))


if __name__ == "__main__":
    raise SystemExit(main())
