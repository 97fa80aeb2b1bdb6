"""``FLAG006`` / ``GUIDE006`` for a ``--lora-modules`` value the release's
``LoRAParserAction`` refuses: neither ``name=path`` nor (from 0.6.2) a JSON object of
``name``, ``path`` and optionally ``base_model_name``; more than one ``=`` before 0.30.0."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.analysis.lora_modules import refusal


def found(root: Path, rule: str, args: str, minimum: str = "0.12.0",
          guide: str = "  Serve it.\n") -> list[str]:
    text = RECIPE.replace('"0.12.0"', f'"{minimum}"').replace("  Serve it.\n", guide)
    write_tiny(root, args, text)
    return [f.message for f in check_tree(root, PATH) if f.rule == rule]


def test_a_bare_path_is_flag006(corpus_copy: Path) -> None:
    (message,) = found(corpus_copy, "FLAG006", '["--enable-lora", "--lora-modules", '
                       '"org/adapter"]')
    assert message.startswith("`--lora-modules org/adapter`: vLLM 0.12.0 refuses it: it is "
                              "neither `name=path` nor a JSON object")


def test_a_json_object_before_the_release_that_reads_it_asks_to_raise_the_minimum(
        corpus_copy: Path) -> None:
    (message,) = found(corpus_copy, "FLAG006", '["--enable-lora", "--lora-modules", '
                       '\'{"name": "a", "path": "org/a"}\']', "0.5.5")
    assert "vLLM reads this form only from 0.6.2, but the recipe's minimum is 0.5.5" \
        in message


def test_a_bare_path_in_a_guide_command_is_guide006(corpus_copy: Path) -> None:
    guide = ("  ```bash\n  vllm serve org/Tiny-1B --enable-lora --lora-modules "
             "org/adapter\n  ```\n")
    (message,) = found(corpus_copy, "GUIDE006", "[]", guide=guide)
    assert message.startswith("`--lora-modules org/adapter`: vLLM 0.12.0 refuses it")


@pytest.mark.parametrize(("value", "version", "refused"), [
    ("a=org/a", "0.4.2", False),
    ("a=b=c", "0.29.0", True),
    ("a=b=c", "0.30.0", False),
    ('{"name": "a", "path": "org/a"}', "0.6.1.post2", True),
    ('{"name": "a", "path": "org/a", "base_model_name": "m"}', "0.6.2", False),
    ('{"name": "a"}', "0.20.0", True),
    ('{"name": "a", "path": "p", "rank": 8}', "0.20.0", True),
    ('["a", "p"]', "0.20.0", True),
    ("a=p,b=q", "0.20.0", True),
    ("", "0.20.0", False),
])
def test_each_release_reads_its_own_forms(value: str, version: str, refused: bool) -> None:
    assert (refusal(value, Version(version)) is not None) is refused
