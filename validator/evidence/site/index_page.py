"""The catalogue's index: every current record, searchable by model and filterable by
hardware brand, precision, task, verified hardware and minimum vLLM. The list is plain
HTML (usable without script); ``site.js`` hides the entries a filter excludes, reading the
``data-*`` attributes written here, and keeps the filters in the URL's query (a shared link
and back / forward restore them). A mixed precision is filed under each precision it names
(:mod:`validator.evidence.site.precision`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from validator.evidence.site.html import attr, esc, hidden_count, local_link, page
from validator.evidence.site.precision import precisions


@dataclass(frozen=True)
class Entry:
    """What the index shows and filters on for one record."""

    href: str
    title: str
    model_id: str
    provider: str
    path: str
    commit: str
    brands: tuple[str, ...]
    precisions: tuple[str, ...]
    tasks: tuple[str, ...]
    verified: tuple[str, ...]
    min_vllm: str
    errors: int
    warnings: int
    skipped: int
    hidden: int

    @classmethod
    def of(cls, record: dict[str, Any], href: str) -> Entry:
        """The entry of one record (parsed JSON)."""
        params = record.get("recipe_parameters") or {}
        options = record.get("deployment_options") or []
        summary = (record.get("validation") or {}).get("summary") or {}
        return cls(
            href=href, title=str(record.get("model_label") or record.get("title") or ""),
            model_id=str(record.get("model_id") or ""),
            provider=str(record.get("model_provider") or ""),
            path=str(record["source"]["document_path"]),
            commit=str(record["source"]["revision"]),
            brands=tuple(sorted({str(b).lower() for b in record.get("hardware_topics") or []})),
            precisions=tuple(sorted({p for o in options if o.get("precision")
                                     for p in precisions(str(o["precision"]))})),
            tasks=tuple(sorted({str(t) for t in params.get("tasks") or []})),
            verified=tuple(sorted({str(c["profile"]) for c in params.get("hardware_claims")
                                   or [] if c.get("maintainer_status") == "verified"})),
            min_vllm=str(params.get("effective_default_minimum_runtime_version") or ""),
            errors=int(summary.get("errors", 0)), warnings=int(summary.get("warnings", 0)),
            skipped=len((record.get("validation") or {}).get("rules_skipped") or []),
            hidden=hidden_count(record))


def _options(name: str, label: str, values: list[str], any_label: str) -> str:
    opts = "".join(f"<option value=\"{attr(v)}\">{esc(v)}</option>" for v in values)
    return (f"<div><label for=\"f-{name}\">{esc(label)}</label>"
            f"<select id=\"f-{name}\" name=\"{name}\"><option value=\"\">{esc(any_label)}"
            f"</option>{opts}</select></div>")


def _version_order(v: str) -> tuple[int, Version | str]:
    """PEP 440 order (``0.6.1.post1`` before ``0.6.1.post2``, ``0.10.0rc1`` before
    ``0.10.0``); a minimum that is no PEP 440 version after them by its text, ``nightly``
    last."""
    if v == "nightly":
        return (2, v)
    try:
        return (0, Version(v))
    except InvalidVersion:
        return (1, v)


def _item(e: Entry) -> str:
    search = " ".join((e.title, e.model_id, e.provider, e.path)).lower()
    tags = [f"<span class=\"tag\">{esc(p)}</span>" for p in e.precisions]
    tags += [f"<span class=\"tag\">{esc(b)}</span>" for b in e.brands]
    tags += [f"<span class=\"tag ok\">verified: {esc(v)}</span>" for v in e.verified]
    if e.min_vllm:
        tags.append(f"<span class=\"tag\">vLLM &ge; {esc(e.min_vllm)}</span>")
    tags.append(f"<span class=\"tag {'err' if e.errors else 'ok'}\">{e.errors} error(s)</span>")
    if e.warnings:
        tags.append(f"<span class=\"tag warn\">{e.warnings} warning(s)</span>")
    if e.skipped:
        tags.append(f"<span class=\"tag warn\">{e.skipped} rules skipped</span>")
    if e.hidden:
        tags.append(f"<span class=\"tag err\">{e.hidden} hidden character(s)</span>")
    attrs = {"search": search, "brands": " ".join(e.brands),
             "precisions": " ".join(e.precisions), "tasks": " ".join(e.tasks),
             "verified": " ".join(e.verified), "minv": e.min_vllm}
    data = " ".join(f"data-{k}=\"{attr(v)}\"" for k, v in attrs.items())
    return (f"<li {data}>{local_link(e.href, e.title, 'record')} "
            f"<span class=\"muted\"><code>{esc(e.model_id)}</code> &middot; "
            f"{esc(e.path)} @ <code>{esc(e.commit[:12])}</code></span>"
            f"<div class=\"tags\">{''.join(tags)}</div></li>")


def index_html(entries: list[Entry], releases: Sequence[str] = ()) -> str:
    """The whole index page; its "I run vLLM" filter offers every one of ``releases``
    (the vendored vLLM releases) and every minimum a record names."""
    entries = sorted(entries, key=lambda e: (e.title.lower(), e.path, e.commit))
    brands = sorted({b for e in entries for b in e.brands})
    precisions = sorted({p for e in entries for p in e.precisions})
    tasks = sorted({t for e in entries for t in e.tasks})
    verified = sorted({v for e in entries for v in e.verified})
    versions = sorted({e.min_vllm for e in entries if e.min_vllm} | set(releases),
                      key=_version_order)
    form = (
        "<form id=\"filters\" class=\"filters\" role=\"search\" aria-label=\"Filter records\">"
        "<div><label for=\"f-q\">Search by model</label><input id=\"f-q\" name=\"q\" "
        "type=\"search\" placeholder=\"e.g. GLM-5.2\" autocomplete=\"off\"></div>"
        + _options("brand", "Hardware brand", brands, "any brand")
        + _options("precision", "Precision", precisions, "any precision")
        + _options("task", "Task", tasks, "any task")
        + _options("verified", "Verified on", verified, "any hardware")
        + _options("vllm", "I run vLLM", versions, "any version")
        + "</form>")
    body = (
        "<h1>Evidence records of vLLM recipes</h1>"
        "<p class=\"muted\">Each record states what one pinned recipe declares, with the line "
        "that states it, and what recipe-check found. No model was run for any of them.</p>"
        f"{form}<p id=\"shown\" class=\"count\" role=\"status\" aria-live=\"polite\">"
        f"{len(entries)} records</p>"
        f"<ul class=\"records\">\n" + "\n".join(_item(e) for e in entries) + "\n</ul>")
    return page("recipe-check records", body, "",
                f"{len(entries)} evidence records of vLLM serving recipes")
