"""A parser plugin file (``--tool-parser-plugin``, ``--reasoning-parser-plugin``) registers
its own parser names for the whole command it is in: a custom ``--tool-call-parser`` name
in a feature's list is fine when ``model.base_args`` (rendered into every command) loads
the plugin, and stays an error (``FLAG006``) in the commands that load none. The hint of
an unknown parser name says that a custom one needs the plugin option in the same
command."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny

PLUGIN = '    - "--tool-parser-plugin"\n    - "/opt/x/x_tool_parser.py"\n'
#: The tiny recipe with a tool-calling feature naming a custom parser, and an fp8 variant.
WITH_FEATURE = RECIPE.replace("variants:\n", """features:
  tool_calling:
    description: "custom tool parser"
    args:
      - "--enable-auto-tool-choice"
      - "--tool-call-parser"
      - "quill"
variants:
""").replace("compatible_strategies:", """  fp8:
    precision: fp8
    vram_minimum_gb: 2
    extra_args: []
compatible_strategies:""")


def _choice(root: Path) -> list[tuple[str, int, str, str | None]]:
    return [(f.rule, f.line, f.message, f.hint) for f in check_tree(root, PATH)
            if f.rule in ("FLAG006", "FLAG023")]


def test_a_plugin_in_base_args_registers_a_feature_s_parser(corpus_copy: Path) -> None:
    write_tiny(corpus_copy, PLUGIN, WITH_FEATURE)
    assert _choice(corpus_copy) == []


def test_a_custom_parser_without_any_plugin_is_an_error_naming_the_plugin_option(
        corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, '    - "--trust-remote-code"\n', WITH_FEATURE)
    (hit,) = _choice(corpus_copy)
    assert hit[:2] == ("FLAG006", line_of(text, '"quill"'))
    assert "`quill` is not a value vLLM 0.12.0 accepts" in hit[2]
    assert hit[3] is not None and "more)" in hit[3]  # the list shown is not all of them
    assert "a custom parser needs `--tool-parser-plugin <file>`" in hit[3]


def test_a_plugin_in_one_variant_only_leaves_the_others_in_error(corpus_copy: Path) -> None:
    recipe = WITH_FEATURE.replace(
        "    extra_args: []", '    extra_args: ["--tool-parser-plugin", "/opt/x/x.py"]')
    write_tiny(corpus_copy, '    - "--trust-remote-code"\n', recipe)
    assert [h[0] for h in _choice(corpus_copy)] == ["FLAG006"]  # the default variant's


def test_a_reasoning_parser_plugin_in_another_list_counts_too(corpus_copy: Path) -> None:
    recipe = WITH_FEATURE.replace('      - "--enable-auto-tool-choice"\n', "").replace(
        '"--tool-call-parser"', '"--reasoning-parser"')
    write_tiny(corpus_copy, PLUGIN.replace("tool-parser", "reasoning-parser"), recipe)
    assert _choice(corpus_copy) == []
    write_tiny(corpus_copy, PLUGIN, recipe)  # a tool parser plugin registers no reasoning parser
    ((rule, _, _, hint),) = _choice(corpus_copy)
    assert rule == "FLAG006" and hint is not None and "`--reasoning-parser-plugin <file>`" in hint


def test_a_guide_command_names_the_plugin_option_in_its_hint(corpus_copy: Path) -> None:
    recipe = RECIPE.replace("  Serve it.\n", "  ```bash\n  vllm serve org/Tiny-1B "
                            "--enable-auto-tool-choice --tool-call-parser quill\n  ```\n")
    write_tiny(corpus_copy, '    - "--trust-remote-code"\n', recipe)
    (hit,) = [f for f in check_tree(corpus_copy, PATH) if f.rule == "GUIDE006"]
    assert hit.hint is not None and "`--tool-parser-plugin <file>`" in hit.hint
    write_tiny(corpus_copy, '    - "--trust-remote-code"\n', recipe.replace(
        "--tool-call-parser quill", "--tool-parser-plugin /opt/x.py --tool-call-parser quill"))
    assert [f for f in check_tree(corpus_copy, PATH) if f.rule == "GUIDE006"] == []
