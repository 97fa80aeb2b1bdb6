"""A record page offers no one-click Copy of a command that holds shell code: the block
shows a ``# warning:`` line per hazard above the command instead (``REF018``); the
environment block prints each value as the site's quoting would, so a value is not code
there; a clean command keeps its Copy button."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_catalogue_browser import browser_context  # noqa: F401 - fixture
from tests.catalogue.test_site_build import RECIPE as HOSTILE_RECIPE

RECIPE = HOSTILE_RECIPE.replace(
    HOSTILE_RECIPE[HOSTILE_RECIPE.index("  model_id:"):HOSTILE_RECIPE.index("  min_vllm")],
    '  model_id: "acme/Shell"\n').replace(
    '  base_args: ["--max-model-len", "4096"]\n',
    '  base_args: ["--max-model-len", "4096"]\n'
    '  base_env:\n    VLLM_LOGGING_LEVEL: "$(touch pwned)"\n')
"""The catalogue test's recipe with a plain model id and an env value that is shell code."""


def _site(tmp_path: Path) -> Path:
    """The catalogue page of the recipe (from its record alone)."""
    return catalogue_page(tmp_path, RECIPE, "models/acme/Shell.yaml", picker=False)


def _page(tmp_path: Path) -> str:
    return _site(tmp_path).read_text("utf-8")


def _blocks(page: str) -> dict[str, str]:
    """Label -> the HTML of its command block."""
    return {m.group(1): m.group(0) for m in re.finditer(
        r'<div class="cmd[^"]*"><p><strong>([^<]*)</strong>.*?</div>', page, re.DOTALL)}


def _code(block: str) -> str:
    found = re.search(r"<code[^>]*>(.*?)</code>", block, re.DOTALL)
    assert found is not None, block
    return html.unescape(found.group(1))


def test_a_command_with_shell_code_has_a_warning_and_no_copy_button(tmp_path: Path) -> None:
    blocks = _blocks(_page(tmp_path))
    docker = blocks["serve: docker run"]
    assert 'class="copy"' not in docker
    code = _code(docker)
    first = code.splitlines()[0]
    assert first.startswith("# warning: REF018") and "bash runs `touch pwned`" in first
    assert 'class="copy"' in blocks["serve: vllm serve"]  # nothing to warn of there
    env = blocks["environment"]
    assert 'class="copy"' in env
    export = _code(env)
    assert export == "export VLLM_LOGGING_LEVEL='$(touch pwned)'"
    run = tmp_path / "run"
    run.mkdir()
    subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", export], cwd=run,
                   check=True)
    assert not (run / "pwned").exists()  # the copyable block runs no code


def test_in_chromium_the_shell_code_command_has_no_copy_button(
        tmp_path: Path, browser_context: Any) -> None:  # noqa: F811 - the fixture
    page = browser_context.new_page()
    page.goto(_site(tmp_path).as_uri())
    block = page.locator("details[open] div.cmd", has_text="serve: docker run")
    assert block.count() == 1
    assert block.locator("button").count() == 0
    assert block.locator("pre").inner_text().startswith(
        "# warning: REF018: bash would not run this command as shown: command substitution")
    clean = page.locator("details[open] div.cmd", has_text="serve: vllm serve").locator(
        "button.copy")
    assert clean.count() == 1 and clean.is_visible()  # the page's script shows the others
    page.close()
