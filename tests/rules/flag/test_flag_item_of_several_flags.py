"""A list item holding two flags and a value (``"--enable-prefix-caching --max-num-seqs 64"``)
is read as the shell splits it: ``FLAG020`` names its tokens, and no ``FLAG001`` calls
``--max-num-seqs 64`` an unknown option whose fix is the flag already there (trial 13 #16);
a misspelt flag inside such an item is still ``FLAG001``, named alone."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, replace_once
from validator.analysis.arg_items import split_joined

CHAT = "models/example-org/Example-Chat-8B.yaml"


def _findings(root: Path, item: str) -> list[tuple[str, str]]:
    replace_once(root / CHAT, '    - "--max-model-len"\n    - "32768"\n',
                 f'    - "--max-model-len"\n    - "32768"\n    - "{item}"\n')
    return [(f.rule, f.message) for f in check_tree(root, CHAT)
            if f.rule in ("FLAG001", "FLAG020")]


def test_an_item_of_two_flags_and_a_value_is_one_flag020_naming_its_tokens(
        examples_tree: Path) -> None:
    [(rule, message)] = _findings(examples_tree, "--enable-prefix-caching --max-num-seqs 64")
    assert rule == "FLAG020"
    assert "holds 3 tokens (`--enable-prefix-caching`, `--max-num-seqs`, `64`)" in message


def test_a_misspelt_flag_inside_such_an_item_is_named_alone(examples_tree: Path) -> None:
    found = _findings(examples_tree, "--enable-prefix-caching --max-num-sqes 64")
    assert [r for r, _ in found] == ["FLAG001", "FLAG020"]
    assert found[0][1].startswith("`--max-num-sqes` is not an option")


def test_a_value_with_blanks_after_the_last_flag_stays_one_token() -> None:
    assert split_joined(('--hf-overrides {"a": 1}', "--x y")) == (
        ("--hf-overrides", '{"a": 1}', "--x", "y"), (0, 0, 1, 1), [0, 1])
