"""HTML helpers of the catalogue: every text goes through :func:`esc` (recipe text is
hostile input), every link through :func:`link` (a URL of the record: only
``https://github.com/`` URLs become an ``href``) or :func:`local_link` (a path of the
site the builder made: relative and percent-encoded); anything else is shown as text."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import quote, urlsplit

from validator.load.hidden import HIDDEN, code_point
from validator.load.joiners import shows_as_spelling

_URL = re.compile(r"https://github\.com/[A-Za-z0-9._~%!$&'()*+,;=:@/?#-]*")
"""A URL of a known origin: https, host github.com, printable ASCII with no backslash,
quote, space or control character (what a browser would strip or read as a slash)."""


HIDDEN_MARK = "hidden-char"
"""Class of the ``<mark>`` that shows a hidden character (:func:`esc`)."""


def _text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) \
            else str(value)
    return value


def _hidden(text: str) -> list[re.Match[str]]:
    """The bidi controls and invisible characters of ``text`` that YAML010 reports (not a
    ZWNJ or ZWJ that joins letters or emoji, which shows)."""
    return [m for m in HIDDEN.finditer(text) if not shows_as_spelling(text, m.start())]


def hidden_count(value: Any) -> int:
    """How many hidden characters (:func:`_hidden`) the strings and keys of ``value`` (a
    parsed record, or any JSON value) hold."""
    if isinstance(value, str):
        return len(_hidden(value))
    if isinstance(value, dict):
        return sum(hidden_count(k) + hidden_count(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(hidden_count(v) for v in value)
    return 0


def _visible(value: Any, mark: bool) -> str:
    text = _text(value)
    out, last = [], 0
    for m in _hidden(text):
        out.append(html.escape(text[last:m.start()], quote=True))
        shown = f"&lt;U+{ord(m[0]):04X}&gt;"
        out.append(f'<mark class="{HIDDEN_MARK}" title="{html.escape(code_point(m[0]))}">'
                   f"{shown}</mark>" if mark else shown)
        last = m.end()
    out.append(html.escape(text[last:], quote=True))
    return "".join(out)


def esc(value: Any) -> str:
    """``value`` as HTML text content (quotes escaped too); each bidi control or invisible
    character (YAML010's) is shown as a ``<U+202E>`` mark instead of acting on the text
    around it, and is copied as that mark."""
    return _visible(value, mark=True)


def shown(value: Any) -> str:
    """``value`` as plain text for a script to show (``textContent``): each hidden
    character written as the text ``<U+202E>``, nothing else changed."""
    text = _text(value)
    out, last = [], 0
    for m in _hidden(text):
        out += [text[last:m.start()], f"<U+{ord(m[0]):04X}>"]
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def json_script(element_id: str, value: Any) -> str:
    """``value`` as a JSON data block the page script reads (``type="application/json"``:
    never run, so the page's script policy is unchanged); ``<``, ``>`` and ``&`` are
    written as ``\\u`` escapes, so no text of it can close the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for ch, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(ch, escaped)
    return f'<script type="application/json" id="{attr(element_id)}">{text}</script>'


def attr(value: Any) -> str:
    """``value`` for an attribute or ``<title>`` (no markup there): escaped, each hidden
    character written as the text ``<U+202E>``."""
    return _visible(value, mark=False)


def safe_url(url: Any) -> bool:
    """Whether ``url`` (a URL a record states) may be an ``href``: ``https://github.com/``
    and nothing a browser could read as another origin or scheme."""
    if not isinstance(url, str) or not _URL.fullmatch(url):
        return False
    parts = urlsplit(url)
    return parts.scheme == "https" and parts.netloc == "github.com"


def _anchor(url: str, text: Any, cls: str) -> str:
    cls_attr = f' class="{attr(cls)}"' if cls else ""
    return f'<a href="{attr(url)}"{cls_attr}>{esc(text)}</a>'


def link(url: str | None, text: Any, cls: str = "") -> str:
    """An ``<a>`` to ``url``, a URL of the record, when :func:`safe_url` allows it, else
    the escaped text alone."""
    return _anchor(url, text, cls) if url and safe_url(url) else esc(text)


def local_link(path: str, text: Any, cls: str = "") -> str:
    """An ``<a>`` to ``path``, a file of the site relative to the page (``../`` steps to
    the site root allowed), percent-encoded so that no character of a file name can make
    it a scheme, a host or a fragment; an absolute path gives the escaped text alone."""
    if not path or path.startswith(("/", "\\")):
        return esc(text)
    return _anchor(quote(path, safe="/"), text, cls)


def page(title: str, body: str, root: str, description: str = "") -> str:
    """A whole HTML document; ``root`` is the relative path to the site root (``""`` or
    ``"../../"``)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{attr(title)}</title>\n"
        f"<meta name=\"description\" content=\"{attr(description)}\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'self'; script-src 'self'; img-src 'self'; base-uri 'none'; "
        "form-action 'none'\">\n"
        f"<link rel=\"stylesheet\" href=\"{root}assets/site.css\">\n</head>\n<body>\n"
        "<a class=\"skip\" href=\"#main\">Skip to content</a>\n"
        f"<header class=\"top\"><a href=\"{root}index.html\">recipe-check records</a></header>\n"
        f"<main id=\"main\">\n{body}\n</main>\n"
        f"<script src=\"{root}assets/site.js\"></script>\n</body>\n</html>\n")


def table(head: list[str], rows: list[list[str]], caption: str = "",
          widths: tuple[int, ...] = (), stack: bool = False) -> str:
    """A scrollable table; cells are HTML already (escape before). ``widths`` fixes the
    column widths in percent (one of the ``w<N>`` classes of the stylesheet), so that one
    long value cannot squeeze the others; ``stack``: on a narrow screen each row is a
    block (its short cells on one line, the last below them) instead of columns."""
    cap = f"<caption class=\"muted\">{esc(caption)}</caption>" if caption else ""
    if widths:
        cap += "<colgroup>" + "".join(f"<col class=\"w{attr(w)}\">" for w in widths) \
            + "</colgroup>"
    ths = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    classes = " ".join(c for c, on in (("fixed", widths), ("stack", stack)) if on)
    fixed = f" class=\"{classes}\"" if classes else ""
    return (f"<div class=\"scroll\"><table{fixed}>{cap}<thead><tr>{ths}</tr></thead>"
            f"<tbody>\n{trs}</tbody></table></div>")


def number_text(value: Any) -> str:
    """A number as the recipe means it: ``893``, never ``893.0`` (a whole float shows
    as an integer, as the YAML the recipe wrote); anything else as :func:`_text`."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return _text(value)


def value_text(value: Any) -> str:
    """A fact value as short text (lists joined with commas, numbers by
    :func:`number_text`)."""
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return ", ".join(number_text(v) for v in value) if value else "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_text(value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def citations(urls: list[str]) -> str:
    """Links to the lines ``urls`` cite, grouped by file: ``GLM-5.2.yaml lines 77, 78,
    23; taxonomy.yaml line 15`` (each line number a link), not one long link per
    line."""
    files: dict[str, list[str]] = {}
    for url in urls:
        base = url.partition("#")[0]
        files.setdefault(base.rsplit("/", 1)[-1], []).append(url)
    parts = []
    for name, cited in files.items():
        numbers = ", ".join(
            link(u, u.partition("#")[2].replace("L", "").replace("-", "–") or "file",
                 "evidence") for u in cited)
        many = len(cited) > 1 or "-" in cited[0].partition("#")[2]
        parts.append(f"{esc(name)} line{'s' if many else ''} {numbers}")
    return "; ".join(parts)


def evidence(url: str | None, label: str = "") -> str:
    """A link to the line a record URL cites, named by its file and lines
    (``taxonomy.yaml line 15``, ``GLM-5.2.yaml lines 32–33``), after ``label`` if
    given."""
    if not url:
        return "<span class=\"muted\">no line</span>"
    base, _, anchor = url.partition("#")
    lines = anchor.replace("L", "").replace("-", "–")
    words = [label, base.rsplit("/", 1)[-1],
             ("lines " if "–" in lines else "line ") + lines if lines else ""]
    return link(url, " ".join(w for w in words if w), "evidence")
