"""The recipe's guide on its record page: its markdown rendered as HTML at build time
(markdown-it-py, CommonMark with tables and strikethrough), as the recipes site shows it,
and its fenced code blocks highlighted.

The guide is hostile input. Raw HTML is off (a ``<script>`` or ``<b>`` in the guide shows
as text); every text and code token is written by :func:`esc` like any recipe text
(escaped, hidden characters marked); a link becomes an ``<a>`` only to an absolute
``http(s)`` URL (:func:`_web_url`), anything else (``javascript:``, ``data:``, relative
paths, fragments) shows as its text; an image is never loaded: it shows as a link to its
URL. Tables' alignment is a class, never an inline style (the pages' CSP allows none).
Headings move two levels down (a guide's ``#`` is an ``<h3>`` under the page's Guide
``<h2>``) and take no ``id``, so none clashes with the page's section links.

Pygments only splits a code block into tokens, by the fence's language when it is one of
:data:`HIGHLIGHTED_LANGUAGES` (the languages guides use, whose lexers take time linear in
the block's length) and the block has at most :data:`MAX_HIGHLIGHTED` characters; any
other block is plain escaped text (some Pygments lexers take time quadratic in the length,
minutes for one long block). Each token is a ``<span>`` whose class is
Pygments' short name for the token type (``hl-k`` keyword, ``hl-s2`` string ...), coloured
by rules of the site's stylesheet (:func:`highlight_css`): no inline style, no script."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

from validator.evidence.site.html import attr, esc

PREFIX = "hl-"
"""Prefix of the token classes (``hl-k``), so that none clashes with the site's own."""

GUIDE_CLASS = "guide"
"""Class of the ``<div>`` holding the rendered guide."""

MAX_NESTING = 20
"""Deepest nesting of blocks and inline marks the parser follows (CommonMark preset's
bound): deeper quotes or lists are read as text, so no guide makes the parse deep."""

MAX_RENDERED = 100_000
"""Longest guide rendered as markdown (the longest on corpus ``main`` has 27,473
characters); parsing takes time about linear in the length, ~2 s per 100,000 characters
of the worst inputs tried on a loaded 2-core machine."""

MAX_HIGHLIGHTED = 20_000
"""Longest code block highlighted (the longest fence of the corpus's guides has 2,622
characters); a longer one is plain escaped text, so highlighting a whole guide takes well
under a second."""

HIGHLIGHTED_LANGUAGES = frozenset({
    "bash", "sh", "shell", "zsh", "ksh",  # Pygments' Bash lexer
    "python", "py", "python3",
    "json", "toml", "dockerfile", "docker", "text",
})
"""Fence languages highlighted: those the corpus's guides use (bash, python, shell, json,
text) and a few more whose lexers take time linear in the block's length (measured on
repeated quotes, brackets, backslashes and random text: at most ~0.15 s CPU per 20,000
characters). Others, such as ``yaml``, ``console``, ``diff``, ``ini`` (quadratic) or
``amdgpu`` (minutes), are plain text."""

HEADING_SHIFT = 2
"""A guide heading of level N is an ``<h(N+2)>`` (at most ``<h6>``)."""

_WEB_URL = re.compile(r"https?://[A-Za-z0-9._~%!$&'()*+,;=:@/?#\[\]-]+", re.IGNORECASE)
"""An absolute web URL of printable ASCII without quote, backslash, space or control
character (markdown-it percent-encodes the rest of a link's destination)."""

_ALIGN = re.compile(r"text-align:(left|right|center)")


def highlight_css() -> str:
    """The stylesheet rules of the token classes (Pygments' default style), inside the
    guide's code blocks."""
    formatter = HtmlFormatter(style="default", classprefix=PREFIX)
    return str(formatter.get_style_defs(f"div.{GUIDE_CLASS} pre"))  # type: ignore[no-untyped-call]


def _lexer(lang: str) -> Lexer | None:
    """The lexer of a fence language of :data:`HIGHLIGHTED_LANGUAGES` (matched in any case,
    as Pygments does); ``None`` for any other."""
    if lang.lower() not in HIGHLIGHTED_LANGUAGES:
        return None
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:
        return None


def _css_class(ttype: _TokenType | None) -> str:
    """Pygments' short class of a token type (of its nearest standard ancestor); ``""``
    for plain text and whitespace, which are not coloured."""
    while ttype is not None and ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    cls = STANDARD_TYPES.get(ttype, "") if ttype is not None else ""
    return "" if cls == "w" else cls


