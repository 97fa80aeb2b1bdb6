"""Bidi controls and invisible characters in recipe text are shown, not obeyed, in the
catalogue (issue 30, item 16): in Chromium, the page's text holds a ``<U+202E>`` mark
where the recipe has U+202E (was: the raw control, so ``safe<RLO>txt.exe`` showed as
``safeexe.txt``), the title bar and the copy text too; the page and its index entry flag
them; a ZWNJ that spells a Persian word stays as it is. And every link of the pages is a
file of the site or an ``https://github.com/`` URL."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.test_catalogue_browser import browser_context  # noqa: F401 (fixture)
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.cli import main
from validator.load.hidden import HIDDEN
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

PATH = "models/acme/Trojan.yaml"
PERSIAN = "\u0645\u06cc\u200c\u0634\u0648\u062f"  # a ZWNJ the word needs: not hidden
RECIPE = f"""\
meta:
  title: "safe\\u202etxt.exe"
  description: "Fast\\u200b chat, {PERSIAN}"
  hardware:
    big8: verified
model:
  model_id: "acme/Trojan-8B"
  min_vllm_version: "0.20.0"
  base_args: ["--served-model-name", "chat\\u2066x\\u2069", "--max-model-len", "4096"]
  base_env:
    VLLM_LOGGING_LEVEL: "INFO\\u200f"
variants:
  default:
    precision: bf16
    vram_minimum_gb: 60
compatible_strategies: [single_node_tp]
guide: |
  ## Run

  We saw 70 tok/s on 8x H200.
"""


@pytest.fixture()
def site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    tree = make_repo(tmp_path / "repo", {PATH: RECIPE, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    snapshot_spec(SnapshotStore(tmp_path / "store"), tree, tree.repository, [PATH])
    code = main(["publish", "--lock", str(tmp_path / "store" / LOCK_NAME), "--out",
                 str(tmp_path / "out"), "--checked-on", "2026-12-01", "--attestation",
                 "--site", str(tmp_path / "site")])
    assert code == 0, capsys.readouterr().err
    return tmp_path / "site"


def _hidden(text: str) -> list[str]:
    return [f"U+{ord(m[0]):04X}" for m in HIDDEN.finditer(text) if m[0] != "\u200c"]


def test_hidden_characters_show_as_marks_in_chromium(
        site: Path, browser_context: Any) -> None:  # noqa: F811 (fixture)
    page = browser_context.new_page()
    page.goto((site / "index.html").as_uri())
    item = page.locator("ul.records li")
    assert item.locator("a.record").inner_text() == "safe<U+202E>txt.exe"
    assert re.search(r"\b[1-9]\d* hidden character\(s\)", item.inner_text())
    assert _hidden(page.evaluate("document.body.innerText")) == []
    item.locator("a.record").click()
    page.wait_for_load_state()

    text = page.evaluate("document.body.innerText")
    assert _hidden(text) == [], "a raw bidi control or invisible character is on the page"
    assert page.locator("h1").inner_text().startswith("safe<U+202E>txt.exe: ")
    assert page.title().startswith("safe<U+202E>txt.exe: ")
    assert "Fast<U+200B> chat, " + PERSIAN in text  # the Persian ZWNJ stays as it is
    marks = page.locator("mark.hidden-char")
    assert marks.count() >= 4
    assert marks.first.get_attribute("title") == "U+202E RIGHT-TO-LEFT OVERRIDE"
    notice = page.locator("p.notice")
    assert notice.count() == 1 and "hidden character(s)" in notice.inner_text()
    # what the copy button copies (the code block's text) holds the marks, no control
    blocks = page.eval_on_selector_all("pre code", "els => els.map(e => e.textContent)")
    served = [b for b in blocks if "--served-model-name" in b]
    assert served and all("chat<U+2066>x<U+2069>" in b for b in served)
    envs = [b for b in blocks if "VLLM_LOGGING_LEVEL" in b]
    # an env value with an invisible character is exported in bash's $'...' form, its
    # character escaped (pasted, it sets the recipe's value); elsewhere it is a mark
    assert envs and all("INFO<U+200F>" in b or "$'INFO\\u200f'" in b for b in envs)
    assert not any(_hidden(b) for b in blocks)

    # every link: a file of this site or https://github.com/
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    assert hrefs
    for href in hrefs:
        assert href.startswith((site.as_uri() + "/", "https://github.com/")), href


def test_hidden_characters_are_marks_in_every_page_file(site: Path) -> None:
    """The HTML itself (without a browser) holds no hidden character but the Persian
    word's joiner: marks in text, ``<U+...>`` text in attributes and the title."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 2
    for page in pages:
        html = page.read_text("utf-8")
        assert _hidden(html) == [], page
        assert "safe<mark class=\"hidden-char\" title=\"U+202E RIGHT-TO-LEFT OVERRIDE\">" \
            "&lt;U+202E&gt;</mark>txt.exe" in html
    record = next(p for p in pages if p.name != "index.html").read_text("utf-8")
    assert "<title>safe&lt;U+202E&gt;txt.exe: " in record
    assert PERSIAN in record
    index = (site / "index.html").read_text("utf-8")
    assert 'data-search="safe&lt;U+202E&gt;txt.exe' in index
