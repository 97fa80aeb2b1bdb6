"""Unpack a vLLM release's sources for introspection (step 2 of
:mod:`validator.vllm_cli.extract`).

:func:`unpack_sources` copies only the ``vllm/**.py`` sources of an sdist or wheel, plus a
synthetic ``vllm-<v>.dist-info`` carrying the release's own version and ``vllm``
console-script target, and ``<name>-<v>.dist-info`` entries for the heavy packages the
release pins (:data:`PINNED_STUBS`).
"""

from __future__ import annotations

import json
import re
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from validator.errors import RecipeCheckError


class ExtractionError(RecipeCheckError, RuntimeError):
    """Raised when a release's parser cannot be built or its dump is unusable."""


def _console_target_from_text(text: str) -> str | None:
    """Find ``vllm = module:func`` in setup.py / pyproject.toml / entry_points.txt."""
    m = re.search(r"""["']?vllm["']?\s*=\s*["']?([\w.]+:[\w.]+)""", text)
    return m.group(1) if m else None


#: Stubbed packages whose version the release's requirements may pin; the pins become
#: the stubs' ``__version__`` and synthetic ``<name>-<v>.dist-info`` entries, so
#: version gates in vLLM (``importlib.metadata.version("torch")``…) see what the
#: release was built against.
PINNED_STUBS = ("torch", "transformers", "triton", "xformers", "flashinfer-python", "tokenizers")
_REQ_RE = re.compile(
    r"^\s*(?:Requires-Dist:\s*)?(" + "|".join(re.escape(n) for n in PINNED_STUBS)
    + r")\s*(?:\[[^\]]*\])?\s*\(?\s*(?:==|>=|~=)\s*([0-9][0-9A-Za-z.+]*)",
    re.MULTILINE,
)


def requirement_pins(texts: list[str]) -> dict[str, str]:
    """First ``name==X`` / ``name>=X`` pin of each :data:`PINNED_STUBS` package in ``texts``.

    ``texts`` are requirement files (``requirements/cuda.txt``…), ``pyproject.toml`` or a
    wheel's ``METADATA``, most specific first.  Keys use import names (``flashinfer``).
    """
    pins: dict[str, str] = {}
    for text in texts:
        for m in _REQ_RE.finditer(text):
            name = m.group(1).replace("-python", "").replace("-", "_")
            pins.setdefault(name, m.group(2).rstrip("."))
    return pins


def _req_rank(rel: str) -> int:
    order = ("cuda", "common", "requirements.txt", "pyproject", "build")
    return next((i for i, k in enumerate(order) if k in rel), len(order))


@dataclass
class _Unpacked:
    """What reading an archive gave: metadata texts that may name the console script,
    requirement texts ``(rank, name, text)`` and the number of sources written."""

    meta_texts: list[str] = field(default_factory=list)
    req_texts: list[tuple[int, str, str]] = field(default_factory=list)
    sources: int = 0


def unpack_sources(archive: Path, version: str, dest: Path) -> Path:
    """Extract ``vllm/**/*.py`` of ``archive`` (sdist ``.tar.gz`` or wheel) into ``dest``.

    Also writes ``dest/entry_point.txt`` (console-script target, empty if the release
    has no ``vllm`` command) and ``dest/vllm-<version>.dist-info`` so that the release's
    ``importlib.metadata.version("vllm")`` calls answer with its own version.
    Returns ``dest``.  Raises :class:`ExtractionError` if no ``vllm/`` package is found.
    """
    dest.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith(".tar.gz"):
        unpacked = _unpack_sdist(archive, dest)
    else:
        unpacked = _unpack_wheel(archive, dest)
    if unpacked.sources == 0:
        raise ExtractionError(f"{archive.name}: no vllm/*.py sources inside")
    _write_vllm_dist_info(dest, version, unpacked.meta_texts)
    _write_pinned_dist_infos(dest, unpacked.req_texts)
    return dest


def _unpack_sdist(archive: Path, dest: Path) -> _Unpacked:
    """Copy an sdist's ``vllm/**.py`` into ``dest``; read its setup and requirement files."""
    out = _Unpacked()
    with tarfile.open(archive, "r:gz") as tf:
        for m in tf.getmembers():
            parts = m.name.split("/", 1)
            if len(parts) != 2 or not m.isfile():
                continue
            rel = parts[1]
            is_req = "/" not in rel.removeprefix("requirements/") and (
                rel.startswith("requirements") and rel.endswith(".txt")
            )
            if rel in ("setup.py", "pyproject.toml") or is_req:
                f = tf.extractfile(m)
                if f is not None:
                    text = f.read().decode("utf-8", "replace")
                    if rel != "setup.py":
                        out.req_texts.append((_req_rank(rel), rel, text))
                    if rel != "requirements" and not is_req:
                        out.meta_texts.append(text)
                continue
            if rel.startswith("vllm/") and rel.endswith(".py"):
                f = tf.extractfile(m)
                if f is None:
                    continue
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(f.read())
                out.sources += 1
    return out


def _unpack_wheel(archive: Path, dest: Path) -> _Unpacked:
    """Copy a wheel's ``vllm/**.py`` into ``dest``; read its entry points and METADATA."""
    out = _Unpacked()
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            if name.endswith(".dist-info/entry_points.txt"):
                out.meta_texts.append(zf.read(name).decode("utf-8", "replace"))
            elif name.endswith(".dist-info/METADATA"):
                out.req_texts.append((0, name, zf.read(name).decode("utf-8", "replace")))
            elif name.startswith("vllm/") and name.endswith(".py"):
                target = dest / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))
                out.sources += 1
    return out


def _write_vllm_dist_info(dest: Path, version: str, meta_texts: list[str]) -> None:
    """``entry_point.txt`` and ``vllm-<version>.dist-info`` (with the console script the
    first of ``meta_texts`` that names one gives)."""
    target = None
    for t in meta_texts:
        target = _console_target_from_text(t)
        if target:
            break
    (dest / "entry_point.txt").write_text(target or "", encoding="utf-8")
    dist = dest / f"vllm-{version}.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n", encoding="utf-8"
    )
    if target:
        (dist / "entry_points.txt").write_text(
            f"[console_scripts]\nvllm = {target}\n", encoding="utf-8"
        )


def _write_pinned_dist_infos(dest: Path, req_texts: list[tuple[int, str, str]]) -> None:
    """``stub_versions.json`` and a ``<name>-<v>.dist-info`` per pinned stub package."""
    pins = requirement_pins([t for _, _, t in sorted(req_texts)])
    (dest / "stub_versions.json").write_text(json.dumps(pins, sort_keys=True), encoding="utf-8")
    for name, ver in pins.items():
        d = dest / f"{name}-{ver}.dist-info"
        d.mkdir(exist_ok=True)
        (d / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\n", encoding="utf-8"
        )
