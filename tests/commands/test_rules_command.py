"""``recipe-check rules ID...``: the rules a finding names, as ruff's ``ruff rule F401``
(one alone with its description), by id or prefix; an id that names no rule is a usage
error with the ids it may mean."""

from __future__ import annotations

import json

from tests.cli_in_process import run_cli


def test_one_rule_is_shown_with_its_description() -> None:
    done = run_cli("rules", "GUIDE011")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("GUIDE011 ") and "structured_args_agree.py" in lines[1]
    assert "does not compare" in done.stdout or "--tool-call-parser" in done.stdout
    assert not any(line.startswith(("GUIDE010 ", "FLAG001 ")) for line in lines)


def test_a_prefix_lists_its_rules_and_json_keeps_the_selection() -> None:
    done = run_cli("rules", "ver01", "RC001")
    ids = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert ids and all(i.startswith("VER01") or i == "RC001" for i in ids) and "RC001" in ids
    assert "defined in" not in done.stdout  # several: the short catalogue
    shown = json.loads(run_cli("rules", "--format", "json", "FLAG028").stdout)
    assert [r["id"] for r in shown] == ["FLAG028"]


def test_an_id_of_no_rule_is_a_usage_error_with_close_ids() -> None:
    done = run_cli("rules", "GUIDE999")
    assert done.returncode == 2 and "'GUIDE999' names no rule (did you mean GUIDE0" in \
        done.stderr and "Traceback" not in done.stderr
