"""Extraction subprocess: build one vLLM release's own ``vllm serve`` parser and dump it.

Run as ``python -I _introspect.py SRC_ROOT OUT_JSON`` where ``SRC_ROOT`` contains the
unpacked ``vllm/`` package of ONE release (and, when known, ``entry_point.txt`` naming
the ``vllm`` console script target).  Only the standard library, pydantic (which vLLM
itself uses) and numpy are imported for real; everything else the release imports is
stubbed by ``_stubs``.

How the parser is obtained (first that works; the method is recorded):

1. ``console-script``: the release's ``vllm`` console script (``vllm.scripts:main``
   for 0.5.2-0.7.x, ``vllm.entrypoints.cli.main:main`` afterwards) is executed with
   ``sys.argv = ["vllm", "serve", "<model>"]``; ``argparse`` is instrumented so that
   every sub-parser created is recorded, and the first ``parse_args`` call on the root
   parser raises before anything is served.  The root parser and the ``serve``
   sub-parser are then exactly those the real command builds.
2. ``subcommand-init``: ``vllm.entrypoints.cli.serve`` ``ServeSubcommand.subparser_init``
   on a fresh ``FlexibleArgumentParser`` (same code, without ``main()``'s preamble).
3. ``api-server``: for releases without ``vllm serve`` (<= 0.5.1), the parser of
   ``python -m vllm.entrypoints.openai.api_server``: that module run as ``__main__``
   with the same instrumentation, else ``cli_args.make_arg_parser`` called directly.

With a ``plugin.json`` in ``SRC_ROOT`` (a platform plugin or separate server unpacked
beside ``vllm/``, see :mod:`validator.vllm_cli.plugins`), the plugin's console script
is run instead (with the arguments that select it, e.g. ``--omni``), and a platform
plugin's ``pre_register_and_update(parser)`` hook is applied to the captured ``serve``
parser, as vLLM does on that platform. The plugin's environment variables and the
top-level ``--additional-config`` keys it reads are added to the dump.

The output JSON (written to ``OUT_JSON``) is the raw material ``extract.py`` turns into
the vendored snapshot. Its shape is the contract ``schemas/introspection.schema.json``
(checked by :mod:`validator.vllm_cli.contract`): a field added or renamed here must be
added there, and ``tests/vllm_cli/test_extract_fixture.py`` runs this script on a fake
source tree to hold both sides to it.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import json
import os
import re
import runpy
import sys
import traceback
import types
import typing
import warnings
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
import _stubs  # type: ignore[import-not-found]  # noqa: E402

sys.path.remove(str(_HERE))

DUMMY_MODEL = "facebook/opt-125m"
#: vLLM >= 0.9 only computes per-option help text (attribute docstrings) when it thinks
#: it renders docs: ``sys.argv[0]`` ending in ``mkdocs`` (0.9-0.2x) or ``mkdocs`` in
#: ``sys.modules`` (newer).  Both are arranged so that help text is extracted.
ARGV0 = "mkdocs"
SOFT_FAILED: list[dict[str, str]] = []
#: ``plugin.json`` of the source tree (``{}`` for vLLM alone).
PLUGIN: dict[str, Any] = {}


class _Captured(Exception):
    """Raised from the instrumented ``parse_args`` to stop the entry point."""


# --------------------------------------------------------------------------- setup


_VERSION_RE = re.compile(
    r"""__version__\s*(?::\s*str\s*)?=\s*(?:version\s*=\s*)?["']([^"']+)["']"""
)


def _read_version(vllm_dir: Path) -> str:
    for name in ("_version.py", "version.py", "__init__.py"):
        p = vllm_dir / name
        if p.exists():
            m = _VERSION_RE.search(p.read_text(encoding="utf-8", errors="replace"))
            if m:
                return m.group(1)
    return os.environ.get("VLLM_CLI_EXPECTED_VERSION", "0.0.0")


class _SoftLoader(importlib.abc.Loader):
    """Wraps a vllm submodule loader: an exception while executing a *peripheral*
    module leaves the partially executed module in place (its missing names become
    stubs) and is recorded in ``SOFT_FAILED`` instead of aborting extraction."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.inner.create_module(spec)

    def __getattr__(self, name: str) -> Any:  # get_code, get_source… (runpy, inspect)
        return getattr(self.inner, name)

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            self.inner.exec_module(module)
        except Exception as exc:
            name = module.__name__
            if _is_critical(name):
                raise
            SOFT_FAILED.append({"module": name, "error": f"{type(exc).__name__}: {exc}"[:300]})

            def _ga(attr: str, _mod: str = name) -> Any:
                if attr.startswith("__") and attr.endswith("__"):
                    raise AttributeError(attr)
                return _stubs.make_stub_class(attr, _mod)

            setattr(module, "__getattr__", _ga)  # noqa: B010


