"""GUIDE011 reads the parser and tokenizer values of each rendered argument list once per
run and release file (on the run's data source, whichever recipe renders the list): the
memo must keep the releases apart, since one release knows an option another does not."""

from __future__ import annotations

from validator.load import load_yaml
from validator.rules.guide.structured_args_agree import _RenderedValues
from validator.vllm_cli.data_source import CliRegistries

ARGS = ("--reasoning-parser", "deepseek_r1", "--tokenizer-mode", "auto")


def test_one_argument_list_is_read_apart_at_each_release() -> None:
    cli = CliRegistries()
    doc = load_yaml(b"model: {}\n", "models/acme/Tiny-1B.yaml")
    newest = cli.registry(str(cli.versions()[-1]))
    oldest = cli.registry(str(cli.versions()[0]))  # before --reasoning-parser
    both = (("reasoning_parser", "deepseek_r1", 0), ("tokenizer_mode", "auto", 2))
    assert _RenderedValues(doc, cli)._key_values(ARGS, newest) == both
    assert _RenderedValues(doc, cli)._key_values(ARGS, oldest) == (
        ("tokenizer_mode", "auto", 2),)
    assert _RenderedValues(doc, cli)._key_values(ARGS, newest) == both
