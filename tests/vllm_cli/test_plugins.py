"""The vendored CLIs of vLLM-Omni and vLLM-Ascend (``snapshots/vllm-cli/<plugin>/``).

Expected answers were read from the released artifacts on PyPI (the vllm-omni wheels and
vllm-ascend sdists) and from the vendored vLLM registries the plugins are built on.
"""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

from validator.analysis import cli_plan
from validator.vllm_cli.data_source import CliRegistries
from validator.vllm_cli.plugins import ASCEND, OMNI, PLUGINS, base_vllm, select_releases
from validator.vllm_cli.registry import (
    INDEX_NAME,
    RegistryError,
    available_versions,
    load_registry,
)

PYPI_OMNI = ["0.11.0rc1", "0.12.0rc1", "0.14.0rc1", "0.14.0", "0.16.0", "0.18.0rc1", "0.18.0",
             "0.20.0rc1", "0.20.0", "0.21.0rc1", "0.22.0", "0.23.0rc1", "0.24.0rc1", "0.24.0"]


def test_release_selection_keeps_finals_and_the_newest_pre_release_of_other_minors() -> None:
    assert select_releases(OMNI, PYPI_OMNI) == [
        "0.11.0rc1", "0.12.0rc1", "0.14.0", "0.16.0", "0.18.0", "0.20.0", "0.21.0rc1",
        "0.22.0", "0.23.0rc1", "0.24.0"]
    assert select_releases(ASCEND, ["0.7.1rc1", "0.7.3rc2", "0.7.3", "0.7.3.post1",
                                    "0.10.0rc1", "0.10.2rc1", "0.10.1rc1", "1.0.dev1"]) == [
        "0.7.3", "0.7.3.post1", "0.10.2rc1"]


def test_each_plugin_release_is_built_on_the_vllm_release_of_its_number() -> None:
    vllm = ["0.19.0", "0.19.1", "0.21.0", "0.23.0", "0.25.0", "0.25.1"]
    assert base_vllm("0.21.0rc1", vllm) == "0.21.0"
    assert base_vllm("0.23.0.post1", vllm) == "0.23.0"
    assert base_vllm("0.19.1rc1", vllm) == "0.19.1"
    assert base_vllm("0.25.2rc1", vllm) == "0.25.1"  # no 0.25.2: the newest 0.25.x
    assert base_vllm("0.27.0", vllm) is None
    assert base_vllm("not-a-version", vllm) is None


def test_vendored_plugin_releases_and_their_base() -> None:
    omni = [str(v) for v in available_versions(OMNI.registry_dir)]
    assert omni[0] == "0.11.0rc1" and "0.14.0" in omni and "0.21.0rc1" in omni
    ascend = [str(v) for v in available_versions(ASCEND.registry_dir)]
    assert ascend[0] == "0.7.3" and "0.17.0rc1" in ascend and "0.23.0.post1" in ascend
    vllm = [str(v) for v in available_versions()]
    for plugin, versions in ((OMNI, omni), (ASCEND, ascend)):
        for v in versions:
            reg = load_registry(v, plugin.registry_dir)
            assert reg.plugin is not None and reg.plugin.name == plugin.name
            assert reg.plugin.vllm_version == base_vllm(v, vllm)
            assert reg.provenance["artifact"].startswith(plugin.package + "-" + v)
            assert reg.provenance["vllm_artifact"].startswith(
                f"vllm-{reg.plugin.vllm_version}")
            assert len(reg.provenance["sha256"]) == len(reg.provenance["vllm_sha256"]) == 64


@pytest.mark.parametrize("version", ["0.14.0", "0.20.0", "0.26.0", "0.30.0"])
def test_omni_serve_parser_is_vllms_plus_the_omni_group(version: str) -> None:
    omni = load_registry(version, OMNI.registry_dir)
    assert omni.plugin is not None
    base = load_registry(omni.plugin.vllm_version)
    assert omni.provenance["method"] == (
        "argparse-introspection: console-script vllm_omni.entrypoints.cli.main:main")
    assert base.option_strings <= omni.option_strings
    extra = omni.option_strings - base.option_strings
    assert {"--omni", "--cache-backend", "--usp", "--stage-init-timeout"} <= extra
    assert base.lookup("--omni") is None


