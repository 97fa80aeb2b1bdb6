"""The vendored vLLM CLI registry (``validator.vllm_cli.registry``) on its real data.

Expected answers were read from the snapshots and cross-checked against the released
sources themselves (the sdists on PyPI); the ``slow`` tests repeat that cross-check and
an end-to-end extraction when the downloaded artifacts are in the local cache.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
from packaging.version import Version

from validator.vllm_cli import registry
from validator.vllm_cli.registry import (
    DEFAULT_REGISTRY_DIR,
    INDEX_NAME,
    CliRegistry,
    RegistryError,
    available_versions,
    first_version_with,
    load_registry,
    nearest,
)


def test_every_release_from_0_4_2_to_0_33_0_is_vendored() -> None:
    versions = available_versions()
    assert versions[0] == Version("0.4.2")
    assert versions[-1] == Version("0.33.0")
    assert len(versions) == 76
    for v in ("0.8.5.post1", "0.10.1.1", "0.15.0", "0.15.1", "0.6.1.post2", "0.5.0.post1"):
        assert Version(v) in versions


def test_provenance_names_the_artifact_and_method() -> None:
    reg = load_registry("0.11.0")
    assert reg.provenance["artifact"] == "vllm-0.11.0.tar.gz"
    assert len(reg.provenance["sha256"]) == 64
    assert reg.provenance["url"].startswith("https://files.pythonhosted.org/")
    assert reg.provenance["method"] == (
        "argparse-introspection: console-script vllm.entrypoints.cli.main:main")
    assert reg.provenance["python"] == "3.11"
    # 0.15.x were published as wheels only
    wheel = load_registry("0.15.0").provenance
    assert wheel["kind"] == "wheel" and wheel["artifact"].endswith(".whl")


def test_serve_availability() -> None:
    old = load_registry("0.5.1")
    assert not old.serve_available
    assert old.provenance["method"].startswith("argparse-introspection: api-server")
    assert old.lookup("--model") is not None  # the api_server parser has --model
    new = load_registry("0.5.2")
    assert new.serve_available
    assert new.provenance["method"].endswith("vllm.scripts:main")


@pytest.mark.parametrize(
    ("version", "present", "absent"),
    [
        ("0.4.2", ["--model", "--tensor-parallel-size", "--kv-cache-dtype", "--port"],
         ["--speculative-config", "--enable-auto-tool-choice", "--linear-backend"]),
        ("0.6.0", ["--enable-auto-tool-choice", "--tool-call-parser", "--speculative-model"],
         ["--speculative-config", "--reasoning-parser"]),
        ("0.8.2", ["--speculative-model", "--num-speculative-tokens"], ["--data-parallel-size"]),
        ("0.8.3", ["--speculative-config", "--data-parallel-size", "-dp"],
         ["--speculative-model", "--num-speculative-tokens"]),
        ("0.10.0", ["--speculative-config", "--compilation-config", "-O", "--reasoning-parser"],
         ["--linear-backend", "--speculative-model"]),
        # 0.33.0's EnableDisableAction shows --disable-x and keeps --no-enable-x as a hidden,
        # still accepted alias (vllm/utils/argparse_utils.py)
        ("0.33.0", ["--linear-backend", "-sc", "--disable-prefix-caching", "--headless",
                    "--no-enable-prefix-caching", "--no-disable-prefix-caching"],
         ["--no-prefix-caching", "--speculative-model", "--guided-decoding-backend"]),
    ],
)
def test_flags_present_and_absent(version: str, present: list[str], absent: list[str]) -> None:
    reg = load_registry(version)
    for flag in present:
        assert reg.lookup(flag) is not None, (version, flag)
    for flag in absent:
        assert reg.lookup(flag) is None, (version, flag)


def test_first_versions() -> None:
    assert first_version_with(lambda r: r.has("--linear-backend")) == "0.22.0"
    assert first_version_with(lambda r: "glm47" in r.tool_call_parsers) == "0.14.0"
    assert first_version_with(lambda r: "glm47" in r.reasoning_parsers) == "0.24.0"
    assert first_version_with(lambda r: r.dotted_keys) == "0.9.0"
    assert first_version_with(lambda r: r.serve_available) == "0.5.2"
    assert first_version_with(lambda r: "--no-enable-prefix-caching" in r.option_strings) \
        == "0.6.5"
    assert first_version_with(lambda r: r.has("--no-such-flag")) is None


def test_parser_names_over_time() -> None:
    assert load_registry("0.5.5").tool_call_parsers == frozenset()
    assert load_registry("0.6.0").tool_call_parsers == {"hermes", "mistral"}
    r10 = load_registry("0.10.0")
    assert {"hermes", "llama3_json", "mistral", "deepseek_v3"} <= r10.tool_call_parsers
    assert {"deepseek_r1", "qwen3"} <= r10.reasoning_parsers
    r33 = load_registry("0.33.0")
    assert {"glm45", "glm47", "qwen3_coder", "openai"} <= r33.tool_call_parsers
    assert {"glm45", "glm47", "deepseek_r1"} <= r33.reasoning_parsers


def test_kv_cache_dtypes() -> None:
    assert load_registry("0.4.2").kv_cache_dtypes == {"auto", "fp8"}
    assert load_registry("0.5.0").kv_cache_dtypes == {"auto", "fp8", "fp8_e4m3", "fp8_e5m2"}
    assert load_registry("0.10.0").kv_cache_dtypes == {
        "auto", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc"}
    r33 = load_registry("0.33.0")
    assert {"auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_ds_mla", "nvfp4"} <= r33.kv_cache_dtypes
    assert len(r33.kv_cache_dtypes) == 22


def test_json_flags_and_dotted_keys() -> None:
    r085 = load_registry("0.8.5")
    assert not r085.dotted_keys
    assert "--speculative-config" in r085.json_flags
    assert "--max-cpu-loras" not in r085.json_flags  # optional_type(int) is not JSON
    assert r085.lookup("--speculative-config.method") is None
    r090 = load_registry("0.9.0")
    assert r090.dotted_keys
    spec = r090.lookup("--speculative-config.method")
    assert spec is not None and spec.dest == "speculative_config" and spec.is_json
    r33 = load_registry("0.33.0")
    assert {"--compilation-config", "--kv-transfer-config", "--hf-overrides"} <= r33.json_flags
    assert "--device-ids" not in r33.json_flags  # comma list, not JSON
    assert "--port" not in r33.json_flags
    # a dotted key on a non-JSON option is not accepted
    assert r33.lookup("--port.x") is None


def test_underscore_normalisation_follows_each_release() -> None:
    plain = load_registry("0.4.2")  # argparse.ArgumentParser: no rewriting
    assert plain.normalisation == "none"
    assert plain.lookup("--tensor_parallel_size") is None
    whole = load_registry("0.9.0")  # whole key rewritten, sub-keys included
    assert whole.normalisation == "whole-key"
    assert whole.normalise("--speculative_config.num_speculative_tokens") == (
        "--speculative-config.num-speculative-tokens")
    dot = load_registry("0.9.1")  # only before the first dot
    assert dot.normalisation == "before-first-dot"
    assert dot.normalise("--speculative_config.num_speculative_tokens=3") == (
        "--speculative-config.num_speculative_tokens")
    opt = dot.lookup("--tensor_parallel_size=2")
    assert opt is not None and opt.dest == "tensor_parallel_size"


def test_short_forms_and_negations() -> None:
    for v in ("0.4.2", "0.10.0", "0.33.0"):
        tp = load_registry(v).lookup("-tp")
        assert tp is not None and tp.dest == "tensor_parallel_size" and tp.takes_value
    r = load_registry("0.20.0")
    neg = r.lookup("--no-enable-prefix-caching")
    assert neg is not None and neg.dest == "enable_prefix_caching"
    assert neg.negatable and not neg.takes_value and neg.nargs == "0"
    assert neg.strings == ("--enable-prefix-caching", "--no-enable-prefix-caching")
    assert load_registry("0.6.4.post1").lookup("--no-enable-prefix-caching") is None
    o3 = load_registry("0.10.0").lookup("-O3")
    assert o3 is not None and o3.dest == "compilation_config"


def test_option_details() -> None:
    r = load_registry("0.11.0")
    kv = r.lookup("--kv-cache-dtype")
    assert kv is not None and kv.choices is not None and "fp8" in kv.choices
    assert kv.default == "'auto'"
    assert kv.help and len(kv.help) <= 200
    model = r.lookup("--model")
    assert model is not None and model.help.startswith("Name or path of the Hugging Face")
    deprecated = [o.long for o in load_registry("0.33.0").options if o.deprecated]
    assert "--disable-cascade-attn" in deprecated
    assert "--allow-deprecated-quantization" not in deprecated


def test_abbreviations() -> None:
    r = load_registry("0.10.0")
    assert r.allow_abbrev
    assert r.abbreviations("--tensor-parallel-si") == ["--tensor-parallel-size"]
    assert len(r.abbreviations("--enable")) > 3  # ambiguous for argparse
    assert r.abbreviations("-t") == []
    assert r.abbreviations("--zzz") == []


def test_env_vars() -> None:
    r = load_registry("0.10.0")
    assert {"VLLM_USE_V1", "VLLM_ATTENTION_BACKEND", "VLLM_LOGGING_LEVEL"} <= r.env_vars
    assert "VLLM_USE_V1" in load_registry("0.8.0").env_vars
    assert all(e == e.upper() and " " not in e for e in r.env_vars)
    assert len(load_registry("0.33.0").env_vars) > len(r.env_vars)


def test_nearest() -> None:
    assert nearest("0.11.5").version == "0.11.2"
    assert nearest("0.33.0").version == "0.33.0"
    assert nearest("1.0.0").version == "0.33.0"
    assert nearest("0.8.5.post1").version == "0.8.5.post1"
    with pytest.raises(RegistryError, match="no vendored vllm CLI snapshot at or below"):
        nearest("0.4.1")


def test_unknown_and_invalid_versions() -> None:
    with pytest.raises(RegistryError, match=r"vllm 0\.4\.1: no snapshot pinned"):
        load_registry("0.4.1")
    with pytest.raises(RegistryError, match="not a version"):
        load_registry("latest")


def _copy_snapshots(tmp_path: Path, versions: list[str]) -> Path:
    d = tmp_path / "vllm-cli"
    d.mkdir()
    index = json.loads((DEFAULT_REGISTRY_DIR / INDEX_NAME).read_text())
    (d / INDEX_NAME).write_text(json.dumps({v: index[v] for v in versions}))
    for v in versions:
        shutil.copy(DEFAULT_REGISTRY_DIR / f"{v}.json", d / f"{v}.json")
    return d


def test_digest_mismatch_raises(tmp_path: Path) -> None:
    d = _copy_snapshots(tmp_path, ["0.10.0", "0.11.0"])
    assert load_registry("0.10.0", d).version == "0.10.0"
    path = d / "0.11.0.json"
    path.write_bytes(path.read_bytes().replace(b'"--port"', b'"--porT"', 1))
    with pytest.raises(RegistryError) as err:
        load_registry("0.11.0", d)
    msg = str(err.value)
    assert "0.11.0.json" in msg and "does not match the pin" in msg
    index = json.loads((d / INDEX_NAME).read_text())
    assert index["0.11.0"] in msg


def test_missing_file_and_bad_index(tmp_path: Path) -> None:
    d = _copy_snapshots(tmp_path, ["0.10.0"])
    (d / "0.10.0.json").unlink()
    with pytest.raises(RegistryError, match="cannot read"):
        load_registry("0.10.0", d)
    (d / INDEX_NAME).write_text('{"0.10.0": "not-a-digest"}')
    with pytest.raises(RegistryError, match="version -> sha256"):
        available_versions(d)
    with pytest.raises(RegistryError):
        available_versions(tmp_path / "nowhere")


def test_snapshots_are_canonical_and_pinned() -> None:
    """Every vendored file is in canonical form (sorted keys, indent 1) and pinned."""
    from validator.vllm_cli.extract import dumps_snapshot

    index = json.loads((DEFAULT_REGISTRY_DIR / INDEX_NAME).read_text())
    files = sorted(p.name for p in DEFAULT_REGISTRY_DIR.glob("*.json") if p.name != INDEX_NAME)
    assert files == sorted(f"{v}.json" for v in index)
    for v in index:
        data = (DEFAULT_REGISTRY_DIR / f"{v}.json").read_bytes()
        assert dumps_snapshot(json.loads(data)) == data, v
        assert b" at 0x" not in data, v  # no memory addresses: stable bytes
        assert b"/tmp/" not in data, v


def test_loading_all_registries_reads_each_file_once() -> None:
    # Speed is measured by benchmarks/bench.py, not by a timed test: here only that a
    # second load reads no file again and hands back the very same registries.
    registry._load_file.cache_clear()
    registry._read_index.cache_clear()
    regs: list[CliRegistry] = registry.all_registries()
    misses = registry._load_file.cache_info().misses
    again = registry.all_registries()
    assert len(regs) == 76
    assert registry._load_file.cache_info().misses == misses
    assert all(a is b for a, b in zip(regs, again, strict=True))


# ---------------------------------------------------------------- slow / cache-only


def _cached(name: str) -> Path | None:
    from validator.vllm_cli.extract import DEFAULT_CACHE_DIR

    p = DEFAULT_CACHE_DIR / name
    return p if p.is_file() else None


@pytest.mark.slow
def test_first_versions_match_the_released_sources() -> None:
    """Cross-check the first-version answers against the sdists (cache only)."""
    def member(version: str, rel: str) -> str | None:
        path = _cached(f"vllm-{version}.tar.gz")
        if path is None:
            pytest.skip(f"vllm-{version}.tar.gz not in the download cache")
        with tarfile.open(path) as tf:
            try:
                f = tf.extractfile(f"vllm-{version}/{rel}")
            except KeyError:
                return None
            return f.read().decode() if f else None

    def has(version: str, rel: str, needle: str) -> bool:
        return needle in (member(version, rel) or "")

    assert not has("0.21.0", "vllm/engine/arg_utils.py", "linear_backend")
    assert has("0.22.0", "vllm/engine/arg_utils.py", "linear_backend")
    assert not has("0.13.0", "vllm/tool_parsers/__init__.py", '"glm47"')
    assert has("0.14.0", "vllm/tool_parsers/__init__.py", '"glm47"')
    assert not has("0.23.0", "vllm/reasoning/__init__.py", '"glm47"')
    assert has("0.24.0", "vllm/reasoning/__init__.py", '"glm47"')
    assert not has("0.8.5", "vllm/utils.py", "create_nested_dict")
    assert has("0.9.0", "vllm/utils.py", "create_nested_dict")


@pytest.mark.slow
def test_end_to_end_extraction_reproduces_the_vendored_bytes(tmp_path: Path) -> None:
    """Re-extract 0.4.2 from the cached sdist; the snapshot must be byte-identical."""
    from validator.vllm_cli.extract import build_snapshot, dumps_snapshot, run_introspection
    from validator.vllm_cli.fetch import Artifact, sha256_file
    from validator.vllm_cli.release_sources import unpack_sources

    vendored = load_registry("0.4.2")
    path = _cached(vendored.provenance["artifact"])
    if path is None:
        pytest.skip("vllm-0.4.2.tar.gz not in the download cache (no network in tests)")
    assert sha256_file(path) == vendored.provenance["sha256"]
    art = Artifact(version="0.4.2", filename=path.name, url=vendored.provenance["url"],
                   sha256=vendored.provenance["sha256"], kind="sdist", size=0)
    src = unpack_sources(path, "0.4.2", tmp_path / "src")
    doc = build_snapshot(run_introspection(src), art, src)
    assert dumps_snapshot(doc) == (DEFAULT_REGISTRY_DIR / "0.4.2.json").read_bytes()
