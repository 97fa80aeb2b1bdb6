"""One computation of js-yaml's timestamps: the loader's ISO text (YAML011) and the date
the site's API writes (``render --api-out``) agree with js-yaml under Node, years before
1000 included (four digits, as ``toISOString`` writes them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.render.js_yaml_oracle import js_yaml_load
from validator.cli import main
from validator.load.scalars import js_timestamp_iso
from validator.render.api_inputs import js_date_text

STAMPS = ["0500-01-01", "0999-12-31 23:30:00 -02:00", "0100-02-29", "0050-03-01",
          "2024-02-30", "2024-12-31T23:59:59.999-00:30", "1000-01-01T00:00:00+01"]


def test_iso_and_date_text_are_js_yamls(site_dir: Path, tmp_path: Path) -> None:
    theirs = [r["data"]["v"] for r in js_yaml_load(site_dir, tmp_path,
                                                   [f"v: {s}\n" for s in STAMPS])]
    assert [{"date": js_timestamp_iso(s)} for s in STAMPS] == theirs
    assert [js_date_text(s) for s in STAMPS] == [t["date"][:10] for t in theirs]
    assert js_date_text("0500-01-01") == "0500-01-01"


def test_a_flag_value_dated_before_1000_is_a_finding_not_a_traceback(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = examples_tree / "models/example-org/Example-Chat-8B.yaml"
    text = recipe.read_text("utf-8")
    assert '    - "32768"\n' in text
    recipe.write_text(text.replace('    - "32768"\n', "    - 0500-01-01\n", 1), "utf-8")
    code = main(["check", "--offline", "--format", "json", str(recipe)])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.err
    assert "YAML011" in out.out and "0500-01-01T00:00:00.000Z" in out.out
