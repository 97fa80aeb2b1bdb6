"""Build the vendored vLLM CLI registry snapshots from released vLLM sources.

For each requested version:

1. :mod:`validator.vllm_cli.fetch` downloads the release's sdist (or, when the index
   has none, an x86_64 wheel) and verifies its sha256 against the index's digest.
2. :func:`~validator.vllm_cli.release_sources.unpack_sources` copies only the
   ``vllm/**.py`` sources (plus a synthetic ``vllm-<v>.dist-info`` carrying the
   release's own version and ``vllm`` console-script target, read from
   ``setup.py``/``pyproject.toml`` or the wheel's ``entry_points.txt``) into a
   temporary directory.
3. ``_introspect.py`` runs in a fresh ``python -I`` subprocess with that directory on
   ``sys.path``: it runs the release's own CLI entry point with stubbed heavy modules,
   captures the real ``argparse`` parsers and probes them (see its docstring).
4. :func:`build_snapshot` holds the raw dump to its contract
   (``schemas/introspection.schema.json``, :mod:`validator.vllm_cli.contract`),
   normalises it into the snapshot document and
   :func:`write_snapshot` writes ``<out_dir>/<version>.json`` (sorted keys, indent 1,
   trailing newline: same input, same bytes) and updates ``<out_dir>/index.json``
   (a flat JSON object ``{version: sha256-of-file}``).

Entry points: :func:`main_vllm_cli` (wired to ``recipe-check data vllm-cli``) and
``scripts/refresh_vllm_cli.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from packaging.version import Version

from validator.vllm_cli.contract import ContractError, check_dump
from validator.vllm_cli.fetch import (
    Artifact,
    FetchError,
    choose_artifact,
    download,
    index_files,
    released_versions,
)
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR, INDEX_NAME, RegistryError
from validator.vllm_cli.release_sources import ExtractionError, unpack_sources

SCHEMA_VERSION = 1
INTROSPECT = Path(__file__).resolve().parent / "_introspect.py"
#: Where downloaded artifacts are kept between runs (outside the repository).
DEFAULT_CACHE_DIR = Path(
    os.environ.get("RECIPE_CHECK_VLLM_CACHE", Path(tempfile.gettempdir()) / "vllm-cli-cache")
)
#: Per-version wall-clock limit of the introspection subprocess, seconds.
SUBPROCESS_TIMEOUT_S = 600


# --------------------------------------------------------------------- introspect


def run_introspection(src_root: Path, timeout_s: int = SUBPROCESS_TIMEOUT_S,
                      script: Path = INTROSPECT) -> dict[str, Any]:
    """Run ``script`` (``_introspect.py``) on ``src_root`` in an isolated subprocess; return
    its dump (:func:`build_snapshot` checks it against the contract).

    Raises :class:`ExtractionError` with the subprocess's stderr tail on failure, and when
    the dump is not a JSON object.
    """
    out = src_root / "_dump.json"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "PYTHON", "CUDA"))
    }
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONWARNINGS"] = "ignore"
    proc = subprocess.run(
        [sys.executable, "-I", str(script), str(src_root), str(out)],
        cwd=src_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    if proc.returncode != 0 or not out.exists():
        raise ExtractionError(
            f"introspection of {src_root} failed (exit {proc.returncode}):\n"
            + proc.stderr[-4000:]
        )
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ExtractionError(f"introspection of {src_root}: output is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ExtractionError(f"introspection of {src_root}: output is not a JSON object")
    return data


# ------------------------------------------------------------------ normalisation


def _sanitize(text: str, src_root: Path) -> str:
    text = text.replace(str(src_root), "<src>")
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def _probe_value(probe: dict[str, Any], key: str) -> str | None:
    ns = probe.get("namespace") or {}
    v = ns.get(key)
    return v if isinstance(v, str) else None


def _normalisation(probes: dict[str, Any]) -> str:
    """How ``--opt_name`` spellings are rewritten before argparse sees them.

    * ``"none"``: plain ``argparse.ArgumentParser`` (<= 0.4.x), no rewriting;
    * ``"whole-key"``: ``FlexibleArgumentParser`` replaces ``_`` by ``-`` in the whole
      ``--key`` (up to ``=``) — vllm/utils.py of 0.5.x-0.8.x;
    * ``"before-first-dot"``: only the part between ``--`` and the first ``.`` is
      rewritten (regex ``(?<=--)[^\\.]*``), so JSON sub-keys keep underscores — the
      ``FlexibleArgumentParser.parse_args`` of releases with dotted JSON keys.
    """
    if not probes.get("underscore", {}).get("ok"):
        return "none"
    du = probes.get("dotted_underscore")
    if du and du.get("ok"):
        val = _probe_value(du, "speculative_config") or ""
        if "num_speculative_tokens" in val:
            return "before-first-dot"
    return "whole-key"


def build_snapshot(
    raw: dict[str, Any], artifact: Artifact, src_root: Path
) -> dict[str, Any]:
    """Turn one raw introspection dump into the vendored snapshot document.

    ``raw`` is first held to the extraction contract
    (:data:`~validator.vllm_cli.contract.DUMP_SCHEMA`): a dump that breaks it raises
    :class:`ExtractionError` naming each violation by JSON Pointer.

    Shape (all keys sorted on write)::

        {"schema": 1, "version": str, "serve_available": bool,
         "provenance": {artifact, sha256, url, kind, method, python},
         "parser": {class, allow_abbrev, normalisation, dotted_keys, short_O},
         "options": [{strings, dest, positional, action, nargs, takes_value, choices,
                      default, required, hidden, deprecated, help, is_json,
                      negatable, group}, ...],        # parser order
         "json_flags": [str], "dotted_keys": bool, "probes": {name: {argv, ok, ...}},
         "tool_call_parsers": {names, source}, "reasoning_parsers": {names, source},
         "kv_cache_dtypes": {values, source}, "env_vars": {names, source},
         "extraction": {stubbed_modules, soft_failed_modules, method_errors}}

    ``extraction.source_version`` is what the source tree itself reports
    (``vllm.__version__``); a few sdists disagree with their file name (0.6.2 says
    ``0.6.1.dev238+ge2c6e0a82``, 0.6.3 ships no ``_version.py`` and says ``dev``), so
    the artifact's version is authoritative and the difference is only recorded.
    """
    try:
        check_dump(raw, f"introspection of {artifact.filename}")
    except ContractError as exc:
        raise ExtractionError(str(exc)) from exc
    options = raw["actions"]
    probes = _recorded_probes(raw["probes"], src_root)
    dotted = bool(probes.get("dotted", {}).get("ok")) and "mtp" in str(
        probes["dotted"].get("value") or ""
    )
    json_flags = sorted(
        {s for o in options if o["is_json"] for s in o["strings"] if s.startswith("--")}
    )
    return {
        "schema": SCHEMA_VERSION,
        "version": artifact.version,
        "serve_available": bool(raw["serve_available"]),
        "provenance": _provenance(raw, artifact),
        "parser": _parser_facts(raw, probes, dotted),
        "options": options,
        "json_flags": json_flags,
        "dotted_keys": dotted,
        "probes": probes,
        "tool_call_parsers": raw["tool_call_parsers"],
        "reasoning_parsers": raw["reasoning_parsers"],
        "kv_cache_dtypes": raw["kv_cache_dtypes"],
        "env_vars": raw["env_vars"],
        "extraction": _extraction_record(raw, src_root),
    }


#: The probes whose parsed value the snapshot keeps: probe name -> namespace key.
_PROBE_VALUES = {
    "dotted": "speculative_config",
    "dotted_underscore": "speculative_config",
    "dotted_hf_overrides": "hf_overrides",
    "underscore": "tensor_parallel_size",
    "underscore_eq": "tensor_parallel_size",
    "abbrev": "tensor_parallel_size",
}


def _recorded_probes(raw_probes: dict[str, Any], src_root: Path) -> dict[str, Any]:
    """Each probe's argv and outcome, with its value (:data:`_PROBE_VALUES`) or its
    error (paths and addresses removed), by name."""
    probes: dict[str, Any] = {}
    for name, p in sorted(raw_probes.items()):
        entry: dict[str, Any] = {"argv": p["argv"], "ok": bool(p["ok"])}
        if p["ok"] and name in _PROBE_VALUES:
            entry["value"] = _probe_value(p, _PROBE_VALUES[name])
        if not p["ok"]:
            entry["error"] = _sanitize(str(p.get("error", "")), src_root)
        probes[name] = entry
    return probes


def _provenance(raw: dict[str, Any], artifact: Artifact) -> dict[str, Any]:
    """Where the snapshot comes from: the artifact and how it was introspected."""
    return {
        "artifact": artifact.filename,
        "sha256": artifact.sha256,
        "url": artifact.url,
        "kind": artifact.kind,
        "method": "argparse-introspection: " + str(raw["method"]),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
    }


def _parser_facts(raw: dict[str, Any], probes: dict[str, Any], dotted: bool
                  ) -> dict[str, Any]:
    """How the release's parser reads an argument list, as the probes showed it."""
    abbrev_ok = bool(probes.get("abbrev", {}).get("ok")) and probes["abbrev"].get(
        "value"
    ) == "2"
    return {
        "class": raw["parser_class"],
        "allow_abbrev": bool(raw["allow_abbrev"]) and abbrev_ok,
        "normalisation": _normalisation(raw["probes"]),
        "dotted_keys": dotted,
        "short_O": bool(probes.get("short_O", {}).get("ok")),
    }


