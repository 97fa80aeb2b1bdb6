"""Input trial 10 left unfixed: ``-`` as a report file, a context document named alone, a
glob the matcher cannot compile, a long ``select`` list, and ``diff`` past the rendering
limit. Each was a file named ``-``, a misleading count, a traceback, seconds of quadratic
work or a silent truncation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import EXTRA
from tests.evidence.conftest import EXTRA_GLM53, REPO
from validator.cli import main
from validator.config import ConfigError, parse_config
from validator.globs import compile_glob

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("args", [["--output", "-"], ["--format", "json", "--output", "-"],
                                  ["--format", "text", "--json", "-", "--output", "t.txt"]])
def test_a_report_file_named_dash_is_standard_output(
        tree: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert main([RECIPE, *args]) == 0
    out = capsys.readouterr().out
    assert not (tree / "-").exists()  # was: a file named '-' holding the report
    if "json" in args or "--json" in args:
        assert json.loads(out)["summary"]["documents"] == 1
    else:
        assert "1 file(s) checked" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--sarif", "-"], "the --format report and --sarif - both go to standard output"),
    (["--output", "-", "--json", "-"], "--output - and --json - both go to standard output"),
    (["--summary", "-"], "--summary -: the job summary is appended to a file"),
    (["--output", "o.txt", "--json", "-", "--sarif", "-"],
     "--json - and --sarif - both go to standard output"),
])
def test_two_reports_on_standard_output_are_a_usage_error(
        tree: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main([RECIPE, *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_record_output_dash_is_standard_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    commit, path = EXTRA_GLM53[0]
    assert main(["record", f"{REPO}@{commit}:{path}", "--manifest",
                 str(EXTRA / "MANIFEST.json"), "--checked-on", "2026-11-29",
                 "--output", "-"]) == 0
    assert not (tmp_path / "-").exists()  # was: a file named '-' holding the record
    assert json.loads(capsys.readouterr().out)["source"]["document_path"] == path


def test_a_context_document_named_alone_counts_as_checked(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["taxonomy.yaml", "--format", "json"]) == 0  # was: "0 file(s) checked"
    report = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in report["documents"]] == ["taxonomy.yaml"]
    assert report["documents"][0]["findings"] == []
    strategies = sorted(p.relative_to(tree).as_posix() for p in tree.glob("strategies/*.yaml"))
    assert main(["strategies/", "taxonomy.yaml", "taxonomy.yaml"]) == 0
    assert f"{len(strategies) + 1} file(s) checked" in capsys.readouterr().out
    main(["models/"])  # not named: a clean context document stays out
    assert "2 file(s) checked" in capsys.readouterr().out


def test_a_named_context_document_with_findings_is_reported_once(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (tree / "taxonomy.yaml").read_text("utf-8")
    (tree / "taxonomy.yaml").write_text(text + "\nunexpected_top_level_key: 1\n", "utf-8")
    main(["taxonomy.yaml", "--format", "json", "--strict"])
    report = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in report["documents"]] == ["taxonomy.yaml"]


@pytest.mark.parametrize(("glob", "names", "not_names"), [
    ("[]]", ["]"], ["a"]),                 # ']' first in a class is one of its characters
    ("[!]]x", ["ax"], ["]x"]),
    ("a[b", ["a[b"], ["ab"]),              # an unclosed '[' is itself
    ("models/**/*.yaml", ["models/a/b.yaml"], ["models/a/b.yml"]),
])
def test_globs_match_as_fnmatch_classes_do(glob: str, names: list[str],
                                           not_names: list[str]) -> None:
    assert all(compile_glob(glob).match(n) for n in names)
    assert not any(compile_glob(glob).match(n) for n in not_names)


def test_a_glob_that_cannot_compile_is_a_config_error_with_its_line(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = b'select = ["ALL"]\n[per-file-ignores]\n"models/[z-a]*" = ["REF"]\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(data, ".recipe-check.toml")
    assert caught.value.line == 3 and "bad character range z-a" in caught.value.message
    (tree / ".recipe-check.toml").write_bytes(data)
    assert main([RECIPE]) == 2  # was: re.error traceback while applying the ignores
    err = capsys.readouterr().err
    assert ".recipe-check.toml:3: per-file-ignores: 'models/[z-a]*'" in err
    assert "Traceback" not in err


def test_a_long_select_list_is_its_distinct_selectors() -> None:
    data = ("select = [" + ", ".join(['"REF"', '"flag"', '"FLAG01"'] * 30000) + "]\n").encode()
    config = parse_config(data, ".recipe-check.toml")
    assert config is not None and config.select == ("REF", "FLAG", "FLAG01")
    with pytest.raises(ConfigError, match="unknown rule or family 'RE'"):
        parse_config(b'ignore = ["REF", "RE"]\n', ".recipe-check.toml")


def test_diff_past_the_configuration_limit_says_what_it_left_out(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("validator.render.renderer.MAX_CONFIGURATIONS", 2)
    new = tree / "new.yaml"
    new.write_text((tree / RECIPE).read_text("utf-8").replace("8B", "8B-new", 1), "utf-8")
    shutil.move(new, tree / "models/example-org/New.yaml")
    main(["diff", RECIPE, "models/example-org/New.yaml", "--format", "json"])
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert len(problems) == 2, problems
    assert all("more than 2 configurations" in p and "not compared" in p for p in problems)
