"""Acceptance tests: the command line on the shipped example tree (positive and negative
examples) and on the real corpus."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from validator.cli import EXIT_BROKEN_PIPE, main

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
CLEAN = EXAMPLES / "models" / "example-org" / "Example-Chat-8B.yaml"
BROKEN = EXAMPLES / "models" / "example-org" / "Example-MoE-120B.yaml"


def findings_schema() -> Draft202012Validator:
    schema = json.loads((PROJECT / "schemas" / "findings.schema.json").read_text())
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_clean_example_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(CLEAN)]) == 0
    assert "0 error(s)" in capsys.readouterr().out


def test_broken_example_exits_one_with_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(BROKEN)]) == 1
    out = capsys.readouterr().out
    assert "models/example-org/Example-MoE-120B.yaml:18:5: error REF004" in out
    assert "hint:" in out
    assert "\033[" not in out  # no colour when not a terminal


def test_json_report_follows_the_contract(tmp_path: Path) -> None:
    out = tmp_path / "f.json"
    assert main(["--format", "json", "--output", str(out), str(EXAMPLES / "models")]) == 1
    report = json.loads(out.read_text())
    findings_schema().validate(report)
    assert report["tool"]["name"] == "recipe-check"
    assert report["summary"]["documents"] == 2
    paths = [d["path"] for d in report["documents"]]
    assert paths == sorted(paths)
    broken = next(d for d in report["documents"] if d["path"].endswith("MoE-120B.yaml"))
    keys = [(f["line"], f["column"], f["rule"]) for f in broken["findings"]]
    assert keys == sorted(keys)
    assert broken["sha256"] == __import__("hashlib").sha256(BROKEN.read_bytes()).hexdigest()
    ref004 = next(f for f in broken["findings"] if f["rule"] == "REF004")
    assert ref004["pointer"] == "/meta/hardware/h20" and ref004["line"] == 18


def test_strict_turns_warnings_into_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    recipe = root / "models" / "example-org" / "Example-Chat-8B.yaml"
    recipe.write_text(recipe.read_text().replace("related_recipes: []",
                                                 'related_recipes: ["example-org/Nope"]'))
    assert main([str(recipe)]) == 0
    assert "warning REF013" in capsys.readouterr().out
    assert main(["--strict", str(recipe)]) == 1
    assert "error REF013" in capsys.readouterr().out


def test_missing_path_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["/nonexistent/recipe.yaml"]) == 2
    err = capsys.readouterr().err
    assert "/nonexistent/recipe.yaml: no such file or folder" in err and "Traceback" not in err


def test_bad_option_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--format", "nope", "x"])
    assert exc.value.code == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("usage: recipe-check check ")
    assert "error: argument --format: invalid choice: 'nope'" in out.err


def test_file_outside_any_recipes_root_is_a_usage_error(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    lone = tmp_path / "lone.yaml"
    lone.write_text("meta: {}\n")
    assert main([str(lone)]) == 2
    assert "no recipes root" in capsys.readouterr().err


def test_rules_lists_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule_id in ("YAML001", "SCHEMA001", "REF001", "REF013"):
        assert rule_id in out


def test_python_dash_m_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m validator`` is the command line: same exit status and report as
    :func:`validator.cli.main` in this process."""
    proc = subprocess.run([sys.executable, "-m", "validator", str(CLEAN)], capture_output=True,
                          text=True, cwd=PROJECT)
    assert proc.returncode == 0, proc.stderr
    assert main([str(CLEAN)]) == 0
    assert proc.stdout == capsys.readouterr().out
    assert proc.stdout.endswith("1 file(s) checked: 0 error(s), 0 warning(s), 0 info(s)\n")
    assert proc.stderr == ""


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["rules", "--format", "json"],
                                  ["--format", "sarif", str(EXAMPLES / "models")]])