def test_omni_first_versions() -> None:
    fam, cli = OMNI.name, CliRegistries()
    assert cli_plan.first_version(cli, "option", "--omni", fam) == "0.11.0rc1"
    assert cli_plan.first_version(cli, "option", "--deploy-config", fam) == "0.20.0"
    assert cli_plan.first_version(cli, "option", "--dlo-resident-layers", fam) == "0.27.0rc1"
    assert cli_plan.first_version(cli, "option", "--ignored-layers", fam) is None
    assert cli_plan.last_version(cli, "option", "--stage-configs-path", fam) == "0.26.0"


def test_ascend_quantization_choice_comes_from_the_plugins_own_hook() -> None:
    # 0.9.1's NPUPlatform.pre_register_and_update appends "ascend" to the choices;
    # 0.7.3's hook only imports the quantization config, after argparse built them.
    new = load_registry("0.9.1", ASCEND.registry_dir)
    assert new.provenance["method"].endswith("NPUPlatform.pre_register_and_update")
    quant = new.lookup("--quantization")
    assert quant is not None and quant.choices is not None and "ascend" in quant.choices
    old = load_registry("0.7.3", ASCEND.registry_dir).lookup("--quantization")
    assert old is not None and old.choices is not None and "ascend" not in old.choices
    # vLLM >= 0.11 validates --quantization after argparse: no choices to extend
    q18 = load_registry("0.18.0", ASCEND.registry_dir).lookup("--quantization")
    assert q18 is not None and q18.choices is None


def test_ascend_additional_config_keys_and_env_vars() -> None:
    reg = load_registry("0.17.0rc1", ASCEND.registry_dir)
    assert reg.plugin is not None
    assert {"enable_cpu_binding", "ascend_compilation_config", "eplb_config"} <= (
        reg.plugin.additional_config_keys)
    assert "VLLM_ASCEND_ENABLE_FLASHCOMM1" in reg.plugin.env_vars
    assert reg.plugin.env_vars <= reg.env_vars
    base = load_registry(reg.plugin.vllm_version)
    assert base.env_vars <= reg.env_vars
    old_ascend = load_registry("0.9.1", ASCEND.registry_dir).plugin
    assert old_ascend is not None
    assert "torchair_graph_config" in old_ascend.additional_config_keys


def test_omni_env_vars_are_read_where_used() -> None:
    reg = load_registry("0.30.0", OMNI.registry_dir)
    assert reg.plugin is not None
    assert "VLLM_OMNI_VIDEO_SYNC_TIMEOUT" in reg.plugin.env_vars


def test_plugin_snapshots_are_canonical_and_pinned() -> None:
    for plugin in PLUGINS.values():
        d = plugin.registry_dir
        pins = json.loads((d / INDEX_NAME).read_text(encoding="utf-8"))
        files = sorted(p.name for p in d.glob("*.json") if p.name != INDEX_NAME)
        assert files == sorted(f"{v}.json" for v in pins)
        for v in pins:
            raw = (d / f"{v}.json").read_bytes()
            doc = json.loads(raw)
            assert raw == (json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False)
                           + "\n").encode()
            assert doc["extraction"]["method_errors"] == []


def test_tampered_plugin_snapshot_is_refused(tmp_path: object) -> None:
    from pathlib import Path

    d = Path(str(tmp_path))
    src = OMNI.registry_dir
    (d / INDEX_NAME).write_text((src / INDEX_NAME).read_text(), encoding="utf-8")
    data = (src / "0.22.0.json").read_text().replace('"--omni"', '"--omnx"')
    (d / "0.22.0.json").write_text(data, encoding="utf-8")
    with pytest.raises(RegistryError, match="does not match the pin"):
        load_registry("0.22.0", d)


