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

The parts, beside this file and imported by bare name like ``_stubs``:
``_introspect_load`` (import the tree's ``vllm``), ``_introspect_capture`` (capture
the parser), ``_introspect_describe`` (describe its actions, probes) and
``_introspect_names`` (parser registries, kv-cache dtypes, environment variables,
additional-config keys).
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
import _stubs  # type: ignore[import-not-found]  # noqa: E402
from _introspect_capture import (  # type: ignore[import-not-found]  # noqa: E402
    apply_platform_hook,
    build_parsers,
)
from _introspect_describe import describe, run_probes  # type: ignore[import-not-found]  # noqa: E402
from _introspect_kinds import value_kinds  # type: ignore[import-not-found]  # noqa: E402
from _introspect_load import (  # type: ignore[import-not-found]  # noqa: E402
    ARGV0,
    PLUGIN,
    SOFT_FAILED,
    SoftFinder,
    install_vllm_package,
)
from _introspect_names import (  # type: ignore[import-not-found]  # noqa: E402
    additional_config_keys,
    additional_config_strict,
    env_dict_names,
    env_vars,
    kv_cache_dtypes,
    parser_registry,
    read_env_names,
)

sys.path.remove(str(_HERE))


def main(argv: list[str]) -> int:
    """``argv`` = ``[SRC_ROOT, OUT_JSON]``: build the serve parser of the tree, dump the raw
    description to ``OUT_JSON``; returns 0 (any failure raises, exit status 1)."""
    src_root = Path(argv[0]).resolve()
    out_path = Path(argv[1])
    _prepare_imports(src_root)
    vllm = install_vllm_package(src_root)
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
        "value_kinds": value_kinds(serve),
        "probes": run_probes(root, built["serve_available"], actions),
        "tool_call_parsers": parser_registry("tool", actions),
        "reasoning_parsers": parser_registry("reasoning", actions),
        "kv_cache_dtypes": kv_cache_dtypes(actions),
        "env_vars": env_vars(src_root / "vllm"),
    }
    if PLUGIN:
        result.update(_plugin_fields(src_root / str(PLUGIN["package"])))
    result["soft_failed_modules"] = sorted({d["module"]: d for d in SOFT_FAILED}.values(),
                                           key=lambda d: d["module"])
    result["stubbed_modules"] = sorted(
        {m if m.startswith("vllm.") else m.split(".")[0] for m in _stubs.STUBBED})
    out_path.write_text(json.dumps(result, sort_keys=True, indent=1), encoding="utf-8")
    return 0


def _prepare_imports(src_root: Path) -> None:
    """Quiet vLLM's import-time side effects, put the tree first on the path and install
    the import stubs (with the plugin's package and the pinned stub versions)."""
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
    sys.meta_path.insert(1, SoftFinder(str(src_root)))


def _plugin_fields(pkg_dir: Path) -> dict[str, Any]:
    """What a platform plugin's own package adds: its environment variables and the
    ``--additional-config`` keys it reads (and whether it refuses others)."""
    config_class = PLUGIN.get("additional_config_class")
    return {
        "plugin_env_vars": sorted(set(env_dict_names(pkg_dir / "envs.py"))
                                  | set(read_env_names(pkg_dir, PLUGIN.get("env_prefix")))),
        "additional_config_keys": additional_config_keys(pkg_dir, config_class),
        "additional_config_strict": additional_config_strict(pkg_dir, config_class),
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
