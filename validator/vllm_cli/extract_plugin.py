"""Build the vendored CLI snapshot of a platform plugin release (vLLM-Omni, vLLM-Ascend).

For one plugin release (see :mod:`validator.vllm_cli.plugins`):

1. pick the vLLM release it is built on (:func:`~validator.vllm_cli.plugins.base_vllm`,
   which must be vendored already) and fetch both artifacts from the package index,
   each verified against the sha256 the index publishes;
2. unpack ``vllm/**.py`` and ``<plugin package>/**.py`` into one tree, with synthetic
   dist-infos for both and a ``plugin.json`` telling ``_introspect.py`` which entry
   point, arguments and platform hook select the plugin;
3. run the same isolated introspection subprocess as for vLLM and write
   ``snapshots/vllm-cli/<plugin>/<version>.json``, pinned in that folder's ``index.json``.

The snapshot has the vLLM snapshot's shape (so :func:`validator.vllm_cli.registry.
load_registry` reads it) with ``version`` = the plugin release, the plugin artifact in
``provenance`` (the vLLM artifact beside it as ``vllm_*``), the union of vLLM's and the
plugin's environment variables, and a ``plugin`` block::

    {"name": "vllm-ascend", "display": "vLLM-Ascend", "version": "0.18.0",
     "vllm_version": "0.18.0", "env_vars": [...], "additional_config_keys": [...]}
"""

from __future__ import annotations

import json
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from packaging.version import Version

from validator.vllm_cli.extract import (
    DEFAULT_CACHE_DIR,
    build_snapshot,
    expand_versions,
    extract_each,
    run_introspection,
    write_snapshot,
)
from validator.vllm_cli.fetch import (
    Artifact,
    FetchError,
    choose_artifact,
    download,
    index_files,
    released_versions,
)
from validator.vllm_cli.plugins import (
    PLUGINS,
    Plugin,
    base_vllm,
    parse_version,
    select_releases,
)
from validator.vllm_cli.registry import INDEX_NAME, available_versions
from validator.vllm_cli.release_sources import ExtractionError, unpack_sources


def unpack_plugin(archive: Path, plugin: Plugin, version: str, dest: Path) -> Path:
    """Copy ``<plugin.package>/**/*.py`` of ``archive`` (sdist or wheel) into ``dest``.

    Also writes ``<name>-<version>.dist-info`` (so ``importlib.metadata.version`` of the
    plugin answers) and ``plugin.json`` (read by ``_introspect.py``). Returns ``dest``.
    Raises :class:`ExtractionError` when the archive holds no such package.
    """
    prefix = f"{plugin.package}/"
    n = 0
    if archive.name.endswith(".tar.gz"):
        with tarfile.open(archive, "r:gz") as tf:
            for m in tf.getmembers():
                rel = m.name.split("/", 1)[1] if "/" in m.name else ""
                if m.isfile() and rel.startswith(prefix) and rel.endswith(".py"):
                    f = tf.extractfile(m)
                    if f is not None:
                        _write(dest / rel, f.read())
                        n += 1
    else:
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.startswith(prefix) and name.endswith(".py"):
                    _write(dest / name, zf.read(name))
                    n += 1
    if n == 0:
        raise ExtractionError(f"{archive.name}: no {prefix}*.py sources inside")
    dist = dest / f"{plugin.package}-{version}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {plugin.name}\n"
                                   f"Version: {version}\n", encoding="utf-8")
    (dest / "plugin.json").write_text(json.dumps({
        "name": plugin.name, "package": plugin.package, "entry": plugin.entry,
        "argv": list(plugin.argv), "platform_hook": plugin.platform_hook,
        "additional_config_class": plugin.additional_config_class,
        "env_prefix": plugin.env_prefix}), encoding="utf-8")
    return dest


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def build_plugin_snapshot(raw: dict[str, Any], doc: dict[str, Any], plugin: Plugin,
                          version: str, plugin_artifact: Artifact,
                          vllm_version: str) -> dict[str, Any]:
    """Turn the vLLM-shaped snapshot ``doc`` of a plugin run (``raw`` being the
    introspection dump) into the snapshot of ``plugin`` ``version``, built on vLLM
    ``vllm_version``; returns ``doc``, changed in place."""
    base = doc["provenance"]
    doc["version"] = version
    doc["provenance"] = {
        "artifact": plugin_artifact.filename, "sha256": plugin_artifact.sha256,
        "url": plugin_artifact.url, "kind": plugin_artifact.kind,
        "method": base["method"], "python": base["python"],
        "vllm_artifact": base["artifact"], "vllm_sha256": base["sha256"],
        "vllm_url": base["url"], "vllm_kind": base["kind"],
    }
    plugin_env = sorted(str(x) for x in raw.get("plugin_env_vars", []))
    doc["env_vars"] = {"names": sorted(set(doc["env_vars"]["names"]) | set(plugin_env)),
                       "source": f"{doc['env_vars']['source']} + {plugin.package}/envs.py"}
    doc["plugin"] = {"name": plugin.name, "display": plugin.display, "version": version,
                     "vllm_version": vllm_version,
                     "env_vars": plugin_env,
                     "additional_config_keys": sorted(raw.get("additional_config_keys", [])),
                     "additional_config_strict": bool(raw.get("additional_config_strict"))}
    return doc