def test_plugin_plan_pairs_the_recipe_minimum_with_a_plugin_release() -> None:
    exact = cli_plan.plan_for(CliRegistries(), Version("0.22.0"), OMNI.name)
    assert exact.minimum is not None and exact.minimum.version == "0.22.0"
    assert exact.note is None and exact.product == "vLLM-Omni"
    older = cli_plan.plan_for(CliRegistries(), Version("0.19.0"), OMNI.name)
    assert older.minimum is not None and older.minimum.version == "0.18.0"
    assert older.note is not None and "built on vLLM 0.18.0" in older.note
    assert older.label == "0.19.0 (checked against vLLM-Omni 0.18.0)"
    none = cli_plan.plan_for(CliRegistries(), Version("0.10.0"), OMNI.name)
    assert none.minimum is None and none.note is not None and "0.11.0rc1" in none.note
    nightly = cli_plan.plan_for(CliRegistries(), "nightly", ASCEND.name)
    assert nightly.minimum is not None and nightly.minimum is nightly.newest


@pytest.mark.slow
def test_plugin_extraction_reproduces_the_vendored_bytes(tmp_path: object) -> None:
    """Re-extract vllm-ascend 0.17.0rc1 on vLLM 0.17.0 from the download cache (no network
    in tests); the snapshot must be byte-identical to the vendored one."""
    from pathlib import Path

    from validator.vllm_cli.extract import (
        DEFAULT_CACHE_DIR,
        build_snapshot,
        dumps_snapshot,
        run_introspection,
    )
    from validator.vllm_cli.extract_plugin import build_plugin_snapshot, unpack_plugin
    from validator.vllm_cli.fetch import Artifact, sha256_file
    from validator.vllm_cli.release_sources import unpack_sources

    vendored = load_registry("0.17.0rc1", ASCEND.registry_dir)
    prov = vendored.provenance
    paths = [DEFAULT_CACHE_DIR / prov["artifact"], DEFAULT_CACHE_DIR / prov["vllm_artifact"]]
    if not all(p.is_file() for p in paths):
        pytest.skip("vllm-ascend 0.17.0rc1 / vllm 0.17.0 sdists not in the download cache")
    assert sha256_file(paths[0]) == prov["sha256"]
    assert sha256_file(paths[1]) == prov["vllm_sha256"]
    plugin_art = Artifact("0.17.0rc1", paths[0].name, prov["url"], prov["sha256"], "sdist", 0)
    vllm_art = Artifact("0.17.0", paths[1].name, prov["vllm_url"], prov["vllm_sha256"],
                        "sdist", 0)
    src = unpack_sources(paths[1], "0.17.0", Path(str(tmp_path)) / "src")
    unpack_plugin(paths[0], ASCEND, "0.17.0rc1", src)
    raw = run_introspection(src)
    doc = build_plugin_snapshot(raw, build_snapshot(raw, vllm_art, src), ASCEND, "0.17.0rc1",
                                plugin_art, "0.17.0")
    assert dumps_snapshot(doc) == (ASCEND.registry_dir / "0.17.0rc1.json").read_bytes()


def test_ascend_legacy_top_level_keys_accepted_by_the_strict_config() -> None:
    """vllm-ascend 0.27.1rc1 types the whole object (``AscendConfig``, extra keys
    forbidden) but strips and accepts the legacy scheduler keys listed in
    ``_NON_USER_INPUT_KEYS`` (read through ``SchedulerConfig.from_additional_config``)."""
    info = load_registry("0.27.1rc1", ASCEND.registry_dir).plugin
    assert info is not None
    assert {"recompute_scheduler_enable", "short_request_first_config",
            "profiling_chunk_config", "batch_job_sched_config",  # legacy, stripped
            "enable_cpu_binding", "enable_kv_nz", "weight_nz_mode",  # AscendConfig fields
            "scheduler_config"} <= info.additional_config_keys
    assert not any(k.startswith("_") for k in info.additional_config_keys)


def test_plugin_extraction_command_refuses_bad_input_before_any_download(
        capsys: pytest.CaptureFixture[str]) -> None:
    from validator.cli import main

    assert main(["data", "vllm-cli", "--plugin", "vllm-omni", "abc"]) == 2
    assert "not a version: abc" in capsys.readouterr().err
    assert main(["data", "vllm-cli", "--plugin", "vllm-ascend", "--out-dir", "/tmp/x",
                 "0.18.0"]) == 2
    assert "--out-dir cannot be combined with --plugin" in capsys.readouterr().err
