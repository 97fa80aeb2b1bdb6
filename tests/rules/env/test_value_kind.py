"""``ENV003``: a ``VLLM_*`` variable's value the vLLM releases of the install range cannot
read as meant: an ``int()``/``float()`` value that does not parse is an error at the value
(vLLM raises ValueError and does not start), a switch set to a word that is neither on nor
off a warning (silently off); shell references, empty values and variables read some other
way are not judged (trial 12 #1). The kinds are derived from each release's ``envs.py``."""

from __future__ import annotations

import textwrap
from datetime import date
from pathlib import Path

import pytest

from scripts.derive_env_kinds import env_kinds as derive
from tests.analysis.test_install_range import PATH as DOC_PATH
from tests.analysis.test_install_range import of, recipe, run
from tests.conftest import line_of
from tests.derived_snapshots import described_artifacts, snapshot_artifacts
from validator.context import Settings, build_context
from validator.load import load_yaml
from validator.rule_index import rule_by_id
from validator.source.tree import LocalTree
from validator.vllm_cli.env_kinds import PATH, EnvKinds, load


def _with_env(env: str, guide_cmd: str | None = None) -> str:
    text = recipe() if guide_cmd is None else recipe(guide_cmd=guide_cmd)
    assert "  base_env: {}\n" in text
    return text.replace("  base_env: {}\n", "  base_env:\n" + env)


def test_an_int_variable_with_a_unit_is_an_error_at_its_value(corpus_copy: Path) -> None:
    text = _with_env('    VLLM_CPU_KVCACHE_SPACE: "16GB"\n')
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV003")
    assert hit.severity.value == "error"
    assert (hit.line, hit.column) == (line_of(text, "VLLM_CPU_KVCACHE_SPACE"), 29)
    assert hit.message == ("model.base_env: `VLLM_CPU_KVCACHE_SPACE=16GB`: vLLM 0.12.0–0.33.0 "
                           "reads `VLLM_CPU_KVCACHE_SPACE` with `int()`, which raises "
                           "ValueError on it, so vLLM does not start")


def test_a_switch_set_to_a_word_it_does_not_read_as_on_is_a_warning(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, _with_env('    VLLM_ROCM_USE_AITER: "enabled"\n'))
    (hit,) = of(found, "ENV003")
    assert hit.severity.value == "warning"
    assert '`VLLM_ROCM_USE_AITER=enabled`: vLLM 0.12.0–0.33.0 turns `VLLM_ROCM_USE_AITER` on ' \
        'only for "1", "true" and reads any other value as off, silently' in hit.message


@pytest.mark.parametrize("env", [
    'VLLM_CPU_KVCACHE_SPACE: "16"', "VLLM_CPU_KVCACHE_SPACE: 16", 'VLLM_ROCM_USE_AITER: "1"',
    'VLLM_ROCM_USE_AITER: "True"', "VLLM_ROCM_USE_AITER: true", 'VLLM_ROCM_USE_AITER: "0"',
    'VLLM_ROCM_USE_AITER: "false"', 'VLLM_CPU_KVCACHE_SPACE: "$KV_GB"',
    'VLLM_CPU_KVCACHE_SPACE: ""', 'VLLM_LOGGING_LEVEL: "whatever"', 'MY_VAR: "16GB"'])
def test_values_read_as_meant_or_not_judged_pass(corpus_copy: Path, env: str) -> None:
    found, _ = run(corpus_copy, _with_env(f"    {env}\n"))
    assert not of(found, "ENV003")


def test_a_guide_docker_env_is_judged_at_its_line(corpus_copy: Path) -> None:
    cmd = ("docker run --gpus all -e VLLM_CPU_KVCACHE_SPACE=16G vllm/vllm-openai:v0.12.0 "
           "example-org/Example-8B")
    text = _with_env("    {}\n".replace("{}", "VLLM_LOGGING_LEVEL: INFO"), cmd)
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "ENV003")
    assert hit.severity.value == "error" and hit.line == line_of(text, "docker run")
    assert hit.message.startswith("guide: `VLLM_CPU_KVCACHE_SPACE=16G`: vLLM ")


def test_every_release_is_described_from_its_snapshot_artifact() -> None:
    assert described_artifacts(PATH) == snapshot_artifacts(
        lambda doc: bool(doc.get("env_vars")) and "provenance" in doc)
    kinds = load()
    assert kinds["0.5.4"]["VLLM_CPU_KVCACHE_SPACE"].kind == "int"
    assert kinds["0.33.0"]["VLLM_ROCM_USE_AITER"].accepted == {"1", "true"}


ENVS = textwrap.dedent("""
    import os
    environment_variables: dict[str, Callable[[], Any]] = {
        "A_INT": lambda: int(os.getenv("A_INT", "0")),
        "A_FLAG": lambda: bool(int(os.environ.get("A_FLAG", "0"))),
        "A_FLOAT": lambda: float(os.getenv("A_FLOAT", "1.5")),
        "A_GUARDED": lambda: int(os.environ["A_GUARDED"]) if "A_GUARDED" in os.environ else None,
        "A_SWITCH": lambda: os.getenv("A_SWITCH", "False").lower() in ("true", "1"),
        "A_EXACT": lambda: os.getenv("A_EXACT", "0") == "1",
        "A_CHOICE": env_with_choices("A_CHOICE", None, ["x", "y"], case_sensitive=False),
        "A_LAZY": env_with_choices("A_LAZY", None, lambda: ["x"]),
        "A_PATH": lambda: os.path.expanduser(os.getenv("A_PATH", "~")),
        "A_OTHER": lambda: int(os.getenv("SOMETHING_ELSE", "0")),
        "A_HELPER": get_thing,
    }
""")


def test_the_derivation_records_only_getters_it_reads_with_certainty() -> None:
    assert derive(ENVS) == {
        "A_INT": {"kind": "int"}, "A_FLAG": {"kind": "int"}, "A_FLOAT": {"kind": "float"},
        "A_GUARDED": {"kind": "int"},
        "A_SWITCH": {"kind": "bool", "true": ["1", "true"], "case_sensitive": False},
        "A_EXACT": {"kind": "bool", "true": ["1"], "case_sensitive": True},
        "A_CHOICE": {"kind": "choices", "choices": ["x", "y"], "case_sensitive": False}}


def test_the_kinds_file_is_read_once_for_every_context_of_a_run(
        corpus_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the history audit checks a recipe in a context per revision, release window and
    # rule group, all seeing one run's registries: the vendored file is read once for them
    import validator.rules.env.value_kind as value_kind

    reads: list[Path] = []

    def read(path: Path = PATH) -> EnvKinds:
        reads.append(path)
        return load(path)

    monkeypatch.setattr(value_kind, "load", read)
    doc = load_yaml(_with_env('    VLLM_CPU_KVCACHE_SPACE: "16GB"\n').encode(), DOC_PATH)
    run_context = build_context(LocalTree(corpus_copy))
    later = build_context(LocalTree(corpus_copy), Settings(as_of=date(2026, 1, 1)),
                          run_context.cli)
    env003 = rule_by_id("ENV003")
    assert env003.check is not None
    found = [[h.message for h in env003.check(doc, ctx.limited_to(env003.reads))]
             for ctx in (run_context, run_context, later)]
    assert found[0] == found[1] and len(found[0]) == 1 and len(found[2]) == 1
    assert reads == [PATH]