_CRITICAL = (
    "vllm.engine.arg_utils",
    "vllm.entrypoints.openai.cli_args",
    "vllm.entrypoints.cli.serve",
    "vllm.entrypoints.cli.main",
    "vllm.scripts",
    "vllm.utils",
    "vllm.utils.argparse_utils",
    "vllm.config",
    "vllm.envs",
)


def _is_critical(name: str) -> bool:
    if name in _CRITICAL or name.startswith("vllm.config."):
        return True
    pkg = PLUGIN.get("package")
    if pkg and name.startswith(f"{pkg}.entrypoints.cli"):
        return True  # the plugin's serve parser is defined there
    hook = str(PLUGIN.get("platform_hook") or "")
    return bool(hook) and name == hook.split(":", 1)[0]


def _soft_prefixes() -> tuple[str, ...]:
    pkg = PLUGIN.get("package")
    return ("vllm.", f"{pkg}.") if pkg else ("vllm.",)


class _SoftFinder(importlib.abc.MetaPathFinder):
    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith(_soft_prefixes()):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or spec.origin is None:
            return None
        if not str(spec.origin).startswith(self.root):
            return None
        spec.loader = _SoftLoader(spec.loader)
        return spec


def _install_vllm_package(src_root: Path) -> types.ModuleType:
    """Import the ``vllm`` package from ``src_root`` the way ``import vllm`` would.

    Its ``__init__.py`` runs eagerly (as on a real install, which fixes the import
    order vLLM's own modules assume).  If it raises, the failure is recorded and the
    package stays usable: submodules still import, and missing top-level names
    resolve to stubs."""
    vllm_dir = src_root / "vllm"
    init = vllm_dir / "__init__.py"
    mod = types.ModuleType("vllm")
    mod.__path__ = [str(vllm_dir)]
    mod.__file__ = str(init)
    mod.__package__ = "vllm"
    mod.__spec__ = importlib.machinery.ModuleSpec("vllm", None, origin=str(init),
                                                  is_package=True)
    mod.__spec__.submodule_search_locations = [str(vllm_dir)]
    sys.modules["vllm"] = mod
    try:
        exec(compile(init.read_text(encoding="utf-8"), str(init), "exec"), mod.__dict__)
    except Exception as exc:
        SOFT_FAILED.append({"module": "vllm", "error": f"{type(exc).__name__}: {exc}"[:300]})

        def _ga(attr: str) -> Any:
            if attr.startswith("__") and attr.endswith("__"):
                raise AttributeError(attr)
            return _stubs.make_stub_class(attr, "vllm")

        setattr(mod, "__getattr__", _ga)  # noqa: B010
    if not isinstance(mod.__dict__.get("__version__"), str):
        mod.__version__ = _read_version(vllm_dir)  # type: ignore[attr-defined]
    return mod


# ------------------------------------------------------------------- capture parser


class _Recorder:
    def __init__(self) -> None:
        self.subparsers: dict[str, argparse.ArgumentParser] = {}
        self.root: argparse.ArgumentParser | None = None
        self.armed = False
        self._orig_add_parser = argparse._SubParsersAction.add_parser
        self._orig_parse_args = argparse.ArgumentParser.parse_args
        self._orig_parse_known = argparse.ArgumentParser.parse_known_args

    def __enter__(self) -> _Recorder:
        rec = self

        def add_parser(self_: Any, name: str, **kw: Any) -> Any:
            p = rec._orig_add_parser(self_, name, **kw)
            rec.subparsers.setdefault(name, p)
            return p

        def parse_known_args(self_: Any, args: Any = None, namespace: Any = None) -> Any:
            if rec.armed:
                rec.root = self_
                raise _Captured()
            return rec._orig_parse_known(self_, args, namespace)

        setattr(argparse._SubParsersAction, "add_parser", add_parser)  # noqa: B010
        setattr(argparse.ArgumentParser, "parse_known_args", parse_known_args)  # noqa: B010
        self.armed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self.armed = False
        setattr(argparse._SubParsersAction, "add_parser", self._orig_add_parser)  # noqa: B010
        setattr(argparse.ArgumentParser, "parse_known_args", self._orig_parse_known)  # noqa: B010


