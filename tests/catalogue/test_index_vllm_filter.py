"""The index's "I run vLLM" filter offers every vendored vLLM release, not only the
minimums the records name: in Chromium, a reader on a release no record names as its
minimum can pick it, and the records that need a newer vLLM are hidden."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_catalogue_browser import chromium_context
from tests.catalogue.test_record_page_picker import MINI, PATH
from validator.releases import load_vendored

pytestmark = pytest.mark.xdist_group("chromium-index-vllm")


@pytest.fixture(scope="module")
def context() -> Iterator[Any]:
    with chromium_context() as ctx:
        yield ctx


def test_every_vendored_release_can_be_picked_and_filters(tmp_path: Path,
                                                          context: Any) -> None:
    catalogue_page(tmp_path, MINI, PATH, picker=False)
    index = tmp_path / "site" / "index.html"
    finals = [str(r.version) for r in load_vendored().releases
              if not r.version.is_prerelease and not r.version.is_devrelease]
    page = context.new_page()
    page.goto(index.as_uri())
    offered = page.locator("#f-vllm option").evaluate_all("os => os.map(o => o.value)")
    assert set(finals) <= set(offered)
    minimum = page.locator("ul.records li").first.get_attribute("data-minv")
    older = [v for v in finals if v not in (minimum,)
             and tuple(map(int, v.split(".")[:3])) < tuple(map(int, minimum.split(".")[:3]))]
    page.select_option("#f-vllm", older[-1])
    assert page.locator("ul.records li:not([hidden])").count() == 0
    page.select_option("#f-vllm", finals[-1])
    assert page.locator("ul.records li:not([hidden])").count() == 1
    page.close()
