"""``FLAG038``: a file option's value starting with ``~`` that the printed command never
expands (the site quotes a flag's value; bash expands no ``~`` after ``--option=``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, write_tiny
from validator.rules.flag.home_paths import home_paths


def found(root: Path, args: str) -> list[str]:
    write_tiny(root, args)
    return [f.message for f in check_tree(root, PATH) if f.rule == "FLAG038"]


@pytest.mark.parametrize("args", [
    '["--chat-template", "~/templates/chat.jinja"]',
    '["--chat-template=~/templates/chat.jinja"]',
    '["--ssl-certfile", "~/cert.pem"]',
], ids=["quoted-value", "after-equals", "ssl"])
def test_a_home_path_vllm_opens_as_written_is_an_error(corpus_copy: Path, args: str) -> None:
    (message,) = found(corpus_copy, args)
    assert "model.base_args: the site prints the path quoted, so the shell never expands" \
        in message


@pytest.mark.parametrize("args", [
    '["--chat-template", "/opt/templates/chat.jinja"]',
    '["--chat-template ~/templates/chat.jinja"]',
    '["--lora-modules", "a=~/adapters/a"]',
], ids=["absolute", "one-raw-item-bash-expands", "lora-path-vllm-expands"])
def test_paths_that_reach_vllm_expanded_or_absolute_pass(corpus_copy: Path, args: str) -> None:
    assert found(corpus_copy, args) == []


def test_the_value_item_is_the_one_reported() -> None:
    assert list(home_paths(("--port", "8000", "--chat-template", "~/t.jinja"))) == [
        (3, "--chat-template", "~/t.jinja")]
