"""Field-by-field comparison of two static-API folders (the site's build and ours).

A *configuration file* is a file holding one rendering: ``<hf_id>/hw/<hw>.json``,
``<hf_id>/strategies/<s>.json``, ``<hf_id>/hw/<hw>/strategies/<s>.json``, and each recipe
document ``<hf_id>.json`` that carries a ``recommended_command``. Its *fields* are the
top-level keys of the rendering (for a recipe document: those of ``recommended_command``
and the document's own other keys), less the links and copied specs the issue exempts.
The other files (index files, recipe documents without a rendering) are compared whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from validator.render.api_out import MARKER

EXEMPT = ("alternatives", "by_hardware", "strategy_spec", "hardware_profile")
"""Rendering keys allowed to differ: links to other files and copies of specs."""


def read_api(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``: POSIX path relative to it -> bytes (links to folders
    not followed, as ``os.walk``); recipe-check's ownership marker :data:`MARKER` left
    out, it is no file of the API."""
    out: dict[str, bytes] = {}
    _read_folder(os.fspath(folder), "", out)
    out.pop(MARKER, None)
    return out


_CHUNK = 1 << 16


def _read_folder(top: str, prefix: str, out: dict[str, bytes]) -> None:
    """:func:`read_api` of the folder ``top`` (``prefix``: its path in the API): os-level
    calls on strings, an open, two reads and a close a file (15,000 files a build)."""
    with os.scandir(top) as entries:
        listed = list(entries)
    for entry in listed:
        if entry.is_dir():
            if not entry.is_symlink():
                _read_folder(entry.path, f"{prefix}{entry.name}/", out)
            continue
        fd = os.open(entry.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            chunks = [os.read(fd, _CHUNK)]
            while chunks[-1]:
                chunks.append(os.read(fd, _CHUNK))
        finally:
            os.close(fd)
        out[prefix + entry.name] = chunks[0] if len(chunks) == 2 else b"".join(chunks)


def rendering_of(rel: str, doc: Any) -> dict[str, Any] | None:
    """The rendering a configuration file holds (``None``: not a configuration file)."""
    if "/hw/" in rel or ("/strategies/" in rel and not rel.startswith("strategies/")):
        return doc if isinstance(doc, dict) else None
    if isinstance(doc, dict) and isinstance(doc.get("recommended_command"), dict):
        rendering: dict[str, Any] = doc["recommended_command"]
        return rendering
    return None


def _fields(rel: str, doc: Any) -> dict[str, Any] | None:
    rendering = rendering_of(rel, doc)
    if rendering is None:
        return None
    out = {k: v for k, v in rendering.items() if k not in EXEMPT}
    if rendering is not doc:
        out.update((f"<recipe>/{k}", v) for k, v in doc.items() if k != "recommended_command")
    return out


def first_differences(site: Any, ours: Any, pointer: str = "", limit: int = 3) -> list[str]:
    """Up to ``limit`` JSON Pointers where ``ours`` differs from ``site``, with both values."""
    if isinstance(site, dict) and isinstance(ours, dict):
        out: list[str] = []
        for key in [*site, *(k for k in ours if k not in site)]:
            if len(out) >= limit:
                break
            if key not in ours or key not in site:
                side = "ours lacks it" if key not in ours else "the site's lacks it"
                out.append(f"{pointer}/{key}: {side}")
            elif site[key] != ours[key]:
                out += first_differences(site[key], ours[key], f"{pointer}/{key}",
                                         limit - len(out))
        return out
    if isinstance(site, list) and isinstance(ours, list) and len(site) == len(ours):
        out = []
        for i, (a, b) in enumerate(zip(site, ours, strict=True)):
            if a != b and len(out) < limit:
                out += first_differences(a, b, f"{pointer}/{i}", limit - len(out))
        return out
    return [f"{pointer or '/'}: site {_short(site)} | ours {_short(ours)}"]


def _short(value: Any) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= 160 else text[:157] + "..."


@dataclass
class ApiComparison:
    """Counts of one comparison, and the first mismatches in readable form."""

    site_files: int = 0
    our_files: int = 0
    configuration_files: int = 0
    fields: int = 0
    fields_equal: int = 0
    exempt_differences: int = 0
    byte_identical: int = 0
    other_files_equal: int = 0
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        """Same files, every listed field equal, every other file equal."""
        return not (self.missing or self.extra or self.mismatches)

    def report(self, limit: int = 20) -> str:
        """The counts and the first ``limit`` mismatches."""
        lines = [f"site {self.site_files} files, ours {self.our_files}; "
                 f"{self.configuration_files} configuration files, "
                 f"{self.fields_equal}/{self.fields} fields equal; "
                 f"{self.byte_identical} files byte-identical"]
        lines += [f"missing from ours: {p}" for p in self.missing[:limit]]
        lines += [f"not in the site's: {p}" for p in self.extra[:limit]]
        lines += self.mismatches[:limit]
        more = len(self.missing) + len(self.extra) + len(self.mismatches) - 3 * limit
        if more > 0:
            lines.append(f"... and up to {more} more")
        return "\n".join(lines)


def compare_api(site: dict[str, bytes], ours: dict[str, bytes]) -> ApiComparison:
    """Compare two API folders read with :func:`read_api`."""
    result = ApiComparison(len(site), len(ours))
    result.missing = sorted(set(site) - set(ours))
    result.extra = sorted(set(ours) - set(site))
    for rel in sorted(set(site) & set(ours)):
        identical = site[rel] == ours[rel]
        result.byte_identical += identical
        site_doc = orjson.loads(site[rel])
        our_doc = site_doc if identical else orjson.loads(ours[rel])
        site_fields, our_fields = _fields(rel, site_doc), _fields(rel, our_doc)
        if site_fields is None or our_fields is None:
            if site_fields is not None or our_fields is not None:
                result.mismatches.append(f"{rel}: a configuration file in only one of them")
            elif site_doc == our_doc:
                result.other_files_equal += 1
            else:
                result.mismatches.append(
                    f"{rel}: " + "; ".join(first_differences(site_doc, our_doc)))
            continue
        result.configuration_files += 1
        result.fields += len(site_fields)
        equal = sum(1 for k, v in site_fields.items() if k in our_fields and our_fields[k] == v)
        result.fields_equal += equal
        if equal != len(site_fields) or set(our_fields) - set(site_fields):
            result.mismatches.append(
                f"{rel}: " + "; ".join(first_differences(site_fields, our_fields)))
        if not identical and site_doc != our_doc:
            result.exempt_differences += 1
    return result
