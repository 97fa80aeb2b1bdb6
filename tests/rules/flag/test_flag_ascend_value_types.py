"""JSON-valued flags served by vLLM-Ascend are judged by the plugin release's own value
types (``json_takes_string``/``parses_json`` of snapshots/vllm-cli/vllm-ascend): a plain
string to a ``json.loads`` option (``--limit-mm-per-prompt image=4``) is FLAG007, a plain
string to a dict-or-string option (``--hf-overrides``) is not. Before the Ascend snapshots
recorded the types, the name decided: the first passed and the second was a false error.

Our own small recipe (tests/tiny_recipe.py) lists an Ascend NPU profile and gives it a
hardware override; that list is checked against vLLM-Ascend (``ascend_950pr`` is
``generation: npu`` in the corpus taxonomy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.vllm_cli.plugins import PLUGINS
from validator.vllm_cli.registry import available_versions, load_registry

ASCEND_DIR = PLUGINS["vllm-ascend"].registry_dir
OVERRIDE = "/hardware_overrides/ascend_950pr/extra_args"


def _ascend_recipe(minimum: str, *items: str) -> str:
    listed = "".join(f'      - "{item}"\n' for item in items)
    hardware = "    h100: verified\n"
    return (RECIPE.replace(hardware, hardware + "    ascend_950pr: verified\n")
            .replace('min_vllm_version: "0.12.0"', f'min_vllm_version: "{minimum}"')
            .replace("compatible_strategies:", "hardware_overrides:\n  ascend_950pr:\n"
                     f"    extra_args:\n{listed}compatible_strategies:"))


def _json_findings(root: Path) -> list[tuple[str, int, str]]:
    return [(f.pointer, f.line, f.message) for f in check_tree(root, PATH)
            if f.rule == "FLAG007"]


@pytest.mark.parametrize("minimum", ["0.28.0", "0.30.0"])
def test_plain_string_to_a_json_loads_option_is_an_error_at_vllm_ascend(
        corpus_copy: Path, minimum: str) -> None:
    text = write_tiny(corpus_copy, '    - "--max-model-len"\n    - "4096"\n',
                      _ascend_recipe(minimum, "--limit-mm-per-prompt", "image=4"))
    found = _json_findings(corpus_copy)
    assert [(p, ln) for p, ln, _ in found] == [(f"{OVERRIDE}/1", line_of(text, '"image=4"'))]
    assert "takes no plain string: `image=4`" in found[0][2]


@pytest.mark.parametrize("minimum", ["0.28.0", "0.30.0"])
def test_plain_string_to_a_dict_or_string_option_passes_at_vllm_ascend(
        corpus_copy: Path, minimum: str) -> None:
    write_tiny(corpus_copy, '    - "--max-model-len"\n    - "4096"\n',
               _ascend_recipe(minimum, "--hf-overrides", "some-string",
                              "--limit-mm-per-prompt", '{\\"image\\": 4}'))
    assert _json_findings(corpus_copy) == []


def test_a_broken_json_object_is_still_an_error_for_a_dict_or_string_option(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '    - "--max-model-len"\n    - "4096"\n',
                      _ascend_recipe("0.28.0", "--hf-overrides", '{\\"a\\": 1,}'))
    found = _json_findings(corpus_copy)
    assert [(p, ln) for p, ln, _ in found] == [(f"{OVERRIDE}/1", line_of(text, '"a'))]
    assert "is not valid JSON" in found[0][2]


@pytest.mark.parametrize("version", [str(v) for v in available_versions(ASCEND_DIR)])
def test_every_vllm_ascend_snapshot_records_the_value_types(version: str) -> None:
    """Both facts on every option (``json_takes_string`` on every JSON one), and for the
    options the plugin shares with the vLLM release it is built on, the same facts as
    that release's snapshot (the plugin does not retype vLLM's options)."""
    reg = load_registry(version, ASCEND_DIR)
    assert reg.options and all(o.parses_json is not None for o in reg.options)
    assert all(o.json_takes_string is not None for o in reg.options if o.is_json)
    assert reg.plugin is not None
    base = {(o.strings, o.dest): o for o in load_registry(reg.plugin.vllm_version).options}
    shared = [(o, base[(o.strings, o.dest)]) for o in reg.options if (o.strings, o.dest) in base]
    assert len(shared) > len(reg.options) // 2
    assert [o.long for o, b in shared
            if (o.parses_json, o.json_takes_string) != (b.parses_json, b.json_takes_string)] == []


@pytest.mark.parametrize("version", ["0.9.1", "0.18.0", "0.30.0rc2"])
def test_dict_or_string_and_json_loads_options_of_vllm_ascend(version: str) -> None:
    reg = load_registry(version, ASCEND_DIR)
    takes = {o.long: o.json_takes_string for o in reg.options if o.is_json}
    assert takes["--limit-mm-per-prompt"] is False and takes["--hf-overrides"] is True
    assert takes["--additional-config"] is True
