"""The guide on a record page: its markdown rendered as HTML (headings, lists, tables,
emphasis, code blocks highlighted at build time with classes the site's stylesheet
colours), raw HTML shown as text, links only to web URLs, images never loaded, no inline
style or script; hostile and huge guides render as text, quickly, and run nothing in
Chromium."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_catalogue_browser import OUTPUT, chromium_context
from tests.catalogue.test_record_page_picker import MINI, PATH
from validator.evidence.site.guide_page import MAX_RENDERED, guide_body, highlight_css, highlighted

GUIDE = """\
## Serve <b>it</b>
Start the server, *then* **ask** it (`curl` works):

1. pull the image
2. run it
   - on one node

| GPUs | tok/s |
|:-----|------:|
| 8    | 70    |

```bash
export HF_TOKEN="a<b>&c"  # a comment
vllm serve acme/Mini --max-model-len 4096
```

See [the docs](https://docs.vllm.ai/en/latest/) and <https://github.com/vllm-project/vllm>.

```unknown-lang
plain <i>text</i>
```
"""
"""Prose with markup, an ordered and a nested list, an aligned table, a bash block, links
and a block in a language Pygments does not know."""

HOSTILE = """\
# Hi <script>alert("h1")</script>
<script>document.title = "pwned"</script>
<img src=x onerror="document.title='img'">
<a href="javascript:alert(1)" onclick="alert(2)">raw a</a>
<style>body { display: none }</style>

[js](javascript:alert(3)) [JS](JAVASCRIPT:alert(4)) [vb](vbscript:msgbox(1))
[tab](jav&#x09;ascript:alert(5)) [data](data:text/html,<script>alert(6)</script>)
[rel](./other.md) [abs](/etc/passwd) [frag](#licence) [proto](//evil.example/x)
<javascript:alert(7)> [quote](https://ok.example/"onmouseover="alert(8))
![pixel](https://evil.example/pixel.png) ![local](x.png "t")

| a | b |
|:-:|--:|
| <b onmouseover=alert(9)>x</b> | y |

```html
<script>alert(10)</script>
```
"""
"""Raw HTML (script, event handlers, style), links of every scheme a browser could run or
resolve, external and local images, a table with alignment and markup in a cell."""


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_markdown_is_rendered_and_code_blocks_are_highlighted() -> None:
    body = guide_body(GUIDE)
    assert body.startswith('<div class="guide">')
    assert "<h4>Serve &lt;b&gt;it&lt;/b&gt;</h4>" in body  # ## under the page's h2
    assert "<em>then</em>" in body and "<strong>ask</strong>" in body
    assert "<code>curl</code>" in body
    assert re.search(r"<ol>\s*<li>pull the image</li>\s*<li>run it\s*<ul>\s*<li>on one node",
                     body)
    assert '<div class="scroll"><table>' in body
    assert '<th class="align-left">GPUs</th>' in body and '<td class="align-right">70</td>' \
        in body
    bash = body[body.index("<pre><code>"):body.index("</code></pre>")]
    assert '<span class="hl-nv">HF_TOKEN</span>' in bash  # the variable
    assert re.search(r'<span class="hl-s2">[^<]*a&lt;b&gt;&amp;c', bash)  # the string
    assert '<span class="hl-c1"># a comment' in bash
    assert _text(bash) == GUIDE[GUIDE.index("export"):GUIDE.index("```\n\nSee")]
    assert ('<a href="https://docs.vllm.ai/en/latest/" rel="nofollow noopener noreferrer">'
            "the docs</a>") in body
    assert 'href="https://github.com/vllm-project/vllm"' in body
    unknown = body[body.rindex("<pre>"):]
    assert "hl-" not in unknown and "plain &lt;i&gt;text&lt;/i&gt;" in unknown
    assert "<b>" not in body and "<i>" not in body
    assert "style=" not in body and "<script" not in body


def test_raw_html_links_and_images_of_a_hostile_guide_stay_text() -> None:
    body = guide_body(HOSTILE)
    for tag in ("<script", "<img", "<style", "<iframe", "<b ", "<a href=\"javascript"):
        assert tag not in body.lower(), tag
    assert re.search(r"<\w+[^>]* on\w+=", body) is None  # no event handler attribute
    assert "style=" not in body
    assert "&lt;script&gt;document.title = &quot;pwned&quot;&lt;/script&gt;" in body
    hrefs = re.findall(r'href="([^"]*)"', body)
    assert hrefs == ["https://ok.example/%22onmouseover=%22alert(8)",
                     "https://evil.example/pixel.png"]
    assert body.count("<a ") == 2 and body.count('rel="nofollow noopener noreferrer"') == 2
    assert ">image: pixel</a>" in body and "image: local" in body  # never an <img>
    for shown in ("rel", "abs", "frag", "proto", "js", "vb"):
        assert re.search(rf"[\s>\]\[]{shown}[\s<\]]", body), shown  # the link's text stays


def test_hidden_characters_are_marked_in_prose_and_code() -> None:
    assert "&lt;U+202E&gt;" in highlighted("vllm serve acme/Mini\u202e --x 1\n", "bash")
    body = guide_body("Serve \u202eit\n\n```\nvllm\u200b serve\n```\n")
    assert "\u202e" not in body and "\u200b" not in body
    assert body.count('<mark class="hidden-char"') == 2


@pytest.mark.parametrize("text", [
    "[" * 100_000, "*a" * 50_000, "|a|b|\n|-|-|\n" + "|1|2|\n" * 16_000,
    "[x](https://a.example/) " * 4_000, "&#x" * 33_000, "<" * 100_000,
], ids=["brackets", "emphasis", "table-rows", "links", "entities", "angles"])
def test_large_pathological_guides_render_in_seconds(text: str) -> None:
    start = time.perf_counter()
    body = guide_body(text)
    assert time.perf_counter() - start < 30  # ~1-4 s each on a loaded 2-core machine
    assert "<script" not in body and "<img" not in body


def test_deep_nesting_and_huge_guides_are_shown_whole_as_text() -> None:
    deep = ">" * 1_000 + " deep\n\nthe rest of the guide\n"
    body = guide_body(deep)  # the parser would stop at its nesting bound, dropping the rest
    assert "shown as text" in body and "the rest of the guide" in body
    lists = "".join("  " * i + "- x\n" for i in range(200)) + "\nthe end\n"
    assert "the end" in guide_body(lists) and "shown as text" in guide_body(lists)
    huge = "<script>alert(1)</script> word\n" * (MAX_RENDERED // 20)
    start = time.perf_counter()
    body = guide_body(huge)
    assert time.perf_counter() - start < 10
    assert f"longer than {MAX_RENDERED:,} characters" in body
    assert _text(body).endswith(huge) and "<script" not in body


def test_stylesheet_colours_the_token_classes_and_the_page_uses_them(
        tmp_path: Path) -> None:
    css = highlight_css()
    assert "div.guide pre .hl-k {" in css and "div.guide pre .hl-c1 {" in css
    page = _page(tmp_path, GUIDE)
    text = page.read_text("utf-8")
    assert '<span class="hl-nv">HF_TOKEN</span>' in text
    site_css = (page.parents[len(Path(PATH).parts) + 3] / "assets" / "site.css").read_text()
    assert ".hl-nv {" in site_css and "div.guide .align-right" in site_css


def _page(tmp_path: Path, guide: str) -> Path:
    recipe = MINI.replace("guide: |\n  ## Run <b>it</b>\n  Serve it.\n",
                          "guide: |\n" + "".join(f"  {line}\n" if line else "\n"
                                                 for line in guide.splitlines()))
    return catalogue_page(tmp_path, recipe, PATH, picker=True)


def test_in_chromium_the_guide_shows_rendered_and_nothing_runs_or_loads(
        tmp_path: Path) -> None:
    page_file = _page(tmp_path, GUIDE + "\n" + HOSTILE)
    outside: list[str] = []
    events: list[str] = []

    def guard(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with chromium_context() as context:
        context.route("**/*", guard)
        page = context.new_page()
        def dialog(box: Any) -> None:
            events.append(f"dialog {box.message}")
            box.dismiss()

        page.on("dialog", dialog)
        page.on("pageerror", lambda exc: events.append(str(exc)))
        page.on("console", lambda m: events.append(m.text) if m.type == "error" else None)
        page.goto(page_file.as_uri())
        page.locator("#guide + details > summary").click()
        guide = page.locator("div.guide")
        assert guide.locator("h4", has_text="Serve <b>it</b>").is_visible()
        assert guide.locator("table td.align-right", has_text="70").is_visible()
        assert guide.locator("pre span.hl-nv", has_text="HF_TOKEN").is_visible()
        color = guide.locator("pre span.hl-c1").first.evaluate(
            "e => getComputedStyle(e).color")
        assert color != guide.evaluate("e => getComputedStyle(e).color")  # coloured
        for link in guide.locator("a").all():
            link.hover()
        guide.locator("h3").first.scroll_into_view_if_needed()
        OUTPUT.mkdir(parents=True, exist_ok=True)
        guide.screenshot(path=str(OUTPUT / "guide.png"))
        assert page.title() != "pwned" and page.title() != "img"
        assert guide.locator("img, script, style, iframe").count() == 0
    assert outside == [] and events == []
