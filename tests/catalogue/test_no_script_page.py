"""A record page read without JavaScript (script off, opened from ``file://``) still
offers the JSON of the configuration it shows: a plain link to that configuration's
``render --format json`` document, written beside the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_catalogue_browser import chromium_context
from tests.catalogue.test_record_page_picker import MINI, PATH
from tests.cli_in_process import run_cli
from tests.static_server import serve_folder

pytestmark = pytest.mark.xdist_group("chromium-no-script")


def _site(tmp_path: Path) -> tuple[Path, Path]:
    """The record page of the mini recipe (picker built) and its repository."""
    return catalogue_page(tmp_path, MINI, PATH, picker=True), tmp_path / "repo"


def _render_json(repo: Path) -> bytes:
    """What ``render --format json`` prints for the recipe's landing configuration (the
    CLI, in this process)."""
    done = run_cli("render", "--format", "json", PATH, cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout.encode("utf-8", "surrogateescape")


@pytest.fixture(scope="module")
def no_script_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium context with JavaScript off (a reader who disabled it)."""
    with chromium_context(java_script_enabled=False, accept_downloads=True) as context:
        yield context


def test_the_page_links_the_landing_configuration_s_json_written_beside_it(
        tmp_path: Path) -> None:
    page, repo = _site(tmp_path)
    text = page.read_text("utf-8")
    landing = page.with_name("Mini.yaml.landing.json")
    assert f'<a class="config-json" href="{landing.name}" download="Mini.' in text
    assert 'class="config-json" href="#chosen-json" hidden' not in text
    assert landing.read_bytes() == _render_json(repo)


def test_without_javascript_the_link_gives_the_json_render_prints(
        tmp_path: Path, no_script_context: Any) -> None:
    """From ``file://`` the link opens the document (Chromium downloads no file: URL);
    served over HTTP it downloads it, byte for byte what ``render`` prints."""
    page_file, repo = _site(tmp_path)
    want = _render_json(repo)
    page = no_script_context.new_page()
    page.goto(page_file.as_uri())
    link = page.locator("a.config-json")
    assert link.is_visible() and link.inner_text() == "Download this configuration as JSON"
    assert page.locator("button.copy").count() == page.locator("button.copy[hidden]").count()
    link.click()
    page.wait_for_url("**/Mini.yaml.landing.json")
    assert page.locator("pre").inner_text().strip() == want.decode("utf-8").strip()

    site = page_file.parents[len(Path(PATH).parts) + 3]  # records/<owner>/<name>/<commit>/
    with serve_folder(site) as base:
        page.goto(base + page_file.relative_to(site).as_posix())
        with page.expect_download() as info:
            page.locator("a.config-json").click()
        assert Path(info.value.path()).read_bytes() == want
        name = info.value.suggested_filename
        assert name.startswith("Mini.") and name.endswith(".json") and "landing" not in name
    page.close()