def _run_entry(target: str, argv: list[str]) -> _Recorder:
    """Run ``module:function`` (or ``module`` as __main__) until it parses args."""
    old_argv = sys.argv
    sys.argv = argv
    rec = _Recorder()
    try:
        with rec, contextlib.suppress(_Captured):
            if ":" in target:
                mod_name, func = target.split(":", 1)
                mod = importlib.import_module(mod_name)
                getattr(mod, func)()
            else:
                runpy.run_module(target, run_name="__main__", alter_sys=False)
    finally:
        sys.argv = old_argv
    return rec


def _console_target(src_root: Path) -> str | None:
    p = src_root / "entry_point.txt"
    if p.exists():
        t = p.read_text().strip()
        return t or None
    return None


def build_parsers(src_root: Path) -> dict[str, Any]:
    """Return {"method", "serve_available", "root", "serve", "errors"}."""
    errors: list[str] = []
    target = PLUGIN.get("entry") or _console_target(src_root)
    extra_argv = [str(a) for a in PLUGIN.get("argv", [])]
    vllm_dir = src_root / "vllm"
    if target is None:
        if (vllm_dir / "entrypoints" / "cli" / "main.py").exists():
            target = "vllm.entrypoints.cli.main:main"
        elif (vllm_dir / "scripts.py").exists():
            target = "vllm.scripts:main"
    if target is not None:
        try:
            rec = _run_entry(target, [ARGV0, "serve", DUMMY_MODEL, *extra_argv])
            if "serve" in rec.subparsers and rec.root is not None:
                return {"method": f"console-script {target}", "serve_available": True,
                        "root": rec.root, "serve": rec.subparsers["serve"], "errors": errors}
            errors.append(f"console-script {target}: no serve sub-parser captured "
                          f"(sub-parsers: {sorted(rec.subparsers)})")
        except BaseException as exc:
            errors.append(f"console-script {target}: {type(exc).__name__}: {exc}\n"
                          + traceback.format_exc()[-2000:])
    if PLUGIN.get("entry"):  # vLLM's own parser is not the plugin's: no fallback
        raise RuntimeError("the plugin's serve entry point could not be built:\n"
                           + "\n".join(errors))
    if (vllm_dir / "entrypoints" / "cli" / "serve.py").exists():
        try:
            serve_mod = importlib.import_module("vllm.entrypoints.cli.serve")
            util = _flexible_parser_module()
            root = util.FlexibleArgumentParser(description="vLLM CLI")
            subparsers = root.add_subparsers(required=False, dest="subparser")
            for cmd in serve_mod.cmd_init():
                if getattr(cmd, "name", None) == "serve":
                    sp = cmd.subparser_init(subparsers)
                    return {"method": "subcommand-init vllm.entrypoints.cli.serve",
                            "serve_available": True, "root": root, "serve": sp,
                            "errors": errors}
        except BaseException as exc:
            errors.append(f"subcommand-init: {type(exc).__name__}: {exc}\n"
                          + traceback.format_exc()[-2000:])
    if (target is not None and (vllm_dir / "scripts.py").exists()) or (
        vllm_dir / "entrypoints" / "cli").exists():
        raise RuntimeError("serve entry point exists but could not be built:\n"
                           + "\n".join(errors))
    # No `vllm serve` in this release: the api_server parser.
    try:
        rec = _run_entry("vllm.entrypoints.openai.api_server", [ARGV0])
        if rec.root is not None:
            return {"method": "api-server __main__ vllm.entrypoints.openai.api_server",
                    "serve_available": False, "root": rec.root, "serve": rec.root,
                    "errors": errors}
        errors.append("api-server __main__: no parser captured")
    except BaseException as exc:
        errors.append(f"api-server __main__: {type(exc).__name__}: {exc}\n"
                      + traceback.format_exc()[-2000:])
    cli_args = importlib.import_module("vllm.entrypoints.openai.cli_args")
    mk = cli_args.make_arg_parser
    import inspect

    if inspect.signature(mk).parameters:
        util = _flexible_parser_module()
        root = mk(util.FlexibleArgumentParser())
    else:
        root = mk()
    return {"method": "api-server make_arg_parser vllm.entrypoints.openai.cli_args",
            "serve_available": False, "root": root, "serve": root, "errors": errors}


