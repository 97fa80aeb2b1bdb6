""""What was not verified" says what the page shows: a page with the configuration picker
renders every configuration the site offers, so it no longer says its commands are "for
the default configuration of each hardware profile" (the record's own JSON, and a page
built from the record alone, still say so). Read in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_index_vllm_filter import context  # noqa: F401
from tests.catalogue.test_record_page_picker import MINI, PATH

pytestmark = pytest.mark.xdist_group("chromium-index-vllm")
DEFAULTS = "for the default configuration of each hardware profile; none was run"


def _not_verified(page_file: Path, ctx: Any) -> str:
    page = ctx.new_page()
    page.goto(page_file.as_uri())
    text = str(page.locator("#not-verified + ul").inner_text())
    offered = page.locator("#configurations").count()
    page.close()
    assert offered in (0, 1)
    return text


def test_a_page_offering_every_configuration_says_so(tmp_path: Path,
                                                     context: Any) -> None:  # noqa: F811
    text = _not_verified(catalogue_page(tmp_path, MINI, PATH, picker=True), context)
    assert DEFAULTS not in text
    assert "for every configuration the page offers" in text


def test_a_page_of_the_record_alone_keeps_the_default_configuration_sentence(
        tmp_path: Path, context: Any) -> None:  # noqa: F811
    text = _not_verified(catalogue_page(tmp_path, MINI, PATH, picker=False), context)
    assert DEFAULTS in text
