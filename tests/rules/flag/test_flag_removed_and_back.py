"""FLAG001 on an option a release removed and a later one added back
(``--disable-log-requests``: in the vendored registries up to 0.16.0, absent from 0.17.0,
back as the negative of ``--enable-log-requests`` in the newest ones): the message names
both runs of releases, never one range that covers the minimum it is absent from."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.analysis.cli_plan import present_spans, versions
from validator.vllm_cli.data_source import CliRegistries


def test_an_option_removed_and_added_back_is_named_with_both_runs(corpus_copy: Path) -> None:
    cli = CliRegistries()
    runs = present_spans(cli, "option", "--disable-log-requests")
    assert len(runs) == 2 and runs[0][1] == "0.16.0" and runs[1][1] == str(versions(cli)[-1])
    write_tiny(corpus_copy, '["--disable-log-requests"]', RECIPE.replace('"0.12.0"', '"0.20.0"'))
    found = [f.message for f in check_tree(corpus_copy, PATH) if f.rule == "FLAG001"]
    assert found == [f"`--disable-log-requests`: `--disable-log-requests` is not an option of "
                     f"vLLM 0.20.0 (it existed in {runs[0][0]}..0.16.0 and again from "
                     f"{runs[1][0]})"]