def _flexible_parser_module() -> Any:
    for name in ("vllm.utils.argparse_utils", "vllm.utils"):
        try:
            m = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(m, "FlexibleArgumentParser"):
            return m
    raise ImportError("FlexibleArgumentParser not found")


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
    names = _env_dict_names(p)
    return {"names": names, "source": "ast vllm/envs.py environment_variables"}


# ----------------------------------------------------------------------- plugins


def apply_platform_hook(serve: argparse.ArgumentParser) -> str:
    """Call the plugin platform's ``pre_register_and_update(serve)``, as vLLM's
    ``EngineArgs.add_cli_args`` does on that platform; return the method suffix."""
    module_name, cls_name = str(PLUGIN["platform_hook"]).split(":", 1)
    _stubs.install(["torch_npu"])  # only now: it must not switch vLLM's own platform
    cls = getattr(importlib.import_module(module_name), cls_name)
    try:
        cls.pre_register_and_update(serve)
    except Exception as exc:
        # The parser is changed first; what follows in the hook is device set-up
        # (SoC detection through a build-generated module) that cannot run here.
        SOFT_FAILED.append({"module": f"{module_name}:{cls_name}.pre_register_and_update",
                            "error": f"{type(exc).__name__}: {exc}"[:300]})
    return f" + {cls_name}.pre_register_and_update"


def _env_dict_names(path: Path) -> list[str]:
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


# --------------------------------------------------------------------------- main


def main(argv: list[str]) -> int:
    """``argv`` = ``[SRC_ROOT, OUT_JSON]``: build the serve parser of the tree, dump the raw
    description to ``OUT_JSON``; returns 0 (any failure raises, exit status 1)."""
    src_root = Path(argv[0]).resolve()
    out_path = Path(argv[1])
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
    os.environ.setdefault("VLLM_DO_NOT_TRACK", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(src_root))
    sys.argv = [ARGV0]
    sys.modules.setdefault("mkdocs", types.ModuleType("mkdocs"))
    plugin_file = src_root / "plugin.json"
    if plugin_file.exists():
        PLUGIN.update(json.loads(plugin_file.read_text(encoding="utf-8")))
        _stubs.PLUGIN_PACKAGES.add(str(PLUGIN["package"]))
    pins = src_root / "stub_versions.json"
    if pins.exists():
        _stubs.VERSIONS.update(json.loads(pins.read_text(encoding="utf-8")))
    _stubs.install()
    sys.meta_path.insert(1, _SoftFinder(str(src_root)))
    vllm = _install_vllm_package(src_root)
    import logging

    logging.disable(logging.CRITICAL)
    built = build_parsers(src_root)
    root, serve = built["root"], built["serve"]
    if PLUGIN.get("platform_hook"):
        built["method"] += apply_platform_hook(serve)
    actions = describe(serve)
    result = {
        "version": vllm.__version__,
        "stub_versions": dict(sorted(_stubs.VERSIONS.items())),
        "method": built["method"],
        "method_errors": built["errors"],
        "serve_available": built["serve_available"],
        "parser_class": f"{type(serve).__module__}.{type(serve).__qualname__}",
        "allow_abbrev": bool(getattr(serve, "allow_abbrev", True)),
        "actions": actions,
        "probes": run_probes(root, built["serve_available"], actions),
        "tool_call_parsers": parser_registry("tool", actions),
        "reasoning_parsers": parser_registry("reasoning", actions),
        "kv_cache_dtypes": kv_cache_dtypes(actions),
        "env_vars": env_vars(src_root / "vllm"),
    }
    if PLUGIN:
        pkg_dir = src_root / str(PLUGIN["package"])
        result["plugin_env_vars"] = sorted(set(_env_dict_names(pkg_dir / "envs.py"))
                                           | set(read_env_names(pkg_dir,
                                                                PLUGIN.get("env_prefix"))))
        result["additional_config_keys"] = additional_config_keys(
            pkg_dir, PLUGIN.get("additional_config_class"))
        result["additional_config_strict"] = additional_config_strict(
            pkg_dir, PLUGIN.get("additional_config_class"))
    result["soft_failed_modules"] = sorted({d["module"]: d for d in SOFT_FAILED}.values(),
                                           key=lambda d: d["module"])
    result["stubbed_modules"] = sorted(
        {m if m.startswith("vllm.") else m.split(".")[0] for m in _stubs.STUBBED})
    out_path.write_text(json.dumps(result, sort_keys=True, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
