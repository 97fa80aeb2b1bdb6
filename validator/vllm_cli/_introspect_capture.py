"""Extraction subprocess, capture: run the release's (or the plugin's) console script with
``argparse`` instrumented and keep the ``serve`` parser it builds (the methods are
described in :mod:`validator.vllm_cli._introspect`); apply a platform plugin's parser
hook.

Part of the extraction subprocess (:mod:`validator.vllm_cli._introspect`), imported by
bare name from this folder, as ``_stubs`` is: it runs in the release's own isolated
interpreter and imports nothing of ``validator``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import runpy
import sys
import traceback
from pathlib import Path
from typing import Any

import _stubs  # type: ignore[import-not-found]
from _introspect_load import (  # type: ignore[import-not-found]
    ARGV0,
    DUMMY_MODEL,
    PLUGIN,
    SOFT_FAILED,
)


class _Captured(Exception):
    """Raised from the instrumented ``parse_args`` to stop the entry point."""


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
    target = PLUGIN.get("entry") or _default_console_target(src_root)
    vllm_dir = src_root / "vllm"
    if target is not None:
        built = _from_console_script(target, errors)
        if built is not None:
            return built
    if PLUGIN.get("entry"):  # vLLM's own parser is not the plugin's: no fallback
        raise RuntimeError("the plugin's serve entry point could not be built:\n"
                           + "\n".join(errors))
    if (vllm_dir / "entrypoints" / "cli" / "serve.py").exists():
        built = _from_serve_subcommand(errors)
        if built is not None:
            return built
    if (target is not None and (vllm_dir / "scripts.py").exists()) or (
        vllm_dir / "entrypoints" / "cli").exists():
        raise RuntimeError("serve entry point exists but could not be built:\n"
                           + "\n".join(errors))
    # No `vllm serve` in this release: the api_server parser.
    return _from_api_server(errors)


def _default_console_target(src_root: Path) -> str | None:
    """The release's ``vllm`` console script, or the module that provides one."""
    target = _console_target(src_root)
    vllm_dir = src_root / "vllm"
    if target is None:
        if (vllm_dir / "entrypoints" / "cli" / "main.py").exists():
            target = "vllm.entrypoints.cli.main:main"
        elif (vllm_dir / "scripts.py").exists():
            target = "vllm.scripts:main"
    return target


def _from_console_script(target: str, errors: list[str]) -> dict[str, Any] | None:
    """The parsers ``vllm serve`` builds when run through ``target``; ``None`` (and the
    reason added to ``errors``) when no serve sub-parser was captured."""
    extra_argv = [str(a) for a in PLUGIN.get("argv", [])]
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
    return None


def _from_serve_subcommand(errors: list[str]) -> dict[str, Any] | None:
    """The serve parser built by ``vllm.entrypoints.cli.serve``'s ``cmd_init``
    sub-commands; ``None`` (reason in ``errors`` when it failed) otherwise."""
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
    return None


def _from_api_server(errors: list[str]) -> dict[str, Any]:
    """The OpenAI api_server's parser (releases without ``vllm serve``): as its
    ``__main__`` builds it, else from ``make_arg_parser``."""
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
