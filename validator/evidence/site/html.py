"""HTML helpers of the catalogue: every text goes through :func:`esc` (recipe text is
hostile input), every link through :func:`link`, which only makes ``href`` of relative
site paths and ``https://github.com/`` evidence URLs; anything else is shown as text."""

from __future__ import annotations

import html
import json
from typing import Any

GITHUB = "https://github.com/"


def esc(value: Any) -> str:
    """``value`` as HTML text (quotes escaped too, so it is safe in attributes)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) \
            else str(value)
    return html.escape(value, quote=True)


def link(url: str | None, text: Any, cls: str = "") -> str:
    """An ``<a>`` to ``url`` when it is a GitHub URL or a relative site path, else the
    escaped text alone."""
    if not url:
        return esc(text)
    safe = url.startswith(GITHUB) or (not any(c in url.split("/")[0] for c in ":\\")
                                      and not url.startswith("//"))
    if not safe:
        return esc(text)
    attr = f' class="{esc(cls)}"' if cls else ""
    return f'<a href="{esc(url)}"{attr}>{esc(text)}</a>'


def page(title: str, body: str, root: str, description: str = "") -> str:
    """A whole HTML document; ``root`` is the relative path to the site root (``""`` or
    ``"../../"``)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{esc(title)}</title>\n"
        f"<meta name=\"description\" content=\"{esc(description)}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'self'; script-src 'self'; img-src 'self'; base-uri 'none'; "
        "form-action 'none'\">\n"
        f"<link rel=\"stylesheet\" href=\"{root}assets/site.css\">\n</head>\n<body>\n"
        "<a class=\"skip\" href=\"#main\">Skip to content</a>\n"
        f"<header class=\"top\"><a href=\"{root}index.html\">recipe-check records</a></header>\n"
        f"<main id=\"main\">\n{body}\n</main>\n"
        f"<script src=\"{root}assets/site.js\"></script>\n</body>\n</html>\n")


def table(head: list[str], rows: list[list[str]], caption: str = "",
          widths: tuple[int, ...] = ()) -> str:
    """A scrollable table; cells are HTML already (escape before). ``widths`` fixes the
    column widths in percent (one of the ``w<N>`` classes of the stylesheet), so that one
    long value cannot squeeze the others."""
    cap = f"<caption class=\"muted\">{esc(caption)}</caption>" if caption else ""
    if widths:
        cap += "<colgroup>" + "".join(f"<col class=\"w{esc(w)}\">" for w in widths) \
            + "</colgroup>"
    ths = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    fixed = " class=\"fixed\"" if widths else ""
    return (f"<div class=\"scroll\"><table{fixed}>{cap}<thead><tr>{ths}</tr></thead>"
            f"<tbody>\n{trs}</tbody></table></div>")


def value_text(value: Any) -> str:
    """A fact value as short text (lists joined with commas)."""
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return ", ".join(str(v) for v in value) if value else "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
