"""The record page keeps the picked configuration in the URL as readable parameters
(``#hardware=…&variant=…&strategy=…&features=…``), not an opaque hash, and such a URL
written by hand (pasted, parameters in any order, some left out) opens that
configuration. In Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_index_vllm_filter import context  # noqa: F401
from tests.catalogue.test_record_page_picker import MINI, PATH

pytestmark = pytest.mark.xdist_group("chromium-index-vllm")


def test_the_pick_is_in_readable_parameters_that_work_when_pasted(
        tmp_path: Path, context: Any) -> None:  # noqa: F811
    page_file = catalogue_page(tmp_path, MINI, PATH, picker=True)
    page = context.new_page()
    page.goto(page_file.as_uri())
    variants = page.locator("#p-variant option").evaluate_all("os => os.map(o => o.value)")
    other = next(v for v in variants if v != page.locator("#p-variant").input_value())
    page.select_option("#p-variant", other)
    title = page.locator("#chosen-title").inner_text()
    fragment = str(page.evaluate("location.hash"))
    assert "config=" not in fragment
    assert f"variant={other}" in fragment and "hardware=" in fragment
    assert "strategy=" in fragment and "&features=" in fragment
    pairs = fragment[1:].split("&")
    pasted = page_file.as_uri() + "#" + "&".join(reversed(pairs))
    fresh = context.new_page()
    fresh.goto(pasted)
    assert fresh.locator("#chosen-title").inner_text() == title
    assert fresh.locator("#p-variant").input_value() == other
    fresh.close()
    only_variant = context.new_page()
    only_variant.goto(page_file.as_uri() + f"#variant={other}")
    assert only_variant.locator("#p-variant").input_value() == other
    only_variant.close()
    page.close()
