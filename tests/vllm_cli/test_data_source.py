"""The CLI registries are a data source passed in: the run reads the folder its settings
name (``Settings.vendored_dir``), never a module constant, and holds its caches itself."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from validator.analysis import cli_plan
from validator.context import Context, Settings
from validator.findings import Finding
from validator.paths import SNAPSHOTS_DIR
from validator.rule_index import check_rules
from validator.session import Session
from validator.source.tree import LocalTree
from validator.vllm_cli.data_source import CliRegistries, Window
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR, INDEX_NAME, RegistryError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
RECIPE = "models/example-org/Example-Chat-8B.yaml"
#: Only in releases from 0.12.0 on (absent from 0.10.0 and 0.10.1).
NEW_OPTION = "--enable-dbo"


def _vendored_folder(root: Path, releases: tuple[str, ...]) -> Path:
    """A vendored data folder holding only ``releases`` of the project's vLLM registries
    (their files and digest pins) and the project's release list."""
    folder = root / "vllm-cli"
    folder.mkdir(parents=True)
    pins = json.loads((DEFAULT_REGISTRY_DIR / INDEX_NAME).read_text())
    for release in releases:
        shutil.copy(DEFAULT_REGISTRY_DIR / f"{release}.json", folder)
    (folder / INDEX_NAME).write_text(json.dumps({r: pins[r] for r in releases}))
    for name in ("vllm-releases.json", "vllm-releases.sha256"):
        shutil.copy(SNAPSHOTS_DIR / name, root)
    return root


def _recipes(root: Path) -> Path:
    """The example recipes tree, its chat recipe passing :data:`NEW_OPTION`."""
    shutil.copytree(EXAMPLES, root)
    path = root / RECIPE
    text = path.read_text()
    old = '    - "--max-model-len"\n'
    assert old in text
    path.write_text(text.replace(old, f'    - "{NEW_OPTION}"\n{old}', 1))
    return root


def _findings(recipes: Path, settings: Settings) -> list[Finding]:
    session = Session(settings, check_rules())
    result = session.check_targets([(LocalTree(recipes), RECIPE)])
    assert not result.internal_errors, result.internal_errors
    return result.all_findings()


def _about_option(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity.value == "error" and NEW_OPTION in f.message]


def test_a_check_verdict_follows_the_settings_folder(tmp_path: Path) -> None:
    recipes = _recipes(tmp_path / "recipes")
    assert _about_option(_findings(recipes, Settings())) == []

    vendored = _vendored_folder(tmp_path / "vendored", ("0.10.0", "0.10.1"))
    errors = _about_option(_findings(recipes, Settings(vendored_dir=vendored)))
    assert errors, "the option is unknown to every release of the settings' folder"
    assert any("0.10.1" in f.message for f in errors), [f.message for f in errors]


def test_the_session_builds_one_data_source_from_the_settings(tmp_path: Path) -> None:
    vendored = _vendored_folder(tmp_path / "vendored", ("0.10.0", "0.10.1"))
    session = Session(Settings(vendored_dir=vendored), check_rules())
    assert session.cli.folder == vendored / "vllm-cli"
    opened = session.open(LocalTree(_recipes(tmp_path / "recipes")))
    assert opened is not None and opened.context.cli is session.cli
    assert opened.context.limited_to(()).cli is session.cli
    cli = opened.context.cli
    assert [str(v) for v in cli_plan.versions(cli)] == ["0.10.0", "0.10.1"]
    assert cli_plan.plan_for(cli, "0.12.0").minimum is not None
    assert cli_plan.plan_for(cli, "0.12.0").label == "0.12.0 (checked against 0.10.1)"
    assert str(cli_plan.versions(CliRegistries())[-1]) != "0.10.1"  # the project's


def test_caches_are_state_of_each_data_source(tmp_path: Path) -> None:
    small = CliRegistries.from_settings(
        Settings(vendored_dir=_vendored_folder(tmp_path / "a", ("0.10.0",))))
    other = CliRegistries.from_settings(
        Settings(vendored_dir=_vendored_folder(tmp_path / "b", ("0.10.1",))))
    top = cli_plan.newest(small)
    assert top is not None and top.version == "0.10.0"
    top = cli_plan.newest(other)
    assert top is not None and top.version == "0.10.1"
    assert small.versions() == small.versions("vllm", None)
    assert CliRegistries.from_settings(Settings()).folder == DEFAULT_REGISTRY_DIR


def test_the_digest_changes_with_the_registries(tmp_path: Path) -> None:
    vendored = _vendored_folder(tmp_path / "v", ("0.10.0",))
    cli = CliRegistries.from_settings(Settings(vendored_dir=vendored))
    before = cli.digest()
    assert CliRegistries.from_settings(Settings(vendored_dir=vendored)).digest() == before
    index = vendored / "vllm-cli" / INDEX_NAME
    pins = json.loads(index.read_text())
    index.write_text(json.dumps({**pins, "0.10.1": "0" * 64}))
    assert cli.digest() != before


def test_a_tampered_registry_of_the_settings_folder_is_refused(tmp_path: Path) -> None:
    vendored = _vendored_folder(tmp_path / "v", ("0.10.0",))
    target = vendored / "vllm-cli" / "0.10.0.json"
    target.write_bytes(target.read_bytes().replace(b"--max-model-len", b"--max-model-lex", 1))
    cli = CliRegistries.from_settings(Settings(vendored_dir=vendored))
    with pytest.raises(RegistryError, match="does not match the pin"):
        cli.registry("0.10.0")


