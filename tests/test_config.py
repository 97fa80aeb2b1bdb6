"""Configuration (``.recipe-check.toml``, ``[tool.recipe-check]``), ``--select/--ignore``
and inline suppression comments, on a copy of the shipped example tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from validator.cli import main
from validator.config import ConfigError, parse_config
from validator.globs import compile_glob
from validator.rule_index import all_rules
from validator.rules.metadata import FAMILIES

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples" / "recipes"
MOE = "models/example-org/Example-MoE-120B.yaml"


@pytest.fixture()
def tree(examples_tree: Path) -> Path:
    return examples_tree


def run_json(tree: Path, capsys: pytest.CaptureFixture[str], *args: str,
             path: str = MOE) -> tuple[int, list[dict[str, Any]]]:
    code = main(["check", "--format", "json", *args, str(tree / path)])
    data = json.loads(capsys.readouterr().out)
    findings = [f for d in data["documents"] for f in d["findings"]]
    return code, findings


def rules_of(findings: list[dict[str, Any]]) -> set[str]:
    return {f["rule"] for f in findings}


def write_config(tree: Path, text: str, name: str = ".recipe-check.toml") -> Path:
    path = tree / name
    path.write_text(text, encoding="utf-8")
    return path


def test_default_reports_every_family(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = run_json(tree, capsys)
    assert code == 1
    assert {"REF004", "SCHEMA002", "VER010", "FLAG006", "GUIDE001"} <= rules_of(found)


def test_select_key_limits_to_a_family(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, 'select = ["ref"]\n')
    code, found = run_json(tree, capsys)
    assert code == 1 and found
    assert {r[:3] for r in rules_of(found)} == {"REF"}


def test_ignore_key_and_more_specific_select_wins(tree: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, 'ignore = ["REF"]\nextend-select = ["REF004"]\n')
    _, found = run_json(tree, capsys)
    refs = {r for r in rules_of(found) if r.startswith("REF")}
    assert refs == {"REF004"}  # REF004 (6 characters) beats REF (3)
    assert "SCHEMA002" in rules_of(found)


def test_extend_select_adds_to_select(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, 'select = ["SCHEMA"]\nextend-select = ["ver010"]\n')
    _, found = run_json(tree, capsys)
    assert rules_of(found) == {"SCHEMA002", "VER010"}


def test_severity_key_per_rule_and_family(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, '[severity]\nREF = "warning"\nREF004 = "info"\nVER010 = "error"\n')
    _, found = run_json(tree, capsys)
    by_rule = {f["rule"]: f["severity"] for f in found}
    assert by_rule["REF004"] == "info" and by_rule["REF019"] == "warning"
    assert by_rule["VER010"] == "error"
    # --strict still raises a configured warning to an error
    _, strict = run_json(tree, capsys, "--strict")
    assert {f["rule"]: f["severity"] for f in strict}["REF019"] == "error"


def test_per_file_ignores_key_with_globs(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, '[per-file-ignores]\n"models/**/*-MoE-*.yaml" = ["REF", "GUIDE"]\n'
                       '"Example-Chat-8B.yaml" = ["ALL"]\n')
    _, found = run_json(tree, capsys)
    assert not {r for r in rules_of(found) if r.startswith(("REF", "GUIDE"))}
    assert "SCHEMA002" in rules_of(found)
    assert compile_glob("models/**/*.yaml").match("models/a/b/c.yaml")
    assert compile_glob("*.yaml").match("models/a/c.yaml")
    assert not compile_glob("models/*.yaml").match("models/a/c.yaml")


def test_pyproject_table_is_read(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, '[project]\nname = "x"\n\n[tool.recipe-check]\nselect = ["SCHEMA002"]\n',
                 "pyproject.toml")
    _, found = run_json(tree, capsys)
    assert rules_of(found) == {"SCHEMA002"}


def test_dot_file_wins_over_pyproject(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, '[tool.recipe-check]\nselect = ["SCHEMA002"]\n', "pyproject.toml")
    write_config(tree, 'select = ["VER010"]\n')
    _, found = run_json(tree, capsys)
    assert rules_of(found) == {"VER010"}


def test_cli_select_replaces_and_ignore_adds(tree: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    write_config(tree, 'select = ["SCHEMA"]\nignore = ["VER010"]\n')
    _, found = run_json(tree, capsys, "--select", "ver,flag006")
    assert rules_of(found) == {"FLAG006"} | {r for r in rules_of(found) if r.startswith("VER")}
    assert "VER010" not in rules_of(found) and "SCHEMA002" not in rules_of(found)
    _, found = run_json(tree, capsys, "--ignore", "schema002")
    assert not rules_of(found) - {"SCHEMA001", "SCHEMA003"}


def test_rule_option_accepts_stage_rules(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = run_json(tree, capsys, "--rule", "SCHEMA002")
    assert code == 1 and rules_of(found) == {"SCHEMA002"}


def test_explicit_config_option(tree: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text('select = ["VER010"]\n', encoding="utf-8")
    write_config(tree, 'select = ["SCHEMA002"]\n')
    _, found = run_json(tree, capsys, "--config", str(cfg))
    assert rules_of(found) == {"VER010"}


def test_every_catalogue_id_and_family_is_accepted(tree: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in listed} == {r.id for r in all_rules()}
    assert {r["family"] for r in listed} == set(FAMILIES)
    clean = str(tree / "models/example-org/Example-Chat-8B.yaml")
    # one run selects them all: each --select is read on its own (an unknown one is a
    # usage error, exit 2, naming it), and the clean recipe passes the union of the
    # selections, so it passes each (one check of the recipe, not one per selector)
    selectors = [r["id"] for r in listed] + list(FAMILIES) + [f.lower() for f in FAMILIES]
    code = main(["check", *(a for s in selectors for a in ("--select", s)), clean])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize(("text", "line", "words"), [
    ('select = ["REF"\nignore = []\n', 2, "not valid TOML"),
    ('ignore = []\nselect = ["REF"\n', 2, "Unclosed array at the end of the file"),
    ('select = ["REF"]\n\nignroe = ["FLAG"]\n', 3, "unknown key 'ignroe'"),
    ('select = [\n  "REF",\n  "FLAG999",\n]\n', 3, "unknown rule or family 'FLAG999'"),
    ('[severity]\nREF001 = "fatal"\n', 2, "must be \"error\", \"warning\" or \"info\""),
    ('\nfail-on = "some"\n', 2, "fail-on must be"),
    ('[per-file-ignores]\n"models/**" = ["NOPE"]\n', 2, "unknown rule or family 'NOPE'"),
    ('\nselect = "REF"\n', 2, "select must be a list of rule ids, not str 'REF'"),
    ('[per-file-ignores]\n"[" = ["VER"]\n', 2, "opens no class"),
    ('[per-file-ignores]\n"models/**" = "VER"\n', 2, "must be a list of rule ids"),
    ('[severity]\nVER003 = "info"\nver003 = "error"\n', 3,
     "'ver003' and 'VER003' name the same selector VER003"),
])
def test_bad_config_is_a_usage_error_with_file_and_line(
        tree: Path, capsys: pytest.CaptureFixture[str], text: str, line: int,
        words: str) -> None:
    path = write_config(tree, text)
    assert main(["check", str(tree / MOE)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: " in err and words in err, err
    assert "Traceback" not in err


def test_bad_pyproject_table_names_its_line() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(b'[project]\nname = "x"\n[tool.recipe-check]\nselec = ["REF"]\n',
                     "pyproject.toml")
    assert str(info.value).startswith("pyproject.toml:4: unknown key 'selec'")
    assert parse_config(b'[project]\nname = "x"\n', "pyproject.toml") is None


def test_unknown_cli_selector_is_a_usage_error(tree: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--ignore", "FLAG9999", str(tree / MOE)]) == 2
    assert "unknown rule or family 'FLAG9999'" in capsys.readouterr().err


def edit(tree: Path, old: str, new: str) -> None:
    file = tree / MOE
    text = file.read_text(encoding="utf-8")
    assert old in text, old
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_suppression_on_the_line(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "    h20: verified\n", "    h20: verified  # recipe-check: ignore[ref004]\n")
    _, found = run_json(tree, capsys)
    assert "REF004" not in rules_of(found)
    assert not rules_of(found) & {"RC001", "RC002", "RC003"}


def test_suppression_on_the_line_above(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, '  model_id: "example-org/Example-MoE-120b"\n',
         '  # recipe-check: ignore[REF019, VER010]\n  model_id: "example-org/Example-MoE-120b"\n')
    _, found = run_json(tree, capsys)
    assert "REF019" not in rules_of(found)
    (unused,) = [f for f in found if f["rule"] == "RC001"]  # VER010 is on another line
    assert unused["line"] == 21 and unused["severity"] == "warning"
    assert unused["message"] == "suppression of VER010 suppresses nothing on line 22"


def test_trailing_suppression_does_not_reach_the_next_line(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "    b200: verified\n", "    b200: verified  # recipe-check: ignore[REF004]\n")
    _, found = run_json(tree, capsys)
    assert "REF004" in rules_of(found)
    assert [f["line"] for f in found if f["rule"] == "RC001"] == [17]


def test_ignore_file_suppression(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "meta:\n", "# recipe-check: ignore-file[GUIDE, ref]\nmeta:\n")
    _, found = run_json(tree, capsys)
    assert not {r for r in rules_of(found) if r.startswith(("GUIDE", "REF"))}
    assert "SCHEMA002" in rules_of(found) and "RC001" not in rules_of(found)


def test_unknown_and_malformed_suppressions(tree: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "    h20: verified\n", "    h20: verified  # recipe-check: ignore[FLAG999]\n")
    edit(tree, "  difficulty: expert\n", "  difficulty: expert  # recipe-check: ignore\n")
    _, found = run_json(tree, capsys)
    rc = {f["rule"]: f for f in found if f["rule"].startswith("RC")}
    assert rc["RC002"]["line"] == 18 and "'FLAG999' is not a rule id" in rc["RC002"]["message"]
    assert rc["RC003"]["line"] == 9
    assert {"REF004", "SCHEMA002"} <= rules_of(found)  # nothing was suppressed


def test_unused_suppression_of_a_rule_that_did_not_run_is_not_reported(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "  difficulty: expert\n", "  difficulty: expert  # recipe-check: ignore[VER010]\n")
    _, found = run_json(tree, capsys, "--select", "SCHEMA,RC")
    assert rules_of(found) == {"SCHEMA002"}
    _, found = run_json(tree, capsys)
    assert "RC001" in rules_of(found)


def test_rc_rules_obey_the_configuration(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "  difficulty: expert\n", "  difficulty: expert  # recipe-check: ignore[VER010]\n")
    write_config(tree, 'ignore = ["RC001"]\n')
    _, found = run_json(tree, capsys)
    assert "RC001" not in rules_of(found)


def test_rc_findings_follow_strict(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(tree, "  difficulty: expert\n", "  difficulty: expert  # recipe-check: ignore[VER010]\n")
    _, found = run_json(tree, capsys, "--strict")
    assert {f["rule"]: f["severity"] for f in found}["RC001"] == "error"


def test_a_partial_family_name_is_no_selector(tree: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``R`` would silence REF and RC alike; only whole families and id prefixes select."""
    assert main(["check", "--ignore", "R", str(tree / MOE)]) == 2
    assert "unknown rule or family 'R'" in capsys.readouterr().err
    _, found = run_json(tree, capsys, "--select", "REF00")
    assert rules_of(found) == {r for r in rules_of(found) if r.startswith("REF00")} != set()


def test_a_bom_and_crlf_config_is_read(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A UTF-8 byte order mark (Windows editors) is dropped; CR LF is TOML already."""
    (tree / ".recipe-check.toml").write_bytes(b'\xef\xbb\xbfselect = ["SCHEMA"]\r\n')
    main(["check", "--format", "json", str(tree / MOE)])
    out = capsys.readouterr()
    assert "not valid TOML" not in out.err
    rules = {f["rule"] for d in json.loads(out.out)["documents"] for f in d["findings"]}
    assert rules <= {r for r in rules if r.startswith(("SCHEMA", "PROV", "YAML"))}
