"""Extraction subprocess, set-up: import the release's ``vllm`` package from its unpacked
source tree, with peripheral modules that fail to execute left in place as stubs
(recorded in :data:`SOFT_FAILED`), and the state the other parts share.

Part of the extraction subprocess (:mod:`validator.vllm_cli._introspect`), imported by
bare name from this folder, as ``_stubs`` is: it runs in the release's own isolated
interpreter and imports nothing of ``validator``.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

import _stubs  # type: ignore[import-not-found]

DUMMY_MODEL = "facebook/opt-125m"
#: vLLM >= 0.9 only computes per-option help text (attribute docstrings) when it thinks
#: it renders docs: ``sys.argv[0]`` ending in ``mkdocs`` (0.9-0.2x) or ``mkdocs`` in
#: ``sys.modules`` (newer).  Both are arranged so that help text is extracted.
ARGV0 = "mkdocs"
SOFT_FAILED: list[dict[str, str]] = []
#: ``plugin.json`` of the source tree (``{}`` for vLLM alone).
PLUGIN: dict[str, Any] = {}


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


class SoftFinder(importlib.abc.MetaPathFinder):
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


def install_vllm_package(src_root: Path) -> types.ModuleType:
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
