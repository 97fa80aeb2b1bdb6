"""``ENV002``: an env variable of a recipe that changes where code, weights or packages
are fetched from (the model hub's endpoint, vLLM's ModelScope and redirect switches,
pip's and uv's index, a proxy, a CA bundle) is a warning at its key, also when a selected
strategy sets it; names that only configure (``HF_HOME``, ``NO_PROXY``) pass, and an
exported index really redirects the next ``pip`` (trial 9 #5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of
from tests.render.tiny_tree import write_tree
from tests.rules.ref.test_ref_shell_code import CHAT
from validator.cli import main


def _with_env(text: str, env: str) -> str:
    assert "  base_env: {}\n" in text
    return text.replace("  base_env: {}\n", "  base_env:\n" + env)


@pytest.mark.parametrize("name", ["HF_ENDPOINT", "UV_INDEX_URL", "PIP_INDEX_URL",
                                  "PIP_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "HTTPS_PROXY",
                                  "https_proxy", "ALL_PROXY", "MODELSCOPE_DOMAIN",
                                  "VLLM_MODEL_REDIRECT_PATH", "REQUESTS_CA_BUNDLE"])
def test_a_download_source_name_is_a_warning_at_its_key(corpus_copy: Path, name: str) -> None:
    text = _with_env(recipe(), f'    {name}: "http://evil.example/x"\n')
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV002")
    assert hit.severity.value == "warning"
    assert hit.line == line_of(text, f"{name}:")
    assert hit.message.startswith(f"model.base_env: `{name}=http://evil.example/x` changes "
                                  "where code, weights or packages are fetched from: ")
    assert "ignore[ENV002]" in (hit.hint or "")
    assert not of(found, "REF018")  # honest uses exist: not the unsuppressible error


@pytest.mark.parametrize(("name", "value", "reported"), [
    ("VLLM_USE_MODELSCOPE", "True", True), ("VLLM_USE_MODELSCOPE", '"true"', True),
    ("VLLM_USE_MODELSCOPE", '"False"', False), ("VLLM_CI_USE_S3", '"1"', True),
    ("VLLM_CI_USE_S3", '"0"', False)])
def test_a_vllm_switch_is_reported_only_when_it_switches_the_source(
        corpus_copy: Path, name: str, value: str, reported: bool) -> None:
    found, _ = run(corpus_copy, _with_env(recipe(), f"    {name}: {value}\n"))
    assert bool(of(found, "ENV002")) is reported


def test_names_that_only_configure_downloads_pass(corpus_copy: Path) -> None:
    text = _with_env(recipe(), '    HF_HOME: "/data/hf"\n    HF_TOKEN: "x"\n'
                     '    NO_PROXY: "localhost"\n    MY_HF_ENDPOINT: "http://x"\n'
                     '    HF_HUB_ENABLE_HF_TRANSFER: "1"\n')
    found, _ = run(corpus_copy, text)
    assert not of(found, "ENV002")


def test_a_comment_silences_it(corpus_copy: Path) -> None:
    text = _with_env(recipe(), '    HF_ENDPOINT: "https://hf-mirror.example"'
                     "  # recipe-check: ignore[ENV002]\n")
    found, _ = run(corpus_copy, text)
    assert not [f for f in found if f.rule in ("ENV002", "RC001", "RC005")]


def test_the_rendered_export_redirects_the_users_next_pip(
        examples_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = examples_tree / CHAT
    path.write_text(path.read_text("utf-8").replace(
        "  base_env: {}", '  base_env:\n    PIP_INDEX_URL: "http://127.0.0.1:9/simple"'), "utf-8")
    main(["render", str(path)])
    (export,) = [line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("export PIP_INDEX_URL=")]
    pip = (f"{export}\n{sys.executable} -m pip download --no-deps --retries 0 --timeout 2 "
           "-d dl vllm")
    proc = subprocess.run(["bash", "-c", pip], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "Looking in indexes: http://127.0.0.1:9/simple" in proc.stdout + proc.stderr


@pytest.mark.parametrize(("path", "before", "line"), [
    ("strategies/single_node_tp.yaml", 'parallel_flag: "--tensor-parallel-size"\n',
     'env:\n  PIP_INDEX_URL: "http://pypi.example/simple"\n'),
    ("kv_store/kv_mooncake_test.yaml", "    STORE_CONFIG_PATH: /etc/store.json\n",
     '    HF_ENDPOINT: "http://hub.example"\n'),
    ("taxonomy.yaml", '      TIER_HASH_SEED: "7"\n',
     '      PIP_INDEX_URL: "http://pypi.example/simple"\n'),
])
def test_a_strategy_kv_store_or_kv_offload_env_is_reported_once_on_its_own_file(
        tmp_path: Path, path: str, before: str, line: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The site adds these to the commands of every recipe selecting the strategy or
    having the store or option active: the warning is on the file, once (not on each
    recipe), at the name's line, and a comment there silences it."""
    root = write_tree(tmp_path / "tree")
    file = root / path
    text = file.read_text("utf-8")
    assert before in text
    file.write_text(text.replace(before, before + line), "utf-8")
    monkeypatch.chdir(root)
    main(["check", "--offline", "--no-cache", "--format", "json", "."])
    report = json.loads(capsys.readouterr().out)
    hits = [(d["path"], f["line"]) for d in report["documents"] for f in d["findings"]
            if f["rule"] == "ENV002"]
    name = line.strip().splitlines()[-1].strip()
    assert hits == [(path, line_of(file.read_text("utf-8"), name))]
    file.write_text(file.read_text("utf-8").replace(
        line, line.rstrip("\n") + "  # recipe-check: ignore[ENV002]\n"), "utf-8")
    main(["check", "--offline", "--no-cache", "--format", "json", "."])
    report = json.loads(capsys.readouterr().out)
    assert not [f for d in report["documents"] for f in d["findings"]
                if f["rule"] in ("ENV002", "RC001", "RC005")]
