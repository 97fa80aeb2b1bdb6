"""The recipe's guide on its record page: the text as the recipe writes it, its fenced
code blocks highlighted at build time.

Pygments only splits a block into tokens (by the fence's language; a language it does not
know, or none, leaves the block plain); every token is written by :func:`esc` like any
recipe text (escaped, hidden characters marked) inside a ``<span>`` whose class is
Pygments' short name for the token type (``hl-k`` keyword, ``hl-s2`` string ...), coloured
by rules of the site's stylesheet (:func:`highlight_css`): no inline style, no script."""

from __future__ import annotations

from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

from validator.evidence.site.html import esc
from validator.guide.commands import find_fences

PREFIX = "hl-"
"""Prefix of the token classes (``hl-k``), so that none clashes with the site's own."""


def highlight_css() -> str:
    """The stylesheet rules of the token classes (Pygments' default style), inside
    ``pre.guide``."""
    formatter = HtmlFormatter(style="default", classprefix=PREFIX)
    return str(formatter.get_style_defs("pre.guide .code")) + "\n"  # type: ignore[no-untyped-call]


def _lexer(lang: str) -> Lexer | None:
    if not lang:
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
    when Pygments knows ``lang``; escaped plain text otherwise (also when the tokens would
    not give back ``code`` exactly)."""
    lexer = _lexer(lang)
    tokens = list(lexer.get_tokens(code)) if lexer is not None else []
    if "".join(value for _, value in tokens) != code:
        return esc(code)
    out = []
    for ttype, value in tokens:
        cls = _css_class(ttype)
        out.append(f'<span class="{PREFIX}{cls}">{esc(value)}</span>'
                   if cls else esc(value))
    return "".join(out)


def guide_body(text: str) -> str:
    """The guide as one ``<pre class="guide">``: its prose and fence lines as escaped
    text, each fenced block's content highlighted (:func:`highlighted`) in a ``<span
    class="code">``; the text shown is the guide's, character for character."""
    lines = text.splitlines(keepends=True)  # the lines find_fences numbers
    out, pos = [], 0
    for fence in find_fences(text):
        end = fence.first + len(fence.lines)
        out.append(esc("".join(lines[pos:fence.first])))
        out.append(f'<span class="code">'
                   f'{highlighted("".join(lines[fence.first:end]), fence.lang)}</span>')
        pos = end
    out.append(esc("".join(lines[pos:])))
    return f'<pre class="guide">{"".join(out)}</pre>'
