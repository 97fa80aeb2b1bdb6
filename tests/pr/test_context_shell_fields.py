"""Every field of a kv-store deployment (``kv_store/*.yaml``) and of a taxonomy KV offload
option (``kv_offload.<key>``) that the site prints into a shell line is judged by the
shell model, on the context file at the field's line: a pull request that edits only
such a field with a hostile value (command substitution, a space, a leading ``-``) fails.

The fields, read from the site's renderer (``command-synthesis.js``): a kv-store's
``vllm.vllm_args`` and ``pd.<role>.args`` items and a KV offload option's ``args`` items
(the ``vllm serve`` line), the names and values of ``vllm.env`` and of an option's ``env``
(``-e KEY=VALUE`` of ``docker run``), and -- in the ``vllm-router`` command the site builds
for a kv-store deployment of two or more instances -- ``router.policy``
(``vllm-router --policy POLICY``) and ``vllm.port`` (``--backend-url
http://$VLLM_INSTANCE_N:PORT``); a strategy's ``router.policy`` lands in the PD router's
line the same way. The Mooncake config (``mooncake_vllm_config.template``,
``mooncake_store_config.config``) is written by the page through an unquoted heredoc (the
corpus files' comments say so; the page code is not in the renderer we read): a command
substitution in a key or value runs there. The whole commands shown as written
(installs, ``mooncake_master`` and ``mooncake_store_config`` commands, an option's
``companion.command``) are not spliced into a built command: ``REF022``/``REF023`` judge them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import line_of
from tests.context_files import KV_STORE, kv_offload_text, kv_store_text
from tests.rules.ref.test_ref_shell_code import bash
from validator.cli import main
from validator.context import local_context
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.configuration import Configuration
from validator.render.renderer import render
from validator.render_blocks import blocks
from validator.rules.ref.shell_code import context_shell_hits

from .conftest import commit_all

CHAT = "models/example-org/Example-Chat-8B.yaml"
STORE_EXTRA = ('  env:\n    MOONCAKE_CONFIG_PATH: "/etc/mooncake.json"\n  port: 8000\n'
               'router:\n  policy: "cache_aware"\n'
               'pd:\n  prefill:\n    args: ["--kv-transfer-config", "{}"]\n'
               '  decode:\n    args: ["--kv-transfer-config", "{}"]\n'
               'mooncake_vllm_config:\n  template:\n    device_name: "$MOONCAKE_DEVICE_NAME"\n'
               'mooncake_store_config:\n  command: "mooncake_store_service"\n'
               '  config:\n    mode: "standalone-store"\n')
OPTION_EXTRA = '    env:\n      PYTHONHASHSEED: "0"\n'


def _pr(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str]
        ) -> tuple[int, list[tuple[str, str, int]]]:
    code = main(["pr", "--offline", "--repo", str(repo), "--base", base, "--head", head,
                 "--format", "json", "--no-summary"])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, [(d["path"], f["rule"], f["line"]) for d in doc["documents"]
                  for f in d["findings"] if f.get("baseline") == "new"]


@pytest.fixture()
def shell_repo(example_repo: Path) -> tuple[Path, str]:
    """The example repository with a kv-store deployment holding every printed field
    and a KV offload option with args and env: (repository, that commit)."""
    (example_repo / "kv_store").mkdir()
    (example_repo / KV_STORE).write_text(kv_store_text() + STORE_EXTRA)
    taxonomy = example_repo / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text() + kv_offload_text(
        "--kv-transfer-config", '{"kv_connector":"ExampleOffload"}') + OPTION_EXTRA)
    return example_repo, commit_all(example_repo, "kv store and offload option")


FIELDS = [  # (file, the plain text in the base, its hostile replacement, the hostile
    # value's line, rule)
    (KV_STORE, 'policy: "cache_aware"', 'policy: "cache_aware$(touch pwned)"', "policy:",
     "REF018"),
    (KV_STORE, 'policy: "cache_aware"', 'policy: "cache aware"', "policy:", "REF018"),
    (KV_STORE, 'policy: "cache_aware"', 'policy: "--help"', "policy:", "REF018"),
    (KV_STORE, "port: 8000", 'port: "8000$(touch pwned)"', "port:", "REF018"),
    (KV_STORE, "port: 8000", 'port: "8000 --policy random"', "port:", "REF018"),
    (KV_STORE, 'prefill:\n    args: ["--kv-transfer-config", "{}"]',
     'prefill:\n    args: ["--kv-transfer-config", "{}", "$(touch pwned)"]', "pwned", "REF018"),
    (KV_STORE, 'decode:\n    args: ["--kv-transfer-config", "{}"]',
     'decode:\n    args: ["--kv-transfer-config", "{}", "a b"]', '"a b"', "REF018"),
    (KV_STORE, 'decode:\n    args: ["--kv-transfer-config", "{}"]',
     'decode:\n    args: ["--kv-transfer-config", "{}", "-x"]', '"-x"', "FLAG001"),
    (KV_STORE, '"/etc/mooncake.json"', '"/etc/mooncake.json;touch pwned"', "pwned", "REF018"),
    (KV_STORE, "MOONCAKE_CONFIG_PATH:", '"A B":', '"A B"', "REF018"),
    (KV_STORE, '    - "--kv-transfer-config"', '    - "a b"\n    - "--kv-transfer-config"',
     '"a b"', "REF018"),
    (KV_STORE, 'device_name: "$MOONCAKE_DEVICE_NAME"', 'device_name: "$(touch pwned)"',
     "device_name", "REF018"),
    (KV_STORE, 'mode: "standalone-store"', 'mode: "x`touch pwned`"', "mode:", "REF018"),
    (KV_STORE, 'mode: "standalone-store"', '"$(id)": "standalone-store"', "$(id)", "REF018"),
    ("taxonomy.yaml", 'PYTHONHASHSEED: "0"', 'PYTHONHASHSEED: "0 1"', "PYTHONHASHSEED",
     "REF018"),
    ("taxonomy.yaml", 'PYTHONHASHSEED: "0"', 'PYTHONHASHSEED: "`touch pwned`"',
     "PYTHONHASHSEED", "REF018"),
    ("taxonomy.yaml", '      - "--kv-transfer-config"\n',
     '      - "$(touch pwned)"\n      - "--kv-transfer-config"\n', "pwned", "REF018"),
    ("taxonomy.yaml", '      - "--kv-transfer-config"\n',
     '      - "-x"\n      - "--kv-transfer-config"\n', '"-x"', "FLAG001"),
]


@pytest.mark.parametrize(("path", "old", "new", "marker", "rule_id"), FIELDS)
def test_a_hostile_value_in_a_printed_context_field_fails_the_pull_request(
        shell_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str], path: str,
        old: str, new: str, marker: str, rule_id: str) -> None:
    repo, base = shell_repo
    text = (repo / path).read_text()
    assert text.count(old) == 1
    text = text.replace(old, new)
    (repo / path).write_text(text)
    head = commit_all(repo, "edit one printed field")
    code, new_findings = _pr(repo, base, head, capsys)
    assert code == 1
    assert (path, rule_id, line_of(text, marker)) in new_findings


def test_the_router_command_runs_a_policy_and_a_port_as_bash_reads_them(
        examples_tree: Path, tmp_path: Path) -> None:
    """What the two router fields do in the command the site shows (real bash)."""
    (examples_tree / "kv_store").mkdir()
    (examples_tree / KV_STORE).write_text(kv_store_text() + STORE_EXTRA.replace(
        'policy: "cache_aware"', 'policy: "x$(touch pwned-policy)"').replace(
        "port: 8000", 'port: "8000$(touch pwned-port)"'))
    ctx = local_context(examples_tree)
    doc = load_yaml((examples_tree / CHAT).read_bytes(), CHAT)
    rendered = render(doc, ctx.taxonomy, context_strategies(ctx),
                      Configuration("h200", kv_offload="kv_store_example"))
    assert rendered.site is not None
    router = rendered.site["router"]["command"]
    assert "--policy x$(touch pwned-policy)" in router
    run = tmp_path / "run"
    run.mkdir()
    bash(router.replace("vllm-router", "true", 1), run)
    assert (run / "pwned-policy").exists() and (run / "pwned-port").exists()


def test_an_unquoted_heredoc_runs_a_substitution_of_the_config_but_not_quotes_or_spaces(
        tmp_path: Path) -> None:
    """Why the Mooncake config is judged for substitutions only (real bash)."""
    run = tmp_path / "run"
    run.mkdir()
    bash('cat > config.json <<EOF\n{"a": "x y", "b": "\\$(touch kept)", '
         '"c": "$(touch pwned)"}\nEOF', run)
    assert (run / "pwned").exists() and not (run / "kept").exists()
    assert (run / "config.json").read_text() == '{"a": "x y", "b": "$(touch kept)", "c": ""}\n'


def test_plain_router_fields_and_a_port_number_are_no_finding(
        shell_repo: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, base = shell_repo
    text = (repo / KV_STORE).read_text().replace("port: 8000", "port: 8100").replace(
        'policy: "cache_aware"', 'policy: "round_robin"')
    (repo / KV_STORE).write_text(text)
    head = commit_all(repo, "another port and policy")
    assert _pr(repo, base, head, capsys) == (0, [])


def test_render_warns_above_a_router_command_holding_shell_code(examples_tree: Path) -> None:
    (examples_tree / "kv_store").mkdir()
    (examples_tree / KV_STORE).write_text(kv_store_text() + STORE_EXTRA.replace(
        'policy: "cache_aware"', 'policy: "x$(touch pwned)"'))
    ctx = local_context(examples_tree)
    doc = load_yaml((examples_tree / CHAT).read_bytes(), CHAT)
    rendered = render(doc, ctx.taxonomy, context_strategies(ctx),
                      Configuration("h200", kv_offload="kv_store_example"))
    router, = [b for b in blocks(rendered) if b.title == "router"]
    assert "bash runs `touch pwned`" in router.lines[1]
    assert router.lines[1].startswith("# warning: REF018") and not router.copyable


def test_a_pd_strategys_router_policy_is_judged_on_the_strategy() -> None:
    """The PD router's line (``vllm-router --policy POLICY``) takes a strategy's policy."""
    data = {"name": "pd_cluster", "deploy_type": "pd_cluster",
            "router": {"policy": "round_robin;touch pwned"}}
    hits = context_shell_hits("strategies/pd_cluster.yaml", "strategy", data)
    assert [h.pointer for h in hits] == ["/router/policy"]
    assert "runs `touch pwned` as a command of its own" in hits[0].message
    data["router"] = {"policy": "round_robin"}
    assert context_shell_hits("strategies/pd_cluster.yaml", "strategy", data) == []
