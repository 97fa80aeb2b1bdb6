"""``recipe-check rules`` says where each rule lives: the file and line of its check (or
of the ``declare`` call of a stage rule) and of its fix, so that a reader finds a rule
from its id."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_in_process import run_cli

PROJECT = Path(__file__).resolve().parents[1]


def catalogue() -> list[dict[str, object]]:
    proc = run_cli("rules", "--format", "json", cwd=PROJECT)
    assert proc.returncode == 0, proc.stderr
    entries: list[dict[str, object]] = json.loads(proc.stdout)
    return entries


def _line(where: object) -> str:
    assert isinstance(where, str)
    path, line = where.rsplit(":", 1)
    lines = (PROJECT / path).read_text("utf-8").splitlines()
    # the decorator (or the declare call) stands on the named line or just above it
    return "\n".join(lines[max(0, int(line) - 3):int(line) + 1])


def test_every_rule_names_the_line_that_declares_it() -> None:
    for entry in catalogue():
        assert str(entry["id"]) in _line(entry["where"]), entry["id"]


def test_a_fixable_rule_names_its_fix_and_the_others_none() -> None:
    entries = {str(e["id"]): e for e in catalogue()}
    assert entries["FLAG001"]["fix_where"] is None
    fixable = [e for e in entries.values() if e["fix"]]
    assert fixable
    for entry in fixable:
        where = entry["fix_where"]
        assert isinstance(where, str)
        # beside its rule, in the rule's family folder (never in the fix engine)
        family = str(entry["family"]).lower()
        assert where.startswith(f"validator/rules/{family}/"), (entry["id"], where)
        assert (PROJECT / where.rsplit(":", 1)[0]).is_file()


def test_every_rule_names_its_module_and_a_moved_family_its_folder() -> None:
    from validator.rule_index import FAMILY_FOLDERS

    entries = catalogue()
    for entry in entries:
        module, where = entry["module"], entry["where"]
        assert isinstance(module, str) and isinstance(where, str)
        assert where.startswith(module + ":"), entry["id"]
        assert (PROJECT / module).is_file(), module
        family = str(entry["family"]).lower()
        if family in FAMILY_FOLDERS:
            assert module.startswith(f"validator/rules/{family}/"), entry["id"]
    by_id = {str(e["id"]): e["module"] for e in entries}
    assert by_id["REF019"] == "validator/rules/ref/model_id.py"
    assert by_id["YAML002"] == "validator/rules/yaml/duplicate_keys.py"
    assert by_id["ENV001"] == "validator/rules/env/misspelled_variable.py"
    assert by_id["FLAG001"] == "validator/rules/flag/unknown_option.py"
    assert by_id["GUIDE013"] == "validator/rules/guide/fences.py"
    assert by_id["VER002"] == "validator/rules/ver/docker_image.py"
    # the fix of a moved rule is beside it, in its family's folder
    fixes = {str(e["id"]): e["fix_where"] for e in entries}
    assert str(fixes["REF019"]).startswith("validator/rules/ref/model_id.py:")
    assert str(fixes["YAML003"]).startswith("validator/rules/yaml/fixes.py:")
    assert str(fixes["GUIDE013"]).startswith("validator/rules/guide/fences.py:")
    assert str(fixes["VER002"]).startswith("validator/rules/ver/docker_image.py:")
