"""Hostile command lines and trees (second trial): a report file that is an input, a
model_id that is no file name, folder links and non-recipe YAML under a checked folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from validator.cli import main

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"


@pytest.fixture()
def tree(examples_tree: Path) -> Path:
    return examples_tree


@pytest.mark.parametrize(("option", "victim"), [
    ("--output", RECIPE), ("--json", RECIPE), ("--sarif", "taxonomy.yaml"),
    ("--markdown", "strategies/single_node_tp.yaml"), ("--summary", RECIPE),
])
def test_a_report_file_that_is_an_input_is_refused_and_the_input_kept(
        tree: Path, option: str, victim: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = (tree / victim).read_bytes()
    assert main(["check", str(tree / RECIPE), option, str(tree / victim)]) == 2
    err = capsys.readouterr().err
    assert f"{option} {tree / victim}: is {tree / victim}, a file this run reads" in err
    assert (tree / victim).read_bytes() == before


def test_a_report_file_reached_through_a_link_or_a_config_file_is_refused(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tree.parent / "report.txt"
    link.symlink_to(tree / RECIPE)
    before = (tree / RECIPE).read_bytes()
    assert main(["check", str(tree / "models"), "--output", str(link)]) == 2
    assert "a file this run reads" in capsys.readouterr().err
    config = tree.parent / "rc.toml"
    config.write_text("ignore = []\n", "utf-8")
    assert main(["check", str(tree / RECIPE), "--config", str(config),
                 "--json", str(config)]) == 2
    assert f"--json {config}: is {config}" in capsys.readouterr().err
    assert (tree / RECIPE).read_bytes() == before and config.read_text() == "ignore = []\n"


def test_a_report_beside_the_inputs_is_written(tree: Path) -> None:
    out = tree / "report.json"
    assert main(["check", str(tree / RECIPE), "--format", "json", "--output", str(out)]) in (0, 1)
    assert json.loads(out.read_text("utf-8"))


def _ref001(tree: Path, model_id: str, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    recipe = tree / RECIPE
    text = recipe.read_text("utf-8")
    recipe.write_text(text.replace('model_id: "example-org/Example-Chat-8B"',
                                   f'model_id: "{model_id}"', 1), "utf-8")
    main(["check", str(recipe), "--format", "json", "--select", "REF001"])
    [finding] = json.loads(capsys.readouterr().out)["documents"][0]["findings"]
    return finding  # type: ignore[no-any-return]


@pytest.mark.parametrize(("model_id", "why"), [
    ("../../etc/passwd", "leaves the models/ folder ('..' segments) and the repository"),
    ("../Example-Chat-8B", "leaves the models/ folder ('..' segments)"),
    ("/etc/passwd", "is an absolute path, outside the repository"),
    ("example-org/sub/Example-Chat-8B", "is not of the form org/name"),
])
def test_ref001_hint_for_an_id_that_is_no_file_name_says_so(
        tree: Path, model_id: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    finding = _ref001(tree, model_id, capsys)
    assert finding["hint"].startswith("set model_id to 'example-org/Example-Chat-8B'; no "
                                      f"file can be renamed after '{model_id}': it {why}")
    assert "rename the file" not in finding["hint"]


def test_ref001_hint_for_a_plain_id_still_offers_the_rename(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finding = _ref001(tree, "other-org/Other-8B", capsys)
    assert finding["hint"] == ("rename the file to models/other-org/Other-8B.yaml or set "
                               "model_id to 'example-org/Example-Chat-8B'")


def test_a_folder_link_inside_the_root_is_named_not_passed_in_silence(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "models/alias-org").symlink_to("example-org")
    code = main(["check", str(tree / "models"), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert ("recipe-check: warning: models/alias-org: symbolic link to the folder "
            "models/example-org, not walked") in err
    paths = [d["path"] for d in json.loads(out)["documents"]]
    assert not any(p.startswith("models/alias-org") for p in paths)
    assert RECIPE in paths


def test_a_folder_link_leaving_the_root_is_a_prov005_error(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(tree / RECIPE, outside / "Stray.yaml")
    (tree / "models/stray-org").symlink_to(outside)
    assert main(["check", str(tree / "models"), "--format", "json"]) == 1
    docs = {d["path"]: d for d in json.loads(capsys.readouterr().out)["documents"]}
    [finding] = docs["models/stray-org"]["findings"]
    assert finding["rule"] == "PROV005" and finding["line"] == 1
    assert "resolves outside the recipes root" in finding["message"]


def test_yaml_the_site_does_not_read_as_a_recipe_is_left_out_and_named(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A workflow file is left out and named; ``platforms.yaml`` is context, checked with
    its own schema (issue 30: it was left out, so nothing in it was ever judged);
    ``quickstart/*.yaml`` is checked as a kind of its own (the site writes it into its
    API), reported only when it has findings."""
    (tree / "platforms.yaml").write_text("platforms:\n  - id: somewhere\n", "utf-8")
    (tree / ".github/workflows").mkdir(parents=True)
    (tree / ".github/workflows/ci.yaml").write_text("on: push\n", "utf-8")
    (tree / "quickstart").mkdir()
    (tree / "quickstart/h100.yaml").write_text("hardware_profile: h100\n", "utf-8")
    (tree / "quickstart/up.yaml").write_text("hardware_profile: ../models\n", "utf-8")
    code = main(["check", str(tree), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "recipe-check: note: not checked, not recipes: .github/workflows/ci.yaml (the " \
        "recipes site reads recipes from models/ only" in err
    assert "quickstart/" not in err.split("(the recipes", 1)[0]
    documents = {d["path"]: d for d in json.loads(out)["documents"]}
    assert RECIPE in documents and ".github/workflows/ci.yaml" not in documents
    assert {(f["rule"], f["line"]) for f in documents["platforms.yaml"]["findings"]} == {
        ("SCHEMA003", 2)}  # name and url are missing
    assert [f["rule"] for f in documents["quickstart/up.yaml"]["findings"]] == ["REF028"]
    assert main(["check", str(tree / "platforms.yaml")]) == 1
    assert main(["check", str(tree / ".github/workflows/ci.yaml")]) == 2
    assert "no recipes in" in capsys.readouterr().err
    assert main(["check", str(tree / "quickstart/up.yaml")]) == 1


def test_any_yaml_below_models_is_a_recipe_as_the_site_walks_it(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The site's build renders every .yaml below models/, so one that is no recipe
    there is reported, not left out."""
    (tree / "models/platforms.yaml").write_text("platforms: []\n", "utf-8")
    assert main(["check", str(tree / "models/platforms.yaml"), "--format", "json"]) == 1
    [doc] = json.loads(capsys.readouterr().out)["documents"]
    assert {f["rule"] for f in doc["findings"]} >= {"SCHEMA003"}