def test_the_history_cache_key_follows_the_settings_registries(tmp_path: Path) -> None:
    from validator.history.keys import tool_digest

    vendored = _vendored_folder(tmp_path / "v", ("0.10.0",))
    settings = Settings(vendored_dir=vendored)
    before = tool_digest(settings)
    assert before != tool_digest(Settings())
    index = vendored / "vllm-cli" / INDEX_NAME
    index.write_text(index.read_text() + "\n")
    assert tool_digest(settings) != before


@pytest.mark.parametrize("command", [["fetch"], ["snapshot", "verify"], ["publish"]])
def test_the_store_option_has_one_name_and_keeps_its_old_spelling(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from validator.source.options import add_store_dir

    parser = argparse.ArgumentParser()
    add_store_dir(parser, "store")
    assert parser.parse_args(["--snapshot-dir", "x"]).store_dir == Path("x")
    assert parser.parse_args(["--store-dir", "y"]).store_dir == Path("y")
    from validator.cli import main

    with pytest.raises(SystemExit):
        main([*command, "--help"])
    shown = capsys.readouterr().out
    assert "--store-dir" in shown and "--snapshot-dir" not in shown


def test_two_runs_in_one_process_read_their_own_registries_and_windows(tmp_path: Path) -> None:
    """A rule, called with a context, reads that context's CLI registries and release
    window, whatever other run was checked before or after it in the same process: no
    run state is kept beside the context (a rule called outside a checker once read a
    fresh data source over the project's folder, every release)."""
    from datetime import date

    from packaging.version import Version

    from validator.analysis.install_range import described_ranges
    from validator.context import build_context
    from validator.load import load_yaml
    from validator.rule_index import rule_by_id

    recipes = _recipes(tmp_path / "recipes")
    doc = load_yaml((recipes / RECIPE).read_bytes(), RECIPE)
    tree = LocalTree(recipes)
    small = build_context(tree, Settings(vendored_dir=_vendored_folder(tmp_path / "v",
                                                                       ("0.10.0", "0.10.1"))))
    early = build_context(tree, Settings(as_of=date(2025, 12, 10)))
    every = build_context(tree, Settings())
    unknown = rule_by_id("FLAG001")
    assert unknown.check is not None

    def about_option(ctx: Context) -> list[str]:
        assert unknown.check is not None
        return [h.message for h in unknown.check(doc, ctx) if NEW_OPTION in h.message]

    for _ in range(2):  # interleaved: neither run leaks into the next
        assert about_option(small), "unknown to every release of the small folder"
        assert about_option(every) == []
        assert about_option(early) == []
    assert cli_plan.versions(early.cli)[-1] == Version("0.12.0")  # published by 2025-12-10
    assert cli_plan.versions(every.cli)[-1] > Version("0.12.0")
    assert [r["as_of"] for r in described_ranges(doc, early) or []][:1] == ["2025-12-10"]
    assert [r["as_of"] for r in described_ranges(doc, every) or []][:1] == [None]


def test_a_context_sees_the_shared_registries_through_its_own_window() -> None:
    from datetime import date

    shared = CliRegistries()
    early = shared.at(Window(as_of=date(2025, 12, 10)))
    assert early is not shared and early.window.as_of == date(2025, 12, 10)
    assert shared.at(shared.window) is shared
    assert early.registry("0.12.0") is shared.registry("0.12.0")  # one loaded file
    assert early.versions("vllm", early.window.as_of) != shared.versions()


def _computed(cli: CliRegistries, keys: range, limit: int) -> list[int]:
    """The keys of ``keys`` whose value ``cli.bounded`` computed (not found kept)."""
    made: list[int] = []

    def compute(k: int) -> int:
        made.append(k)
        return k

    for k in keys:
        cli.bounded("test:space", k, lambda k=k: compute(k), limit=limit)  # type: ignore[misc]
    return made


def test_keep_more_makes_the_registries_and_their_views_keep_more_values() -> None:
    from datetime import date

    default = CliRegistries()
    _computed(default, range(12), limit=4)
    assert _computed(default, range(12), limit=4) == list(range(12))  # kept 4 at most

    shared = CliRegistries()
    shared.keep_more(3)
    view = shared.at(Window(as_of=date(2025, 12, 10)))
    assert _computed(view, range(12), limit=4) == list(range(12))
    assert _computed(shared, range(12), limit=4) == []  # all 12 kept, shared with the view
    assert _computed(view, range(12, 13), limit=4) == [12]


def test_a_choice_typo_of_an_option_no_release_lists_values_for_builds_no_registry() -> None:
    from validator.analysis.option_hints import choice_typo

    cli = CliRegistries()
    assert choice_typo(cli, "--port", "8001") is None
    assert choice_typo(cli, "--tensor_parallel_size", "8") is None
    assert cli._registries == {}  # the shipped option table told: nothing to walk
    # an option some release lists values for is still walked, in any spelling
    assert choice_typo(cli, "--load_format", "safetensor") == "safetensors"
    assert choice_typo(cli, "--tokenizer-mode", "mistrall") == "mistral"
    assert len(cli._registries) == len(cli_plan.versions(cli))


def test_a_folder_not_built_from_the_shipped_table_is_walked(tmp_path: Path) -> None:
    from validator.analysis.option_hints import choice_typo

    root = _vendored_folder(tmp_path, ("0.10.0", "0.12.0"))
    cli = CliRegistries.from_settings(Settings(vendored_dir=root))
    assert cli.shipped_options() is None
    assert choice_typo(cli, "--port", "8001") is None
    assert choice_typo(cli, "--load-format", "safetensor") == "safetensors"
    assert sorted(version for version, _ in cli._registries) == ["0.10.0", "0.12.0"]
