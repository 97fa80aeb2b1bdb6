"""Extraction subprocess, names outside the parser: the tool-call and reasoning parser
registries, the ``--kv-cache-dtype`` values, the environment variables of vLLM (and of a
plugin, read from its source with :mod:`ast`), and the ``--additional-config`` keys a
plugin reads.

Part of the extraction subprocess (:mod:`validator.vllm_cli._introspect`), imported by
bare name from this folder, as ``_stubs`` is: it runs in the release's own isolated
interpreter and imports nothing of ``validator``.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import typing
from pathlib import Path
from typing import Any

from _introspect_load import (  # type: ignore[import-not-found]
    SOFT_FAILED,
)

# ----------------------------------------------------------------- parser registries


def _manager_names(manager: Any) -> list[str] | None:
    names: set[str] = set()
    found = False
    for attr in ("tool_parsers", "reasoning_parsers", "lazy_parsers", "_lazy_parsers",
                 "parsers", "_parsers"):
        d = getattr(type(manager) if not isinstance(manager, type) else manager, attr, None)
        if isinstance(d, dict):
            found = True
            names.update(str(k) for k in d)
    return sorted(names) if found else None


def _str_consts(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)
                and isinstance(e.value, str)]
    return []


def _ast_registered_names(pkg_dir: Path) -> set[str]:
    """Cross-check only: names a parser package *declares* in its source —
    ``register_module("x")`` / ``register_module(name=[...])`` calls and, for lazy
    registries, keys of dict literals mapping a name to ``(module, class)``."""
    out: set[str] = set()
    for path in sorted(pkg_dir.glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if fname in ("register_module", "register_lazy_module"):
                    arg = node.args[0] if node.args else next(
                        (k.value for k in node.keywords if k.arg in ("name", "names")), None)
                    out.update(_str_consts(arg))
            elif isinstance(node, ast.Dict) and path.name == "__init__.py":
                for k, v in zip(node.keys, node.values, strict=False):
                    if (isinstance(k, ast.Constant) and isinstance(k.value, str)
                            and isinstance(v, ast.Tuple) and len(_str_consts(v)) >= 2):
                        out.add(k.value)
    return out


def parser_registry(kind: str, serve_actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Names registered with ToolParserManager / ReasoningParserManager."""
    cls_name = "ToolParserManager" if kind == "tool" else "ReasoningParserManager"
    candidates = (
        ["vllm.tool_parsers", "vllm.entrypoints.openai.tool_parsers"]
        if kind == "tool" else ["vllm.reasoning", "vllm.entrypoints.openai.reasoning_parsers"]
    )
    for pkg in candidates:
        base = Path(sys.modules["vllm"].__path__[0]) / pkg.split(".", 1)[1].replace(".", "/")
        if not base.is_dir():
            continue
        try:
            mod = importlib.import_module(pkg)
        except Exception as exc:
            SOFT_FAILED.append({"module": pkg, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        manager = getattr(mod, cls_name, None)
        if manager is None:
            continue
        # What the package registers when imported (as ``vllm serve`` imports it):
        # eager ``@register_module`` decorators and/or the lazy name -> module table.
        names = _manager_names(manager)
        if names is not None:
            declared = _ast_registered_names(base)
            return {"names": names, "source": f"{pkg}.{cls_name}",
                    "source_only": sorted(declared - set(names)),
                    "registry_only": sorted(set(names) - declared)}
    flag = "--tool-call-parser" if kind == "tool" else "--reasoning-parser"
    for a in serve_actions:
        if flag in a["strings"] and a["choices"]:
            return {"names": sorted(a["choices"]), "source": f"{flag} choices"}
    return {"names": [], "source": "absent"}


# ---------------------------------------------------------------- kv cache, env vars


def kv_cache_dtypes(serve_actions: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"values", "source"}``: the allowed ``--kv-cache-dtype`` values: the option's
    choices, else the ``CacheDType`` ``Literal`` of the release (argparse then takes any
    string and vLLM checks later), else ``[]`` with ``source`` ``free-form``/``absent``."""
    for a in serve_actions:
        if "--kv-cache-dtype" in a["strings"] and a["choices"]:
            return {"values": sorted(set(a["choices"])), "source": "--kv-cache-dtype choices"}
    for modname in ("vllm.config.cache", "vllm.config"):
        try:
            m = importlib.import_module(modname)
        except Exception:
            continue
        lit = getattr(m, "CacheDType", None)
        if lit is not None and typing.get_origin(lit) is typing.Literal:
            return {"values": sorted(str(x) for x in typing.get_args(lit)),
                    "source": f"{modname}.CacheDType"}
    present = any("--kv-cache-dtype" in a["strings"] for a in serve_actions)
    return {"values": [], "source": "free-form" if present else "absent"}


def env_vars(vllm_dir: Path) -> dict[str, Any]:
    """``{"names", "source"}``: the keys of ``vllm.envs.environment_variables`` (an AST
    read of ``vllm/envs.py`` when importing it fails; ``[]``/``absent`` without one)."""
    try:
        envs = importlib.import_module("vllm.envs")
        d = getattr(envs, "environment_variables", None)
        if isinstance(d, dict):
            return {"names": sorted(str(k) for k in d), "source": "vllm.envs.environment_variables"}
    except Exception as exc:
        SOFT_FAILED.append({"module": "vllm.envs", "error": f"{type(exc).__name__}: {exc}"[:300]})
    p = vllm_dir / "envs.py"
    if not p.exists():
        return {"names": [], "source": "absent"}
    names = env_dict_names(p)
    return {"names": names, "source": "ast vllm/envs.py environment_variables"}


def env_dict_names(path: Path) -> list[str]:
    """Keys of the ``environment_variables`` / ``env_variables`` dict literal of ``path``."""
    if not path.exists():
        return []
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if (isinstance(target, ast.Name) and target.id in ("environment_variables",
                                                           "env_variables")
                and isinstance(value, ast.Dict)):
            names.update(k.value for k in value.keys
                         if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return sorted(names)


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _is_getenv(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "getenv") or (
        isinstance(node, ast.Name) and node.id == "getenv")


def _literal_keys(tree: ast.AST, is_mapping: Any, is_reader: Any = None) -> set[str]:
    """String literals used as keys of a mapping expression (``is_mapping(node)``):
    ``m.get("k")`` / ``m.pop("k")`` / ``m.setdefault("k")``, ``m["k"]``, ``"k" in m``;
    plus the first argument of calls whose function satisfies ``is_reader``."""
    keys: set[str] = set()
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            if (isinstance(f, ast.Attribute) and f.attr in ("get", "pop", "setdefault")
                    and is_mapping(f.value)) or (is_reader is not None and is_reader(f)):
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and is_mapping(node.value):
            key = node.slice
        elif (isinstance(node, ast.Compare) and len(node.ops) == 1
              and isinstance(node.ops[0], ast.In | ast.NotIn)
              and is_mapping(node.comparators[0])):
            key = node.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            keys.add(key.value)
    return keys


def _package_trees(pkg_dir: Path) -> Any:
    """Parsed modules of a package (those that do not parse are passed over)."""
    for path in sorted(pkg_dir.rglob("*.py")):
        try:
            yield ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue


def read_env_names(pkg_dir: Path, own_prefix: str | None = None) -> list[str]:
    """Environment variables the package reads anywhere in its source (vLLM-Omni has no
    ``envs.py`` registry; it reads them where used):

    * literal names in ``os.getenv("X")``, ``os.environ.get("X")``, ``os.environ["X"]``,
      ``"X" in os.environ``;
    * any string literal that is a whole name with the package's own prefix
      (``own_prefix``, e.g. ``VLLM_OMNI_``): names kept in constants
      (``_ENV = "VLLM_OMNI_X"; os.environ.get(_ENV)``) or inventories;
    * ``<prefix>*`` for a pydantic-settings ``env_prefix="<prefix>"`` (any name with that
      prefix is read through the settings model).
    """
    names: set[str] = set()
    whole = re.compile(re.escape(own_prefix) + r"[A-Z0-9_]+") if own_prefix else None
    for tree in _package_trees(pkg_dir):
        names |= _literal_keys(tree, _is_environ, _is_getenv)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if whole is not None and whole.fullmatch(node.value):
                    names.add(node.value)
            elif (isinstance(node, ast.keyword) and node.arg == "env_prefix"
                  and isinstance(node.value, ast.Constant)
                  and isinstance(node.value.value, str) and node.value.value):
                names.add(node.value.value + "*")
    return sorted(names)


def _is_additional_config(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "additional_config"
    return isinstance(node, ast.Attribute) and node.attr == "additional_config"


def _config_class_fields(tree: ast.AST, class_name: str) -> set[str]:
    """Field names of ``class class_name`` (annotated class attributes, not ``ClassVar``
    or private): the keys of a typed (pydantic ``@config``) additional-config model."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                        and not item.target.id.startswith("_")
                        and "ClassVar" not in ast.unparse(item.annotation)):
                    out.add(item.target.id)
    return out


def additional_config_strict(pkg_dir: Path, config_class: str | None) -> bool:
    """Whether the package declares ``config_class`` with typed fields (a pydantic model
    of the whole ``--additional-config`` object, which refuses unknown keys)."""
    if not config_class:
        return False
    return any(_config_class_fields(tree, config_class) for tree in _package_trees(pkg_dir))


def additional_config_keys(pkg_dir: Path, config_class: str | None = None) -> list[str]:
    """Top-level ``--additional-config`` keys the plugin reads anywhere in its package:
    ``<x>.additional_config.get("key")``, ``…additional_config["key"]`` and
    ``"key" in …additional_config``, plus the fields of ``config_class`` where the
    release declares the whole object as a typed model (vllm-ascend >= 0.27)."""
    keys: set[str] = set()
    for tree in _package_trees(pkg_dir):
        read = _literal_keys(tree, _is_additional_config)
        keys |= read
        if config_class:
            keys |= _config_class_fields(tree, config_class)
        if read:
            keys |= _key_set_literals(tree)
    return sorted(keys)


def _key_set_literals(tree: ast.AST) -> set[str]:
    """Public names listed in a ``*_KEYS = {…}`` literal of a module that reads
    ``additional_config``: vllm-ascend >= 0.27 lists there the legacy top-level keys it
    accepts and strips before its strict ``AscendConfig`` (``_NON_USER_INPUT_KEYS``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.endswith("_KEYS")
                and isinstance(node.value, ast.Set | ast.List | ast.Tuple)):
            out.update(e.value for e in node.value.elts if isinstance(e, ast.Constant)
                       and isinstance(e.value, str) and not e.value.startswith("_"))
    return out
