"""One option name, one meaning, in every subcommand: read from the real parsers.

:mod:`validator.commands.option_table` builds each subcommand's parser as ``recipe-check``
does; these tests walk every option of every (sub)command and fail when one name takes
two meanings (another value, type or action, or another help text outside parentheses),
and keep README's table of options the parsers' own.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

import pytest

from tests.cli_in_process import run_cli
from validator.cli import main
from validator.commands.option_table import (
    TABLE_END,
    TABLE_START,
    OptionUse,
    command_parsers,
    conflicts,
    markdown_table,
    option_uses,
)

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
CHAT = "models/example-org/Example-Chat-8B.yaml"


def test_every_subcommand_is_walked() -> None:
    names = [name for name, _ in command_parsers()]
    assert {"check", "pr", "history", "diff", "publish", "render", "record", "fetch",
            "data refresh", "data vllm-cli", "snapshot verify", "cache", "rules"} <= set(names)
    uses = option_uses()
    assert len(uses) > 150
    assert {u.command for u in uses if u.name == "--output"} == {
        "check", "pr", "diff", "history", "record"}


def test_every_option_name_has_one_meaning_across_commands() -> None:
    assert conflicts() == []


def test_two_meanings_of_one_name_are_caught() -> None:
    """The detector itself: a folder where another command takes a file, and one help
    text against another, are each two meanings; a default in parentheses is not."""
    file = OptionUse("check", "--output", "FILE", "store", "report_file",
                     "write the report here instead of stdout", False, ("--output",))
    folder = OptionUse("publish", "--output", "DIR", "store", "Path", "output folder", False,
                       ("--output",))
    assert conflicts([file, folder]) == [
        "--output: check: value 'FILE', store, type report_file, 'write the report here "
        "instead of stdout'; publish: value 'DIR', store, type Path, 'output folder'"]
    a = OptionUse("x", "--no-cache", "", "switch", "", "do not read or write a cache", False)
    b = OptionUse("y", "--no-cache", "", "switch", "", "neither read nor write the cache",
                  False)
    assert len(conflicts([a, b])) == 1
    assert conflicts([a, OptionUse("z", "--no-cache", "", "switch", "",
                                   "do not read or write a cache", False)]) == []


def test_readme_table_of_options_is_the_parsers() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(TABLE_START) + r".*?" + re.escape(TABLE_END), readme,
                      flags=re.DOTALL)
    assert found is not None, "README.md has no table of options"
    assert found.group(0) == markdown_table(), (
        "README's table of options is stale: replace it with the output of "
        "`python -m validator.commands.option_table`")
    assert "| `--out-dir` | `DIR` | data vllm-cli, publish | output folder |" in readme


def _publish_parser() -> argparse.ArgumentParser:
    return dict(command_parsers())["publish"]


def test_publish_output_folder_is_out_dir_and_out_is_a_deprecated_spelling(
        capsys: pytest.CaptureFixture[str]) -> None:
    parser = _publish_parser()
    assert parser.parse_args(["--out-dir", "pub"]).out == Path("pub")
    assert capsys.readouterr().err == ""
    assert parser.parse_args(["--out", "pub"]).out == Path("pub")
    assert capsys.readouterr().err == (
        "recipe-check: warning: --out is deprecated; use --out-dir\n")
    assert "--out-dir DIR" in parser.format_help()


def test_data_snapshot_dir_is_refused_naming_vendored_dir(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Elsewhere ``--snapshot-dir`` is the old spelling of ``--store-dir``, the snapshot
    store: ``data`` refuses it rather than reading the vendored data folder from it."""
    with pytest.raises(SystemExit) as stop:
        main(["data", "show", "--snapshot-dir", "snapshots"])
    assert stop.value.code == 2
    assert "--snapshot-dir was renamed: use --vendored-dir DIR" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["rules"], ["render", str(EXAMPLES / CHAT)]])
def test_format_given_twice_is_one_usage_error_everywhere(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--format", "json", "--format", "text"]) == 2
    assert "--format given as json, text: one format goes to stdout" in \
        capsys.readouterr().err


def test_diff_writes_its_markdown_to_a_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    old = Path(shutil.copytree(EXAMPLES, tmp_path / "old"))
    new = Path(shutil.copytree(EXAMPLES, tmp_path / "new"))
    recipe = new / CHAT
    recipe.write_text(recipe.read_text("utf-8").replace(
        'min_vllm_version: "0.12.0"', 'min_vllm_version: "0.13.0"'), "utf-8")
    out = tmp_path / "diff.md"
    assert main(["diff", str(old / CHAT), str(new / CHAT), "--no-feature-sets",
                 "--markdown", str(out), "--format", "json"]) == 1
    assert capsys.readouterr().out.startswith("{")
    text = out.read_text(encoding="utf-8")
    assert "0.12.0" in text and "0.13.0" in text and not text.startswith("{")


def test_online_releases_help_says_what_is_used_without_it() -> None:
    """Was "... instead of the vendored snapshots/vllm-releases.json (the default)": which
    of the two is the default was unclear."""
    done = run_cli("check", "--help", cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "without this option (the default) the vendored, digest-pinned " \
        "snapshots/vllm-releases.json is used" in text
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert "`history` exits 0 with findings" in readme  # the exit codes name history's
    assert "relative to that root, not to the current folder" in readme


def test_every_file_or_folder_option_refuses_an_empty_name() -> None:
    """``--cache-dir "$CACHE"`` with ``CACHE`` unset must not turn the current folder
    into a cache (nor ``--root ''`` / ``--out-dir ''`` silently mean it): every option
    taking a FILE or DIR is typed by :func:`validator.paths.option_path` (report files by
    ``report_file``, which refuses it too)."""
    named = [u for u in option_uses() if u.value in ("FILE", "DIR") and not u.hidden]
    assert {u.name for u in named} >= {"--cache-dir", "--root", "--repo", "--out-dir"}
    assert [(u.command, u.name) for u in named
            if u.type_name not in ("option_path", "report_file")] == []


def test_an_empty_cache_folder_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    before = sorted(p.name for p in root.iterdir())
    for _ in range(2):  # the second run would be the cache's to answer
        done = run_cli("--cache-dir", "", CHAT, cwd=root)
        assert done.returncode == 2
        assert "--cache-dir: an empty name (an unset variable?)" in done.stderr
    assert sorted(p.name for p in root.iterdir()) == before
