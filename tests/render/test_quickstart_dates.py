"""A quickstart ``hardware_profile`` js-yaml reads as a timestamp names the file by its
date: the site's build (Node, the oracle) turns the ``Date`` into the ``YYYY-MM-DD`` of
its UTC instant before it writes ``quickstart/<profile>.json`` (an invalid date rolls
over, an offset can move the day). ``check`` (``REF028``/``REF029``) judges that same name
and ``render --api-out`` writes it: no false "character Windows refuses" error, the
collision of a timestamp with a quoted date found, the real name shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.render.conftest import run_site_build
from tests.render.tiny_tree import write_tree
from validator.cli import main
from validator.load import load_yaml
from validator.render.api_inputs import site_data
from validator.render.api_paths import quickstart_profile

CASES = {
    "utc": ({"a.yaml": "hardware_profile: 2024-01-01T10:00:00Z\n"}, ["2024-01-01"]),
    "short": ({"a.yaml": "hardware_profile: 2024-1-1 1:00:00\n"}, ["2024-01-01"]),
    "fraction": ({"a.yaml": "hardware_profile: 2024-01-01t10:00:00.123456789-05:30\n"},
                 ["2024-01-01"]),
    "rollover": ({"a.yaml": "hardware_profile: 2024-13-45\n"}, ["2025-02-14"]),
    "offset": ({"a.yaml": "hardware_profile: 2024-01-01T01:00:00+05:00\n"}, ["2023-12-31"]),
    "twin": ({"a.yaml": "hardware_profile: 2024-01-01 10:00:00\n",
              "b.yaml": 'hardware_profile: "2024-01-01"\n'}, ["2024-01-01"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_check_and_render_name_a_timestamp_quickstart_file_as_the_site_build_does(
        case: str, site_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    files, names = CASES[case]
    tree = write_tree(tmp_path / "tree")
    for recipe in (tree / "models").rglob("*.yaml"):
        recipe.unlink()  # the taxonomy, strategies and kv store are what the build needs
    (tree / "quickstart").mkdir()
    for name, text in files.items():
        (tree / "quickstart" / name).write_text(text, "utf-8")
    site = run_site_build(site_dir, tree)
    assert site.ok, site.stderr
    written = sorted(p.name for p in (site.public / "quickstart").iterdir())
    assert written == [f"{n}.json" for n in names]  # the oracle
    main(["check", "--offline", "--no-cache", "--format", "json", "--select", "REF028,REF029",
          str(tree / "quickstart")])
    found = sorted((d["path"], f["rule"], f["message"])
                   for d in json.loads(capsys.readouterr().out)["documents"]
                   for f in d["findings"])
    if case == "twin":  # both written to one file, the later replacing the earlier
        assert [(p, r) for p, r, _ in found if r == "REF028"] == [
            ("quickstart/a.yaml", "REF028"), ("quickstart/b.yaml", "REF028")]
        assert all("also that of" in m and "quickstart/2024-01-01.json" in m
                   for _, r, m in found if r == "REF028")
    else:
        assert [(p, r) for p, r, _ in found] == [("quickstart/a.yaml", "REF029")], found
        assert f"hardware_profile '{names[0]}' (YAML reads '" in found[0][2]
        code = main(["render", "--api-out", str(tmp_path / "api"), str(tree)])
        assert code == 0, capsys.readouterr().err
        assert (tmp_path / "api" / "quickstart" / f"{names[0]}.json").read_bytes() == (
            site.public / "quickstart" / f"{names[0]}.json").read_bytes()
    ours = {quickstart_profile(site_data(load_yaml(text.encode(), name)))
            for name, text in files.items()}
    assert ours == set(names)
