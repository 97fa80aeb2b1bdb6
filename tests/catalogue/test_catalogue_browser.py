"""The catalogue in a real browser: Debian's chromium driven by Playwright.

A publish of real corpus records with ``--site`` (the CLI, as a publisher runs it) is
opened from ``file://``: search for a model, follow its record link, check that every
evidence link on the page points at the pinned commit and at lines that exist in that
commit's file, copy a command, use the filters, and check that no request left the
machine. Screenshots of the index and a record page (desktop and phone widths) are saved
under ``test-output/catalogue/`` (git-ignored) for CI to keep.

Without chromium the test is skipped on a developer machine and fails when ``CI`` is set
(``.ci/install-browser`` installs it there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_cli
from tests.evidence.conftest import REPO
from validator.evidence.cite import parse_anchor
from validator.source.git import GitTree
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

pytestmark = [pytest.mark.corpus, pytest.mark.xdist_group("catalogue-corpus")]
"""One xdist worker runs this module (``--dist loadgroup``): the module-scoped catalogue
of six corpus recipes (``publish --site``) and Chromium are made once, not once per
worker that gets one of its tests."""

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-quic", "--disable-sync"]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "catalogue"
RECIPES = ("models/zai-org/GLM-5.2.yaml", "models/zai-org/GLM-5.1.yaml",
           "models/deepseek-ai/DeepSeek-V4-Flash.yaml", "models/Qwen/Qwen3.6-27B.yaml",
           "models/mindlab-research/Macaron-V1-Coding-Venti.yaml",
           "models/moonshotai/Kimi-K3.yaml")


def _browser_missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser test (see .ci/install-browser)",
                    pytrace=False)
    pytest.skip(reason)


@contextmanager
def chromium_context(**options: Any) -> Iterator[Any]:
    """A Playwright context of a headless Chromium (:data:`CHROMIUM` with :data:`FLAGS`,
    1280x900 unless ``options`` say otherwise; ``options`` go to ``new_context``), closed
    with its browser; a missing Chromium or Playwright skips, or fails under CI."""
    if not Path(CHROMIUM).is_file():
        _browser_missing(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _browser_missing("the playwright Python package is not installed")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = browser.new_context(**{"viewport": {"width": 1280, "height": 900},
                                         **options})
        yield context
        context.close()
        browser.close()


@pytest.fixture(scope="module")
def catalogue(corpus_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import git

    repo = git.Repo(corpus_repo)
    head = repo.head.commit.hexsha
    tree = GitTree(REPO, head, None, repo, str(corpus_repo))
    root = tmp_path_factory.mktemp("catalogue")
    snapshot_spec(SnapshotStore(root / "store"), tree, REPO, list(RECIPES))
    out, site = root / "published", root / "site"
    done = run_cli("publish", "--lock", str(root / "store" / LOCK_NAME), "--out", str(out),
                   "--checked-on", "2026-12-01", "--attestation", "--site", str(site))
    assert done.returncode == 0, done.stderr
    assert f"catalogue: {len(RECIPES)} record page(s)" in done.stdout
    return {"site": site, "out": out, "commit": head, "repo": corpus_repo}


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        _browser_missing(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _browser_missing("the playwright Python package is not installed")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900})
        yield context
        context.close()


def _lines(repo: Path, commit: str) -> Callable[[str], int]:
    cache: dict[str, int] = {}

    def count(path: str) -> int:
        if path not in cache:
            text = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo, check=True,
                                  capture_output=True).stdout.decode("utf-8")
            cache[path] = len(text.splitlines())
        return cache[path]

    return count


def test_the_largest_record_page_and_its_configurations_file_stay_light(
        catalogue: dict[str, Any]) -> None:
    """GLM-5.2 (1,595 configurations): 407,436 bytes of HTML and a 3,172,153-byte
    ``configs.js`` when every block and command was stored whole; 295,483 and 957,233
    once blocks are edits of another, commands shared lines and chunks, objects shapes and
    edits of another -- with the cu129 build of its 1,102 NVIDIA configurations added."""
    (page,) = catalogue["site"].rglob("GLM-5.2.yaml.html")
    configs = page.with_name("GLM-5.2.yaml.configs.js")
    assert page.stat().st_size < 320_000
    assert configs.stat().st_size < 1_100_000


def test_catalogue_in_chromium(catalogue: dict[str, Any], browser_context: Any) -> None:
    site: Path = catalogue["site"]
    commit: str = catalogue["commit"]
    outside: list[str] = []

    def guard(route: Any) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    browser_context.route("**/*", guard)
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto((site / "index.html").as_uri())
    items = page.locator("ul.records li")
    assert items.count() == len(RECIPES)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "index.png"), full_page=True)

    # search by model: only GLM-5.2 stays
    page.fill("#f-q", "glm-5.2")
    visible = page.locator("ul.records li:not([hidden])")
    assert visible.count() == 1
    assert page.locator("#shown").inner_text() == f"1 of {len(RECIPES)} records shown"
    link = visible.locator("a.record")
    assert link.inner_text() == "GLM-5.2"
    link.click()
    page.wait_for_load_state()
    assert page.url.endswith("/models/zai-org/GLM-5.2.yaml.html")
    assert page.locator("h1").inner_text().startswith("GLM-5.2")

    # every evidence link: the pinned commit, a path of it, lines that exist
    count = _lines(catalogue["repo"], commit)
    hrefs = page.eval_on_selector_all("a.evidence", "els => els.map(e => e.href)")
    assert len(hrefs) > 150
    for href in hrefs:
        repo, at, path, first, last = parse_anchor(href)
        assert (repo, at) == (REPO, commit), href
        assert re.search(r"#L\d+(-L\d+)?$", href), href
        assert 1 <= first <= last <= count(path), href
    assert {parse_anchor(h)[2] for h in hrefs} == {"models/zai-org/GLM-5.2.yaml",
                                                   "taxonomy.yaml"}
    # provenance links open local files of the site (record, statement, schema)
    for name in ("record JSON", "statement (unsigned)", "schema"):
        target = page.get_by_role("link", name=name).get_attribute("href")
        assert target and not target.startswith(("http:", "https:", "//"))
    statement = site / page.url.split(site.as_uri() + "/", 1)[1].replace(".html",
                                                                          ".intoto.json")
    assert json.loads(statement.read_text())["subject"][0]["name"] == \
        "models/zai-org/GLM-5.2.yaml"

    # commands: the page's landing configuration is shown, its copy button works from
    # the keyboard
    assert page.locator("#chosen-title").inner_text().startswith("h200 · default ·")
    button = page.locator("#chosen-blocks button.copy").first
    button.focus()
    page.keyboard.press("Enter")
    # the label changes when the clipboard's promise settles, not within the key press:
    # poll (Playwright's expect) rather than read it once, and before it reverts (1.5 s)
    from playwright.sync_api import expect
    expect(button).to_have_text("Copied", timeout=1400)
    assert "vllm serve zai-org/GLM-5.2-FP8" in page.locator("#chosen-blocks").inner_text()
    assert page.get_by_text("disagree (finding HW020)").count() == 1
    page.screenshot(path=str(OUTPUT / "record.png"), full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(OUTPUT / "record-phone.png"), full_page=False)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the page scrolls sideways on a phone ({width}px)"
    # no rule id or severity is broken over two lines in a narrow column
    broken = page.eval_on_selector_all(
        "span.nowrap", "els => els.filter(e => e.getClientRects().length > 1 || "
        "e.offsetHeight > 1.6 * parseFloat(getComputedStyle(e).lineHeight)).length")
    assert broken == 0
    page.set_viewport_size({"width": 1280, "height": 900})

    # filters on the index
    page.goto((site / "index.html").as_uri())
    page.select_option("#f-brand", "amd")
    shown = page.locator("ul.records li:not([hidden])")
    n_amd = shown.count()
    assert 0 < n_amd < len(RECIPES)
    for i in range(n_amd):
        assert "amd" in (shown.nth(i).get_attribute("data-brands") or "").split()
    page.select_option("#f-brand", "")
    page.select_option("#f-precision", "nvfp4")
    n_nvfp4 = shown.count()
    assert 0 < n_nvfp4 <= len(RECIPES)
    for i in range(n_nvfp4):
        assert "nvfp4" in (shown.nth(i).get_attribute("data-precisions") or "").split()
    page.select_option("#f-precision", "")
    versions = page.eval_on_selector_all("#f-vllm option", "o => o.map(x => x.value)")[1:]
    minimums = set(page.eval_on_selector_all("ul.records li", "o => o.map(x => x.dataset.minv)"))
    page.select_option("#f-vllm", next(v for v in versions if v in minimums))
    assert 0 < shown.count() < len(RECIPES)
    page.screenshot(path=str(OUTPUT / "index-filtered.png"), full_page=True)


    assert outside == [], f"requests left the machine: {outside}"
    assert errors == [], errors


def test_index_filters_are_kept_in_the_url(catalogue: dict[str, Any],
                                           browser_context: Any) -> None:
    """A shared link restores the filters, back undoes a pick."""
    page = browser_context.new_page()
    page.goto((catalogue["site"] / "index.html").as_uri())
    shown = page.locator("ul.records li:not([hidden])")
    page.select_option("#f-brand", "amd")
    n_amd = shown.count()
    assert 0 < n_amd < len(RECIPES)
    from playwright.sync_api import expect
    expect(page).to_have_url(re.compile(r"index\.html\?brand=amd$"))
    page.fill("#f-q", "glm")
    expect(page).to_have_url(re.compile(r"index\.html\?q=glm&brand=amd$"))
    shared = browser_context.new_page()
    shared.goto(page.evaluate("location.href"))
    assert shared.locator("#f-brand").input_value() == "amd"
    assert shared.locator("#f-q").input_value() == "glm"
    assert shared.locator("ul.records li:not([hidden])").count() == shown.count()
    shared.close()
    page.go_back()
    assert page.locator("#f-brand").input_value() == ""
    assert page.locator("#f-q").input_value() == ""
    assert shown.count() == len(RECIPES)
    page.close()


def _render_json(repo: Path, *options: str) -> bytes:
    """What ``render --format json`` prints for one configuration of GLM-5.2 (the CLI, in
    this process)."""
    done = run_cli("render", "--format", "json", *options, "models/zai-org/GLM-5.2.yaml",
                   cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout.encode("utf-8", "surrogateescape")


def _picked_options(page: Any) -> list[str]:
    """The ``render`` options of the configuration picked on the page; its features in
    the order of its title (the configuration's order, which its JSON keeps)."""
    labels = page.locator("#chosen-title").inner_text().split(" · features: ")[1]
    features = [] if labels == "none" else [re.sub(r" \(.*\)$", "", label)
                                             for label in labels.split(", ")]
    assert sorted(features) == sorted(page.eval_on_selector_all(
        "input[name=feature]:checked", "els => els.map(e => e.value)"))
    return ["--hardware", page.locator("#p-hardware").input_value(),
            "--variant", page.locator("#p-variant").input_value(),
            "--strategy", page.locator("#p-strategy").input_value(),
            "--features", ",".join(features)]


def _downloaded_json(page: Any) -> bytes:
    """The bytes of the picked configuration's JSON, as the page's link downloads them."""
    with page.expect_download() as info:
        page.locator("a.config-json").click()
    return Path(info.value.path()).read_bytes()


def _blocks(page: Any) -> dict[str, str]:
    """Title -> text of each block of the chosen configuration."""
    out = {}
    for block in page.locator("#chosen-blocks div.cmd").all():
        out[block.locator("strong").first.inner_text()] = block.locator("code").inner_text()
    return out


def test_record_page_shows_the_configuration_picked_as_render_renders_it(
        catalogue: dict[str, Any], browser_context: Any) -> None:
    site: Path = catalogue["site"]
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(next(site.rglob("GLM-5.2.yaml.html")).as_uri())
    # the landing configuration's JSON: the first click loads the table, then downloads
    assert _downloaded_json(page) == _render_json(catalogue["repo"], *_picked_options(page))
    done = run_cli("render", "--all", "--format", "json", "models/zai-org/GLM-5.2.yaml",
                   cwd=catalogue["repo"])
    assert done.returncode == 0, done.stderr
    every = json.loads(done.stdout)
    assert f"{len(every)} configurations" in page.locator("#configurations + p").inner_text()
    assert len(every) > 100  # every configuration the site offers, not one per hardware

    page.select_option("#p-hardware", "b300")
    page.select_option("#p-variant", "nvfp4")
    page.select_option("#p-strategy", "multi_node_tp")
    page.check("input[name=feature][value=spec_decoding]")
    assert page.locator("#chosen-title").inner_text() == (
        "b300 · nvfp4 · multi_node_tp · 2 nodes · features: tool_calling, reasoning, "
        "spec_decoding (mode mtp)")
    want_bytes = _render_json(catalogue["repo"], "--hardware", "b300", "--variant", "nvfp4",
                              "--strategy", "multi_node_tp",
                              "--features", "tool_calling,reasoning,spec_decoding")
    (want,) = json.loads(want_bytes)
    blocks = _blocks(page)
    for proc in want["processes"]:
        assert blocks[f"{proc['role']}: vllm serve"].endswith(proc["command"])
        assert blocks[f"{proc['role']}: docker"] == proc["docker_command"]
    assert blocks["install (pip)"] == want["install"]["pip"]["command"]
    assert blocks["install (docker)"] == f"docker pull {want['docker_image']}"
    assert "vLLM ≥ 0.23.0" in page.locator("#chosen-install").inner_text()
    # its JSON, made in the page from a Blob: byte for byte what render prints
    assert (page.locator("a.config-json").get_attribute("href") or "").startswith("blob:")
    assert _downloaded_json(page) == want_bytes
    # the verdict: the nvfp4 planning-minimum info applies, the AMD image warning not
    verdict = page.locator("#verdict").inner_text()
    assert "HW009" in verdict and "VER003" not in verdict
    picked_url = page.evaluate("location.href")
    assert "#hardware=b300&variant=nvfp4&strategy=multi_node_tp&" in picked_url

    # AMD hardware: the site offers no nvfp4 there; the variant moves, the AMD image's
    # warning applies to the command now
    page.select_option("#p-hardware", "mi355x")
    assert page.locator("#p-variant").input_value() != "nvfp4"
    assert "does not offer that combination" in page.locator("#picker-note").inner_text()
    assert "VER003" in page.locator("#verdict").inner_text()
    assert "image tag 'nightly-" in page.locator("#verdict").inner_text()
    assert _downloaded_json(page) == _render_json(catalogue["repo"], *_picked_options(page))

    # the choice is in the URL: back restores the b300 pick, a shared link opens it
    page.go_back()
    assert page.locator("#p-hardware").input_value() == "b300"
    fresh = browser_context.new_page()
    fresh.goto(picked_url)
    assert fresh.locator("#chosen-title").inner_text().startswith("b300 · nvfp4 ·")
    assert fresh.locator("input[name=feature][value=spec_decoding]").is_checked()
    assert errors == [], errors


def test_missing_browser_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser test"):
        _browser_missing("no chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        _browser_missing("no chromium")


def test_chromium_is_installed_where_ci_runs() -> None:
    """The install step CI runs exists and installs Debian's package only when missing."""
    script = Path(__file__).resolve().parents[2] / ".ci" / "install-browser"
    text = script.read_text("utf-8")
    assert "command -v chromium" in text and "apt-get install -y" in text
    assert "bash .ci/install-browser" in (script.parent / "run").read_text("utf-8")
    assert shutil.which("bash")
