"""One computation of js-yaml's timestamps: the loader's ISO text (YAML011) and the date
the site's API writes (``render --api-out``) agree with js-yaml under Node, years before
1000 included (four digits, as ``toISOString`` writes them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.render.conftest import require_node_tools
from tests.render.js_yaml_oracle import js_yaml_load
from validator.cli import main
from validator.load.builder import _date_text
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


def test_the_date_text_an_env_value_shows_is_javascripts_string_of_the_date() -> None:
    """YAML011 quotes what the site prints for a Date env value: ``String(date)`` on a UTC
    build machine; JavaScript writes years before 1000 with four digits (``0500``)."""
    require_node_tools()
    isos = [iso for iso in map(js_timestamp_iso, STAMPS) if iso is not None]
    assert len(isos) == len(STAMPS)
    script = ("const isos = JSON.parse(process.argv[1]);"
              "console.log(JSON.stringify(isos.map((s) => String(new Date(s)))));")
    done = subprocess.run(["node", "-e", script, json.dumps(isos)], capture_output=True,
                          text=True, check=True, timeout=60, env={**os.environ, "TZ": "UTC"})
    assert [_date_text(iso) for iso in isos] == json.loads(done.stdout)
    assert _date_text(isos[0]).startswith("Fri Jan 01 0500 ")
