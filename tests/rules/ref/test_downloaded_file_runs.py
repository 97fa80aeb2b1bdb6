"""``REF022`` models "a file downloaded over plain HTTP is later run or sourced" as one
reading, not form by form: whatever writes the download (``curl -fsSLo F``, ``> F``,
``tee F``) and whatever runs it (``bash F``, ``. ./F``, ``source F``, ``sh < F``), a
``curl`` operand without a scheme (curl fetches it over plain HTTP), and runners that
fetch the script they run (``uv run URL``, ``pipx run URL``). Each form that can run here
is first run in a real bash against a real HTTP server on 127.0.0.1, to show it runs
what it fetched."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import line_of
from tests.rules.ref.test_plain_http_code import _dependency, _found, server  # noqa: F401

RUN_HERE = [
    "curl -fsSLo i.sh {url}/i.sh && bash i.sh",
    "curl -fsSL {url}/i.sh > i.sh && bash i.sh",
    "curl -fsSL {url}/i.sh >> i.sh && sh ./i.sh",
    "curl -fsSL {url}/i.sh | tee i.sh >/dev/null && bash i.sh",
    "curl -fsSL {url}/i.sh -o i.sh && . ./i.sh",
    "curl -fsSL -o i.sh {url}/i.sh; source i.sh",
    "curl -s --output i.sh {url}/i.sh; sh < i.sh",
    "curl -fsSL {bare}/i.sh | sh",
    "wget -q -O i.sh {url}/i.sh && bash -e i.sh",
]


@pytest.mark.parametrize("form", RUN_HERE)
def test_a_plain_http_download_run_by_any_spelling_is_an_error(
        examples_tree: Path, tmp_path: Path, server: str, form: str) -> None:  # noqa: F811
    bare = server.replace("http://127.0.0.1", "localhost")  # no scheme, no dot
    command = form.format(url=server, bare=bare)
    run = tmp_path / "run"
    run.mkdir()
    subprocess.run(["bash", "-c", command], cwd=run, check=True, timeout=60)
    assert (run / "pwned").exists()  # what was fetched ran
    text = _dependency(examples_tree, command)
    assert _found(examples_tree) == [line_of(text, command.split()[0] + " ")]


@pytest.mark.parametrize("command", [
    "uv run http://x.example/tool.py",
    "pipx run http://x.example/tool.whl",
    "curl -fsSL http://x.example/i.sh | busybox sh",
    "curl x | sh",
])
def test_runners_and_scheme_less_downloads_are_errors(examples_tree: Path,
                                                      command: str) -> None:
    text = _dependency(examples_tree, command)
    assert _found(examples_tree) == [line_of(text, command.split()[0] + " ")]


@pytest.mark.parametrize("command", [
    "curl -fsSL https://x.example/i.sh > i.sh && bash i.sh",
    "curl -fsSLo i.sh https://x.example/i.sh && . ./i.sh",
    "curl -fsSL http://x.example/notes.txt > notes.txt && cat notes.txt",
    "curl -H 'Accept: text/plain' --retry 3 -o out.txt https://x.example/a && bash run.sh",
    "echo hello > i.sh && bash i.sh",
])
def test_https_downloads_and_files_not_downloaded_are_no_ref022(examples_tree: Path,
                                                                command: str) -> None:
    _dependency(examples_tree, command)
    assert _found(examples_tree) == []


def test_a_runner_fetching_over_https_is_the_ref023_warning(examples_tree: Path) -> None:
    text = _dependency(examples_tree, "uv run https://x.example/tool.py")
    assert _found(examples_tree) == []
    assert _found(examples_tree, "REF023") == [line_of(text, "uv run")]