def extract_plugin_version(plugin: Plugin, version: str, plugin_files: list[dict[str, Any]],
                           vllm_files: list[dict[str, Any]],
                           cache_dir: Path = DEFAULT_CACHE_DIR,
                           out_dir: Path | None = None) -> dict[str, float]:
    """Fetch, unpack, introspect and write one plugin release into ``out_dir`` (default
    :attr:`~validator.vllm_cli.plugins.Plugin.registry_dir`); return timings in seconds.

    Raises :class:`FetchError` or :class:`ExtractionError` (also when the vLLM release
    the plugin is built on is not vendored).
    """
    on_index = released_versions(plugin_files, pre=True)
    if str(Version(version)) not in {str(Version(v)) for v in on_index}:
        raise ExtractionError(f"{plugin.name} {version}: not a release on the package index "
                              f"(newest there: {on_index[-1] if on_index else 'none'})")
    vendored = [str(v) for v in available_versions()]
    base = base_vllm(version, vendored)
    if base is None:
        minor = ".".join(str(n) for n in Version(version).release[:2])
        raise ExtractionError(f"{plugin.name} {version}: no vendored vLLM {minor}.x release "
                              "to build it on; vendor that vLLM release first "
                              "(recipe-check data vllm-cli VERSION)")
    p_art = choose_artifact(version, plugin_files, plugin.name)
    v_art = choose_artifact(base, vllm_files)
    t0 = time.monotonic()
    p_path, v_path = download(p_art, cache_dir), download(v_art, cache_dir)
    t1 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"{plugin.name}-src-{version}-") as tmp:
        src = unpack_sources(v_path, base, Path(tmp))
        unpack_plugin(p_path, plugin, version, src)
        raw = run_introspection(src)
        doc = build_plugin_snapshot(raw, build_snapshot(raw, v_art, src), plugin, version,
                                    p_art, base)
    t2 = time.monotonic()
    write_snapshot(doc, plugin.registry_dir if out_dir is None else out_dir)
    return {"download_s": t1 - t0, "extract_s": t2 - t1}


def main_plugin_cli(name: str, versions: list[str]) -> int:
    """Extract and vendor plugin ``name``'s CLI for each of ``versions``.

    ``versions`` may hold ``"all"`` (every release :func:`~validator.vllm_cli.plugins.
    select_releases` picks) or ``"missing"`` (those not yet pinned). Progress and
    failures go to stderr. Returns 0 if every version was written, 1 if any failed,
    2 if an index could not be read, ``name`` is not a vendored plugin or a version is
    not a version.
    """
    plugin = PLUGINS.get(name)
    if plugin is None:
        print(f"vllm-cli: unknown plugin {name!r} (known: {', '.join(PLUGINS)})",
              file=sys.stderr)
        return 2
    bad = [v for v in versions if v not in ("all", "missing") and parse_version(v) is None]
    if bad:
        print(f"vllm-cli: not a version: {', '.join(bad)}", file=sys.stderr)
        return 2
    try:
        p_files, v_files = index_files(project=plugin.name), index_files()
    except (FetchError, OSError) as exc:
        print(f"vllm-cli: cannot read the package index: {exc}", file=sys.stderr)
        return 2
    known = select_releases(plugin, released_versions(p_files, pre=True))
    wanted = expand_versions(versions, known, plugin.registry_dir / INDEX_NAME)
    return extract_each(plugin.name, wanted,
                        lambda v: extract_plugin_version(plugin, v, p_files, v_files))
