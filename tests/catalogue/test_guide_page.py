"""The guide on a record page: its text as the recipe writes it, its fenced code blocks
highlighted at build time with classes the site's stylesheet colours (no inline style or
script, recipe text escaped)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_record_page_picker import MINI, PATH
from validator.evidence.site.guide_page import guide_body, highlight_css, highlighted

GUIDE = """\
## Serve <b>it</b>
Start the server:

```bash
export HF_TOKEN="a<b>&c"  # a comment
vllm serve acme/Mini --max-model-len 4096
```

Then ask it:

```python
import requests
print(requests.get("http://localhost:8000/v1/models").json())
```

```unknown-lang
plain <i>text</i>
```
```
no language
"""
"""Prose with markup, a bash block, a python block, a language Pygments does not know
and an unterminated fence without a language."""


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_code_blocks_are_highlighted_and_the_text_is_the_guides() -> None:
    body = guide_body(GUIDE)
    assert _text(body) == GUIDE  # character for character, fences and prose included
    bash = body[body.index("```bash"):body.index("```python")]
    assert '<span class="hl-nv">HF_TOKEN</span>' in bash  # the variable
    assert re.search(r'<span class="hl-s2">[^<]*a&lt;b&gt;&amp;c', bash)  # the string
    assert '<span class="hl-c1"># a comment' in bash
    python = body[body.index("```python"):body.index("```unknown")]
    assert '<span class="hl-kn">import</span>' in python
    unknown = body[body.index("```unknown"):]
    assert "hl-" not in unknown and "plain &lt;i&gt;text&lt;/i&gt;" in unknown
    assert "<b>" not in body and "<i>" not in body
    assert "style=" not in body and "<script" not in body


def test_hidden_characters_in_code_are_marked_as_elsewhere() -> None:
    code = highlighted("vllm serve acme/Mini\u202e --max-model-len 1\n", "bash")
    assert "\u202e" not in code and "&lt;U+202E&gt;" in code


def test_stylesheet_colours_the_token_classes_and_the_page_uses_them(
        tmp_path: Path) -> None:
    css = highlight_css()
    assert "pre.guide .code .hl-k {" in css and "pre.guide .code .hl-c1 {" in css
    recipe = MINI.replace("guide: |\n  ## Run <b>it</b>\n  Serve it.\n",
                          "guide: |\n" + "".join(f"  {line}\n" if line else "\n"
                                                 for line in GUIDE.splitlines()))
    page = catalogue_page(tmp_path, recipe, PATH, picker=True)
    text = page.read_text("utf-8")
    assert '<span class="hl-nv">HF_TOKEN</span>' in text
    site_css = (page.parents[len(Path(PATH).parts) + 3] / "assets" / "site.css").read_text()
    assert ".hl-nv {" in site_css