def _extraction_record(raw: dict[str, Any], src_root: Path) -> dict[str, Any]:
    """What the introspection had to stub or could not load (paths removed)."""
    return {
        "source_version": str(raw["version"]),
        "stub_versions": raw.get("stub_versions", {}),
        "stubbed_modules": raw["stubbed_modules"],
        "soft_failed_modules": [
            {"module": d["module"], "error": _sanitize(d["error"], src_root)}
            for d in raw["soft_failed_modules"]
        ],
        "method_errors": [
            _sanitize(e.splitlines()[0] if e else e, src_root)
            for e in raw["method_errors"]
        ],
    }


# ------------------------------------------------------------------------- write


def dumps_snapshot(doc: dict[str, Any]) -> bytes:
    """Canonical bytes of a snapshot/index document (sorted keys, indent 1, ``\\n``)."""
    return (json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def write_snapshot(doc: dict[str, Any], out_dir: Path) -> str:
    """Write ``<out_dir>/<version>.json``, pin it in ``index.json``; return its sha256."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = dumps_snapshot(doc)
    (out_dir / f"{doc['version']}.json").write_bytes(data)
    digest = _sha256(data)
    update_index(out_dir, {str(doc["version"]): digest})
    return digest


def update_index(out_dir: Path, pins: dict[str, str]) -> None:
    """Merge ``pins`` (version -> sha256) into ``<out_dir>/index.json``."""
    path = out_dir / INDEX_NAME
    current: dict[str, str] = {}
    if path.exists():
        try:
            current = dict(json.loads(path.read_text(encoding="utf-8")))
        except (TypeError, ValueError) as exc:
            raise RegistryError(f"{path}: unreadable index ({exc})") from exc
    current.update(pins)
    # Version order (not string order) so the file reads naturally; the loader does
    # not depend on the order.
    ordered = {v: current[v] for v in sorted(current, key=Version)}
    text = json.dumps(ordered, indent=1) + "\n"
    path.write_bytes(text.encode())


# -------------------------------------------------------------------------- main


def extract_version(
    version: str,
    out_dir: Path,
    files: list[dict[str, Any]],
    cache_dir: Path = DEFAULT_CACHE_DIR,
    log: Any = None,
) -> dict[str, float]:
    """Fetch, unpack, introspect and write one version; return timings in seconds.

    Raises :class:`FetchError` or :class:`ExtractionError`.
    """
    _, doc, timings = introspect_release(version, files, cache_dir)
    write_snapshot(doc, out_dir)
    return timings


def introspect_release(version: str, files: list[dict[str, Any]],
                       cache_dir: Path = DEFAULT_CACHE_DIR
                       ) -> tuple[dict[str, Any], dict[str, Any], dict[str, float]]:
    """Fetch, unpack and introspect one version: (raw dump, snapshot document, timings in
    seconds). Raises :class:`FetchError` or :class:`ExtractionError`."""
    artifact = choose_artifact(version, files)
    t0 = time.monotonic()
    path = download(artifact, cache_dir)
    t1 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"vllm-src-{version}-") as tmp:
        src = unpack_sources(path, version, Path(tmp))
        raw = run_introspection(src)
        doc = build_snapshot(raw, artifact, src)
    return raw, doc, {"download_s": t1 - t0, "extract_s": time.monotonic() - t1}


def expand_versions(requested: list[str], known: list[str], index: Path) -> list[str]:
    """The versions ``requested`` names, in order and without repeats: ``"all"`` is
    every one of ``known``, ``"missing"`` those of ``known`` not pinned in ``index``,
    anything else itself."""
    wanted: list[str] = []
    for v in requested:
        if v == "all":
            wanted.extend(known)
        elif v == "missing":
            have = set(json.loads(index.read_text())) if index.exists() else set()
            wanted.extend(k for k in known if k not in have)
        else:
            wanted.append(v)
    return list(dict.fromkeys(wanted))


def main_vllm_cli(versions: list[str], out_dir: Path,
                  extract_one: Callable[[str, Path, list[dict[str, Any]]], dict[str, float]]
                  = extract_version) -> int:
    """Extract and vendor the CLI registry of each of ``versions`` into ``out_dir``
    (``extract_one``: what extracts one release, :func:`extract_version` or one that
    writes more of the same introspection, such as
    :func:`validator.vllm_cli.extract_types.extract_release`).

    ``versions`` may contain ``"all"`` (every non-prerelease on the index from 0.4.2)
    or ``"missing"`` (those not yet in ``out_dir/index.json``).  Progress and failures
    go to stderr.  Returns 0 if every version was written, 1 if any failed, 2 if the
    index could not be read.
    """
    try:
        files = index_files()
    except (FetchError, OSError) as exc:
        print(f"vllm-cli: cannot read the package index: {exc}", file=sys.stderr)
        return 2
    known = [v for v in released_versions(files) if Version(v) >= Version("0.4.2")]
    wanted = expand_versions(versions, known, out_dir / INDEX_NAME)
    return extract_each("vllm-cli", wanted, lambda v: extract_one(v, out_dir, files))


def extract_each(label: str, versions: list[str],
                 extract_one: Callable[[str], dict[str, float]]) -> int:
    """Run ``extract_one`` (which returns ``{"download_s", "extract_s"}`` timings, in
    seconds) on each version, printing ``<label> <version>: ok (…)`` or ``FAILED: why``
    to stderr; a fetch, extraction, I/O or timeout error fails that version only.
    Returns 0 when every version was written, else 1."""
    failures = 0
    for v in versions:
        try:
            t = extract_one(v)
            print(f"{label} {v}: ok (download {t['download_s']:.1f}s, "
                  f"extract {t['extract_s']:.1f}s)", file=sys.stderr)
        except (FetchError, ExtractionError, OSError, subprocess.TimeoutExpired) as exc:
            failures += 1
            print(f"{label} {v}: FAILED: {exc}", file=sys.stderr)
    return 1 if failures else 0


def _cli(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=main_vllm_cli.__doc__)
    ap.add_argument("versions", nargs="+", help="versions, or 'all' / 'missing'")
    ap.add_argument("--out", type=Path, default=DEFAULT_REGISTRY_DIR)
    ns = ap.parse_args(argv)
    return main_vllm_cli(list(ns.versions), Path(ns.out))


if __name__ == "__main__":
    sys.exit(_cli())
