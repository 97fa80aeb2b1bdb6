"""``--as-of DATE``: a date before the first vendored vLLM release is a usage error that
names the first release's date; a date after the newest release judges with them all."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from validator.cli import main
from validator.releases import load_vendored

RECIPE = ('meta:\n  title: "Tiny-1B"\nmodel:\n  model_id: "org/Tiny-1B"\n'
          '  min_vllm_version: "0.12.0"\n  base_args: ["--trust-remote-codes"]\n')


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
         ) -> tuple[int, str, str]:
    recipe = tmp_path / "models" / "org" / "Tiny-1B.yaml"
    recipe.parent.mkdir(parents=True, exist_ok=True)
    recipe.write_text(RECIPE)
    (tmp_path / "taxonomy.yaml").write_text("hardware_profiles: {}\n")
    (tmp_path / "strategies").mkdir(exist_ok=True)
    (tmp_path / "strategies" / "single_node_tp.yaml").write_text("name: single_node_tp\n")
    code = main(["check", "--offline", "--format", "json", *extra, str(recipe)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_date_before_the_first_release_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = min(load_vendored().releases, key=lambda r: r.uploaded)
    day = first.uploaded.date()
    before = (day - timedelta(days=1)).isoformat()
    code, out, err = _run(tmp_path, capsys, "--as-of", before)
    assert code == 2 and out == ""
    assert f"--as-of {before}" in err and day.isoformat() in err and str(first.version) in err
    assert "Traceback" not in err


def test_the_first_release_day_and_a_future_date_are_accepted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    day = min(r.uploaded for r in load_vendored().releases).date().isoformat()
    code, _out, err = _run(tmp_path, capsys, "--as-of", day)
    assert code == 1, err  # judged (the recipe has errors), not refused
    plain = _run(tmp_path, capsys)
    future = _run(tmp_path, capsys, "--as-of", "2999-12-31")
    assert plain[0] == future[0] == 1

    def findings(text: str) -> list[tuple[str, int, str]]:
        data = json.loads(text)
        return sorted((f["rule"], f["line"], f["message"]) for d in data["documents"]
                      for f in d["findings"])

    assert findings(plain[1]) == findings(future[1]) and findings(plain[1])