def highlighted(code: str, lang: str) -> str:
    """``code`` (a fenced block's lines) as HTML: escaped, its tokens in classed spans
    when ``lang`` is highlighted (:data:`HIGHLIGHTED_LANGUAGES`) and ``code`` has at most
    :data:`MAX_HIGHLIGHTED` characters; escaped plain text otherwise (also when the tokens
    would not give back ``code`` exactly)."""
    lexer = _lexer(lang) if len(code) <= MAX_HIGHLIGHTED else None
    tokens = list(lexer.get_tokens(code)) if lexer is not None else []
    if "".join(value for _, value in tokens) != code:
        return esc(code)
    out = []
    for ttype, value in tokens:
        cls = _css_class(ttype)
        out.append(f'<span class="{PREFIX}{cls}">{esc(value)}</span>'
                   if cls else esc(value))
    return "".join(out)


def _web_url(url: str) -> bool:
    """Whether a link destination may be an ``href``: an absolute ``http``/``https`` URL
    with a host (:data:`_WEB_URL`), nothing a browser runs or resolves against the
    catalogue."""
    if not _WEB_URL.fullmatch(url):
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _link_attrs(href: str) -> str:
    return f' href="{attr(href)}" rel="nofollow noopener noreferrer"'


class _GuideRenderer(RendererHTML):
    """markdown-it's HTML renderer with every text through :func:`esc`, links checked by
    :func:`_web_url`, images shown as links and code highlighted by :func:`highlighted`."""

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
             env: EnvType) -> str:
        return esc(tokens[idx].content)

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
        return esc(tokens[idx].content)  # never produced with html off; text if it were

    html_block = html_inline

    def code_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
        return f"<code>{esc(tokens[idx].content)}</code>"

    def code_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: EnvType) -> str:
        return f"<pre><code>{esc(tokens[idx].content)}</code></pre>\n"

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
              env: EnvType) -> str:
        token = tokens[idx]
        lang = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
        return f"<pre><code>{highlighted(token.content, lang)}</code></pre>\n"

    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: EnvType) -> str:
        href = str(tokens[idx].attrGet("href") or "")
        return f"<a{_link_attrs(href)}>" if tokens[idx].meta.get("web") else ""

    def link_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: EnvType) -> str:
        return "</a>" if tokens[idx].meta.get("web") else ""

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
              env: EnvType) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = self.renderInlineAsText(token.children or [], options, env)
        label = f"image: {alt or src}"
        return f"<a{_link_attrs(src)}>{esc(label)}</a>" if _web_url(src) else esc(label)


    def table_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: EnvType) -> str:
        return '<div class="scroll"><table>\n'

    def table_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
        return "</table></div>\n"


def _mark_links(children: list[Token]) -> None:
    """Mark each link pair whose destination is a web URL (``meta["web"]``); the others
    render as their text alone."""
    stack: list[bool] = []
    for child in children:
        if child.type == "link_open":
            stack.append(_web_url(str(child.attrGet("href") or "")))
            child.meta["web"] = stack[-1]
        elif child.type == "link_close":
            child.meta["web"] = stack.pop() if stack else False


def _shape(tokens: list[Token]) -> None:
    """Headings moved down :data:`HEADING_SHIFT` levels, table cells' alignment as a
    class, links marked (:func:`_mark_links`)."""
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1:]) + HEADING_SHIFT)}"
        elif token.type in ("th_open", "td_open"):
            align = _ALIGN.fullmatch(str(token.attrGet("style") or ""))
            token.attrs.pop("style", None)
            if align:
                token.attrSet("class", f"align-{align[1]}")
        elif token.type == "inline" and token.children:
            _mark_links(token.children)


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False,
                                   "maxNesting": MAX_NESTING},
                    renderer_cls=_GuideRenderer)
    return md.enable(["table", "strikethrough"])


def _as_text(text: str, why: str) -> str:
    return (f'<div class="{GUIDE_CLASS}"><p class="muted">{esc(why)}; it is shown as '
            f"text.</p><pre>{esc(text)}</pre></div>")


def guide_body(text: str) -> str:
    """The guide's markdown as HTML in a ``<div class="guide">`` (see the module's
    docstring for what is kept and what is shown as text); a guide longer than
    :data:`MAX_RENDERED` characters, or nested deeper than the parser follows (it would
    drop the rest), is shown whole as escaped text instead."""
    if len(text) > MAX_RENDERED:
        return _as_text(text, f"The guide is longer than {MAX_RENDERED:,} characters")
    md = _parser()
    tokens = md.parse(text)
    if any(t.nesting == 1 and t.level >= MAX_NESTING - 1 for t in tokens):
        return _as_text(text, f"The guide nests blocks deeper than {MAX_NESTING - 1} levels")
    _shape(tokens)
    return f'<div class="{GUIDE_CLASS}">{md.renderer.render(tokens, md.options, {})}</div>'
