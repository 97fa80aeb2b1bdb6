"""Schema freshness, schema validation, determinism, attestation, verifier sanity."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_cli
from tests.conftest import EXTRA
from tests.evidence.conftest import (
    EXTRA_GLM53,
    GLM52,
    GLM52_UPSTREAM,
    REPO,
    file_reader,
    git_reader,
    verify_record,
)
from validator.evidence.attest import STATEMENT_TYPE, statement
from validator.evidence.model import (
    PREDICATE_TYPE,
    SCHEMA_PATH,
    RecordInvalid,
    schema_text,
    validate_record,
)
from validator.evidence.record import build_record, record_bytes
from validator.evidence.sources import ManifestTree
from validator.source.git import GitTree


def test_checked_in_schema_is_fresh() -> None:
    assert SCHEMA_PATH.read_text("utf-8") == schema_text(), (
        "schemas/record.schema.json is stale: run "
        "'recipe-check record --print-schema > schemas/record.schema.json'")
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_print_schema_command_matches_file() -> None:
    done = run_cli("record", "--print-schema")
    assert done.returncode == 0, done.stderr
    assert done.stdout == SCHEMA_PATH.read_text("utf-8")


@pytest.fixture(scope="module")
def glm53() -> dict[str, Any]:
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, EXTRA_GLM53[0][0])
    record: dict[str, Any] = json.loads(record_bytes(build_record(
        tree, EXTRA_GLM53[0][1], checked_on="2026-11-29")))
    return record


def test_schema_rejects_bad_records(glm53: dict[str, Any]) -> None:
    validate_record(glm53)
    bad = copy.deepcopy(glm53)
    bad["facts"][0]["classification"] = "measured"
    with pytest.raises(RecordInvalid, match="classification"):
        validate_record(bad)
    bad = copy.deepcopy(glm53)
    bad["facts"][0]["evidence_url"] = "https://example.com/x"
    with pytest.raises(RecordInvalid, match="evidence_url"):
        validate_record(bad)
    bad = copy.deepcopy(glm53)
    bad["site_reproduced"] = True
    with pytest.raises(RecordInvalid):
        validate_record(bad)


def test_verifier_catches_a_wrong_line(glm53: dict[str, Any]) -> None:
    """The citation check of test_citations can fail: shift one fact's anchor."""
    bad = copy.deepcopy(glm53)
    fact = bad["facts"][2]
    line = int(fact["evidence_url"].rsplit("#L", 1)[1].split("-")[0])
    fact["evidence_url"] = fact["evidence_url"].rsplit("#", 1)[0] + f"#L{line + 3}"
    with pytest.raises(AssertionError, match="not at"):
        verify_record(bad, file_reader(EXTRA))


@pytest.mark.corpus
def test_records_are_byte_identical_across_runs(
        commit_map: dict[str, str], corpus_repo: Path,
        corpus_tree: Callable[[str], GitTree], tmp_path: Path) -> None:
    commit = commit_map[GLM52_UPSTREAM[-1]]
    first = record_bytes(build_record(corpus_tree(commit), GLM52, checked_on="2026-11-29"))
    second = record_bytes(build_record(corpus_tree(commit), GLM52, checked_on="2026-11-29"))
    assert first == second
    other_day = record_bytes(build_record(corpus_tree(commit), GLM52,
                                          checked_on="2026-11-30"))
    assert other_day != first
    # a separate process through the command line (git backend, own mirror cache)
    out = tmp_path / "r.json"
    subprocess.run([sys.executable, "-m", "validator", "record",
                    f"{REPO}@{commit}:{GLM52}", "--git-url", str(corpus_repo),
                    "--cache-dir", str(tmp_path / "cache"), "--checked-on", "2026-11-29",
                    "--output", str(out)], check=True, capture_output=True)
    cli = out.read_bytes()
    assert json.loads(cli)["source"]["resolved_from"] is None
    assert cli == first
    assert verify_record(json.loads(cli), git_reader(corpus_repo)) > 60


def test_attestation_statement(glm53: dict[str, Any]) -> None:
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, EXTRA_GLM53[0][0])
    st = statement(build_record(tree, EXTRA_GLM53[0][1], checked_on="2026-11-29"))
    assert st["_type"] == STATEMENT_TYPE
    assert st["predicateType"] == PREDICATE_TYPE
    src = glm53["source"]
    assert st["subject"] == [{"name": "models/zai-org/GLM-5.3.yaml",
                              "digest": {"sha256": src["document_sha256"],
                                         "gitBlob": src["git_blob"]}}]
    commit = EXTRA_GLM53[0][0]
    assert st["predicate"]["resolvedDependencies"] == [
        {"uri": f"git+https://github.com/{REPO}@{commit}", "digest": {"gitCommit": commit}}]
    assert src["document_sha256"] == (
        "816e8447c13fe1539b8e09851d37595cd4e1e6b4b0fa1fcc7bd6598d94a4b7e7")
    predicate = dict(st["predicate"])
    predicate.pop("resolvedDependencies")
    assert predicate == glm53


def test_record_command_errors_are_clean(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # in this process: an exception the command let escape would fail the test here
        return run_cli("record", *args)

    r = run("not-a-spec")
    assert r.returncode == 2 and "OWNER/REPO@REV:PATH" in r.stderr and "Traceback" not in r.stderr
    r = run(f"{REPO}@{EXTRA_GLM53[0][0]}:models/zai-org/GLM-5.3.yaml",
            "--manifest", str(EXTRA / "MANIFEST.json"), "--checked-on", "2026-13-01")
    assert r.returncode == 2 and "--checked-on" in r.stderr
    r = run(f"{REPO}@{'0' * 40}:models/zai-org/GLM-5.3.yaml",
            "--manifest", str(EXTRA / "MANIFEST.json"))
    assert r.returncode == 2 and "no file of" in r.stderr
    r = run(f"{REPO}@{EXTRA_GLM53[0][0]}:models/zai-org/missing.yaml",
            "--manifest", str(EXTRA / "MANIFEST.json"))
    assert r.returncode == 2 and "not found" in r.stderr
    bad = tmp_path / "MANIFEST.json"
    (tmp_path / EXTRA_GLM53[0][0] / "models").mkdir(parents=True)
    (tmp_path / EXTRA_GLM53[0][0] / "models" / "x.yaml").write_text("a: [1\n")
    bad.write_text(json.dumps([{"repository": REPO, "commit": EXTRA_GLM53[0][0],
                                "path": "models/x.yaml", "sha256": "0" * 64}]))
    r = run(f"{REPO}@{EXTRA_GLM53[0][0]}:models/x.yaml", "--manifest", str(bad))
    assert r.returncode == 2 and "differs from the manifest" in r.stderr


@pytest.mark.parametrize("path", ["taxonomy.yaml", "strategies/single_node_tp.yaml",
                                  "models/zai-org/README.md"])
def test_record_refuses_a_path_that_is_not_a_recipe(tmp_path: Path, path: str) -> None:
    """A context file would be judged with the recipe schema and published as a "vLLM
    recipe" record: refused (exit 2) before anything is fetched or written."""
    out = tmp_path / "r.json"
    done = run_cli("record", f"{REPO}@{EXTRA_GLM53[0][0]}:{path}",
                   "--manifest", str(EXTRA / "MANIFEST.json"), "--output", str(out))
    assert done.returncode == 2 and "is not a recipe (models/**.yaml" in done.stderr
    assert not out.exists()
