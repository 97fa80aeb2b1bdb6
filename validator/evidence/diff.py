"""What changed between two records of a recipe (two revisions, or two tool versions):
:func:`record_fact_diff`, the core of ``recipe-check diff``.

Compared by meaning, not by bytes: facts by name (value and evidence class; a fact whose
line merely moved is unchanged), rendered default commands by hardware profile, reported
figures by what they report, and the checker's counts. Evidence URLs of both sides are
kept so that a reader can open the old and the new line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class FactChange:
    """One difference between two records.

    Attributes:
        kind: ``added`` (only in the new record), ``removed`` (only in the old), ``changed``.
        section: ``facts``, ``rendered_defaults``, ``reported_results`` or ``validation``.
        name: the fact name (``Variant bf16: precision``), ``Rendered default on h200:
            command``, a reported figure's label, ``Findings: errors``.
        old, new: the values (``None`` on the side where it is absent).
        old_evidence_url, new_evidence_url: the lines that state them, where there are.
    """

    kind: ChangeKind
    section: str
    name: str
    old: Any = None
    new: Any = None
    old_evidence_url: str | None = None
    new_evidence_url: str | None = None

    def describe(self) -> str:
        """One line: ``~ Variant bf16: precision: 'bf16' -> 'fp8'``."""
        mark = {"added": "+", "removed": "-", "changed": "~"}[self.kind]
        if self.kind == "added":
            return f"{mark} {self.name}: {_short(self.new)}"
        if self.kind == "removed":
            return f"{mark} {self.name}: {_short(self.old)}"
        return f"{mark} {self.name}: {_short(self.old)} -> {_short(self.new)}"


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value) if not isinstance(value, str) or "\n" not in value else \
        repr(" ".join(value.split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plain(record: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    if isinstance(record, BaseModel):
        return record.model_dump(mode="json")
    return dict(record)


def _pairs(section: str, old: dict[str, tuple[Any, str | None]],
           new: dict[str, tuple[Any, str | None]]) -> list[FactChange]:
    out = []
    for name, (value, url) in new.items():
        if name not in old:
            out.append(FactChange("added", section, name, None, value, None, url))
        elif old[name][0] != value:
            out.append(FactChange("changed", section, name, old[name][0], value,
                                  old[name][1], url))
    out += [FactChange("removed", section, name, value, None, url, None)
            for name, (value, url) in old.items() if name not in new]
    return out


def _facts(rec: dict[str, Any]) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {}
    for f in rec.get("facts") or []:
        value = f["value"] if f["classification"] in ("recipe_declaration", "derived") \
            else {"value": f["value"], "classification": f["classification"]}
        out.setdefault(f["name"], (value, f.get("evidence_url")))
    return out


def _rendered(rec: dict[str, Any]) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {}
    for r in rec.get("rendered_defaults") or []:
        hw = r["hardware"]
        out[f"Rendered default on {hw}: configuration"] = (
            f"{r['variant']} · {r['strategy']} · {r.get('node_count')} node(s) · "
            f"features {', '.join(r['features']) or 'none'}", None)
        for p in r.get("processes") or []:
            out[f"Rendered default on {hw}: {p['role']} command"] = (p["command"], None)
        out[f"Rendered default on {hw}: docker image"] = (r.get("docker_image"), None)
    return out


def _reported(rec: dict[str, Any]) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {}
    for r in rec.get("reported_results") or []:
        setup = r.get("setup") or {}
        where = ", ".join(setup.get("hardware") or []) or (r.get("conditions") or {}).get(
            "heading", "")
        key = f"Reported {r['metric']}: {r['label']}" + (f" ({where})" if where else "")
        n = 2
        base = key
        while key in out:
            key, n = f"{base} #{n}", n + 1
        out[key] = (f"{r.get('bound', '=')} {r['value']} {r['unit']}", r.get("evidence_url"))
    return out


def _validation(rec: dict[str, Any]) -> dict[str, tuple[Any, str | None]]:
    val = rec.get("validation") or {}
    out: dict[str, tuple[Any, str | None]] = {
        f"Findings: {k}": (v, None) for k, v in sorted((val.get("summary") or {}).items())}
    out["Rules skipped"] = (len(val.get("rules_skipped") or []), None)
    return out


def record_fact_diff(old_record: Mapping[str, Any] | BaseModel,
                     new_record: Mapping[str, Any] | BaseModel) -> list[FactChange]:
    """The facts that changed from ``old_record`` to ``new_record`` (parsed record JSON or
    :class:`~validator.evidence.model.Record`), in the new record's order per section
    (facts, rendered defaults, reported results, validation counts), removed ones after
    the others of their section. Identical records give ``[]``."""
    old, new = _plain(old_record), _plain(new_record)
    out: list[FactChange] = []
    for section, pick in (("facts", _facts), ("rendered_defaults", _rendered),
                          ("reported_results", _reported), ("validation", _validation)):
        out += _pairs(section, pick(old), pick(new))
    return out
