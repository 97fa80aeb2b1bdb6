"""``FLAG035`` (rendered commands) and ``GUIDE006`` (guide commands): two values, each
accepted alone, that vLLM's config refuses together -- ``--max-cpu-loras`` below
``--max-loras`` under ``--enable-lora`` (``LoRAConfig``, every release) and
``--data-parallel-size-local`` above ``--data-parallel-size`` (``ParallelConfig``, from
0.9.0). And ``FLAG023`` for a number outside a bound a later release of the install range
states (``--gpu-memory-utilization 0``, refused from 0.11.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.analysis.cli_plan import plan_for
from validator.analysis.printed_args import judged_items, whole_items
from validator.analysis.versions import parse_min_version
from validator.vllm_cli.data_source import CliRegistries


def found(root: Path, rule: str, args: str, minimum: str = "0.12.0",
          guide: str = "  Serve it.\n") -> list[tuple[int, str]]:
    text = RECIPE.replace('"0.12.0"', f'"{minimum}"').replace("  Serve it.\n", guide)
    write_tiny(root, args, text)
    return [(f.line, f.message) for f in check_tree(root, PATH, rendered=True)
            if f.rule == rule]


def test_cpu_loras_below_max_loras_is_an_error_at_the_later_value(corpus_copy: Path) -> None:
    args = ('["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2", '
            '"--max-lora-rank", "64"]')
    ((line, message),) = found(corpus_copy, "FLAG035", args)
    assert line == line_of((corpus_copy / PATH).read_text(), "--max-cpu-loras")
    assert message.startswith("rendered command: `--max-cpu-loras 2` is below "
                              "`--max-loras 4` in one command: LoRAConfig of vLLM "
                              "0.12.0–0.33.0 refuses it")


@pytest.mark.parametrize("args", [
    '["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "8"]',
    '["--max-loras", "4", "--max-cpu-loras", "2"]',
    '["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2", "--no-enable-lora"]',
    '["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "0"]',
    '["--enable-lora", "--max-cpu-loras", "1"]',
    '["--enable-lora", "--max-loras", "$N", "--max-cpu-loras", "2"]',
    '["--data-parallel-size", "4", "--data-parallel-size-local", "4"]',
    '["--data-parallel-size", "16", "--data-parallel-size-local", "8"]',
], ids=["cpu-above", "lora-off", "lora-switched-off", "cpu-zero-means-unset",
        "default-max-loras", "filled-in-value", "dp-equal", "dp-local-below"])
def test_what_vllm_accepts_passes(corpus_copy: Path, args: str) -> None:
    assert found(corpus_copy, "FLAG035", args) == []


def test_local_data_parallel_size_above_the_total_is_an_error(corpus_copy: Path) -> None:
    ((_, message),) = found(corpus_copy, "FLAG035", '["--data-parallel-size-local", "8", '
                            '"--data-parallel-size", "4"]')
    assert "`--data-parallel-size-local 8` is above `--data-parallel-size 4`" in message
    ((_, alone),) = found(corpus_copy, "FLAG035", '["--data-parallel-size-local", "2"]')
    assert "above `--data-parallel-size 1` (its default)" in alone


def test_values_from_two_lists_are_judged_in_the_command_they_meet(corpus_copy: Path) -> None:
    """``--max-loras`` in the base list, ``--max-cpu-loras`` in the variant's extra args:
    no list alone is wrong, the rendered command is."""
    text = RECIPE.replace("    vram_minimum_gb: 3\n", "    vram_minimum_gb: 3\n"
                          '    extra_args: ["--max-cpu-loras", "2"]\n')
    text = write_tiny(corpus_copy, '["--enable-lora", "--max-loras", "4"]', text)
    hits = [f for f in check_tree(corpus_copy, PATH, rendered=True) if f.rule == "FLAG035"]
    assert [f.line for f in hits] == [line_of(text, '"--max-cpu-loras", "2"')]


def test_guide_command_with_local_above_total_is_guide006(corpus_copy: Path) -> None:
    guide = ("  ```bash\n  vllm serve org/Tiny-1B --data-parallel-size 4 \\\n"
             "    --data-parallel-size-local 8\n  ```\n")
    hits = found(corpus_copy, "GUIDE006", "[]", guide=guide)
    assert [m.split(" in one")[0] for _, m in hits] == [
        "`--data-parallel-size-local 8` is above `--data-parallel-size 4`"]
    fine = guide.replace("size 4", "size 16")
    assert found(corpus_copy, "GUIDE006", "[]", guide=fine) == []


def test_lora_pair_in_a_guide_command_is_guide006(corpus_copy: Path) -> None:
    guide = ("  ```bash\n  vllm serve org/Tiny-1B --enable-lora --max-loras 4 "
             "--max-cpu-loras 2\n  ```\n")
    ((_, message),) = found(corpus_copy, "GUIDE006", "[]", guide=guide)
    assert message.startswith("`--max-cpu-loras 2` is below `--max-loras 4`")


def test_zero_utilisation_below_the_release_that_bounds_it_is_flag023(
        corpus_copy: Path) -> None:
    """At a 0.8.5 minimum nothing refuses 0 (FLAG006 says nothing); the releases of the
    install range from 0.11.1 do."""
    hits = found(corpus_copy, "FLAG023", '["--gpu-memory-utilization", "0"]', "0.8.5")
    assert hits and all("`--gpu-memory-utilization 0` is rejected by vLLM 0.11.1–0.33.0"
                        in m and "it takes only a value above 0 and at most 1" in m
                        for _, m in hits)
    assert found(corpus_copy, "FLAG023", '["--gpu-memory-utilization", "0.5"]', "0.8.5") == []


@pytest.mark.parametrize(("args", "refused"), [
    (("--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2"), True),
    (("--enable-lora", "--max-cpu-loras=2", "--max-loras", "4", "--max-lora-rank", "8"), True),
    (("-dpl", "8", "--data-parallel-size", "4", "--trust-remote-code"), True),
    (("--data-parallel-size 4", "--data-parallel-size-local", "8"), True),
    (("--enable-lora", "--max-loras", "4", "--max-cpu-loras", "8"), False),
], ids=["lora", "inline-value", "short-alias", "two-words-in-one-item", "accepted"])
def test_chunked_judgement_equals_the_whole_lists(args: tuple[str, ...], refused: bool) -> None:
    """The chunk and segment fast paths give what judging the whole list gives."""
    plan = plan_for(CliRegistries(), parse_min_version("0.12.0"))
    whole = whole_items(args, plan)
    assert judged_items(args, plan) == whole
    assert any(i.code == "refused_pair" for i in whole) is refused
