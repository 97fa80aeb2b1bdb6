"""``REF042``: a requirement with ``>``/``<`` written unquoted in a command the page shows
(a dependency's command, a guide's shell block, a kv-store's install line) is read by bash
as a redirection: the pin is dropped (trial 13 #7). A real bash runs the flagged command
against a stub ``pip`` that records its arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from tests.context_files import KV_STORE, kv_store_text
from tests.rules.ref.test_ref_shell_code import bash
from validator.analysis.unquoted_specifiers import unquoted_specifiers
from validator.cli import main

CHAT = "models/example-org/Example-Chat-8B.yaml"


def _dependency(root: Path, command: str) -> str:
    return replace_once(root / CHAT, "\nvariants:",
                        f"\ndependencies:\n  - command: {command!r}\nvariants:")


def _found(root: Path) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.severity.value, f.line, f.message.split("`")[1])
            for f in check_tree(root, CHAT) if f.rule == "REF042"]


def test_bash_drops_an_unquoted_pin_into_a_file(tmp_path: Path) -> None:
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "pip").write_text("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n")
    (stubs / "pip").chmod(0o755)
    assert bash("pip install -U transformers>=5.8.0", tmp_path).stdout == ""
    assert (tmp_path / "=5.8.0").read_text() == "[install][-U][transformers]"


@pytest.mark.parametrize(("command", "requirement"), [
    ("uv pip install -U transformers>=5.8.0", "transformers>=5.8.0"),
    ("pip install 'vllm>=0.10' flashinfer-python<0.3", "flashinfer-python<0.3"),
    ("pip install vllm[audio]>=0.10.0 && vllm --version", "vllm[audio]>=0.10.0"),
    ("python -m pip install transformers >= 4.56", "transformers >="),
])
def test_an_unquoted_version_specifier_in_a_dependency_command_is_an_error(
        examples_tree: Path, command: str, requirement: str) -> None:
    text = _dependency(examples_tree, command)
    assert _found(examples_tree) == [("REF042", "error", line_of(text, "command:"),
                                      requirement)]


@pytest.mark.parametrize("command", [
    'uv pip install -U "transformers>=5.8.0"',
    "pip install 'vllm>=0.10,<0.12' x==1.0",
    "pip install vllm 2>&1 | tee install.log",
    "pip install vllm > /dev/null",
    "echo a>=1",
    "pip install vllm  # then pin: transformers>=5",
])
def test_quoted_specifiers_and_real_redirections_pass(examples_tree: Path,
                                                      command: str) -> None:
    _dependency(examples_tree, command)
    assert _found(examples_tree) == []


def test_a_guide_shell_block_is_judged_at_its_line(examples_tree: Path) -> None:
    text = replace_once(examples_tree / CHAT, "\nguide: |\n",
                        "\nguide: |\n  ```bash\n  vllm --version\n"
                        "  pip install transformers>=5.8.0\n  ```\n\n")
    assert _found(examples_tree) == [
        ("REF042", "error", line_of(text, "pip install transformers"), "transformers>=5.8.0")]


def test_a_kv_store_install_line_is_judged_on_the_kv_store_file(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / "kv_store").mkdir()
    kv_text = kv_store_text().replace(
        "vllm:\n", "vllm:\n  install:\n"
        "    nvidia: \"uv pip install mooncake-transfer-engine>=0.3.10\"\n", 1)
    (examples_tree / KV_STORE).write_text(kv_text)
    main(["check", "--offline", "--no-cache", "--format", "json", str(examples_tree / KV_STORE)])
    doc = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["rule"], f["line"]) for d in doc["documents"]
             for f in d["findings"] if f["rule"] == "REF042"]
    assert found == [(KV_STORE, "REF042", line_of(kv_text, "nvidia:"))]


def test_a_backslash_newline_joins_the_words_of_a_command() -> None:
    (spec,) = unquoted_specifiers("uv pip install \\\n  --upgrade \\\n  vllm<0.12 \\\n  x")
    assert (spec.requirement, spec.name, spec.operator, spec.target) == (
        "vllm<0.12", "vllm", "<", "0.12")