def test_a_reader_that_went_away_gets_no_traceback(args: list[str]) -> None:
    """``recipe-check ... | head -0``: the pipe is closed before anything is written
    (Python's start-up takes longer than closing it)."""
    proc = subprocess.Popen([sys.executable, "-m", "validator", *args], cwd=PROJECT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_a_reader_that_leaves_after_one_line_gets_141() -> None:
    """``recipe-check ... | head -1``: the first line is read, then the pipe closes while
    output is still being written."""
    # the JSON catalogue (~90 KB) is more than a pipe holds, so the writer is still writing
    proc = subprocess.Popen([sys.executable, "-m", "validator", "rules", "--format", "json"],
                            cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE
    assert err == "", err


def test_an_empty_selector_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--select", "", str(CLEAN)]) == 2
    assert "--select '': names no rule" in capsys.readouterr().err
    assert main(["check", "--ignore", " , ", str(CLEAN)]) == 2
    out = capsys.readouterr()
    assert "--ignore ' , ': names no rule" in out.err and out.out == ""


def test_max_bytes_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--max-bytes", "-1", str(CLEAN)])
    assert exc.value.code == 2
    out = capsys.readouterr()
    assert "error: argument --max-bytes: must be at least 1, got -1" in out.err
    assert out.out == ""


def test_output_write_failure_names_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--output", "/dev/full", str(CLEAN)]) == 2
    assert "/dev/full: No space left on device" in capsys.readouterr().err


def test_text_output_escapes_invisible_characters(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    recipe = root / "models" / "example-org" / "Example-Chat-8B.yaml"
    recipe.write_text(recipe.read_text().replace("difficulty: beginner",
                                                 "difficulty: \"begin\u202eren\""))
    assert main([str(recipe)]) == 1
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\\u202e" in out


def test_snapshot_verify_refuses_a_missing_store(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "verify", "--snapshot-dir", str(tmp_path / "nope")]) == 2
    assert "no snapshot store here" in capsys.readouterr().err


def test_links_and_special_files_in_a_folder_walk_are_refused_not_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    models = root / "models" / "example-org"
    (models / "Example-MoE-120B.yaml").unlink()
    (models / "evil.yaml").symlink_to("/etc/passwd")
    os.mkfifo(models / "pipe.yaml")
    out = tmp_path / "f.json"
    assert main(["--format", "json", "--output", str(out), str(root / "models")]) == 1
    report = json.loads(out.read_text())
    refused = {d["path"]: [f["rule"] for f in d["findings"]] for d in report["documents"]
               if d["path"] != "models/example-org/Example-Chat-8B.yaml"}
    assert refused == {"models/example-org/evil.yaml": ["PROV005"],
                       "models/example-org/pipe.yaml": ["PROV005"]}
    findings_schema().validate(report)


def test_history_with_a_path_matching_nothing_is_a_usage_error(
    corpus_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["history", "--repo", str(corpus_repo), "--cache-dir", str(tmp_path),
                 "models/zai-org/GLM-5.2.yml"])
    assert code == 2
    assert "no recipe in the audited history matches" in capsys.readouterr().err


def test_findings_per_rule_are_capped(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    recipe = root / "models" / "example-org" / "Example-Chat-8B.yaml"
    related = "".join(f'\n    - "example-org/Missing-{i}"' for i in range(150))
    recipe.write_text(recipe.read_text().replace("related_recipes: []",
                                                 "related_recipes:" + related))
    out = tmp_path / "f.json"
    main(["--format", "json", "--output", str(out), str(recipe)])
    findings = json.loads(out.read_text())["documents"][0]["findings"]
    ref013 = [f for f in findings if f["rule"] == "REF013"]
    assert len(ref013) == 101
    assert "not shown" in ref013[-1]["message"]


def test_no_arguments_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "commands:" in err and "  history " in err and "required: PATH" not in err


def test_fix_and_diff_together_is_a_usage_error(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(EXAMPLES, root)
    before = {p: p.read_bytes() for p in root.rglob("*.yaml")}
    assert main(["--fix", "--diff", str(root / "models")]) == 2
    assert "choose one" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in root.rglob("*.yaml")} == before


def test_render_all_counts_what_it_printed(capsys: pytest.CaptureFixture[str]) -> None:
    recipe = next((EXAMPLES / "models").rglob("*.yaml"))
    main(["render", "--all", "--format", "json", str(recipe)])
    shown = [c for c in json.loads(capsys.readouterr().out) if c["ok"]]
    main(["render", "--all", str(recipe)])
    assert f"{len(shown)} configuration(s) of 1 recipe(s) rendered" in capsys.readouterr().err
