"""``--format sarif``: valid SARIF 2.1.0 (vendored official schema), rules, regions,
fingerprints that survive line shifts, artifacts and provenance."""

from __future__ import annotations

import copy
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from validator.cli import main
from validator.findings import Severity
from validator.identity import fingerprint
from validator.report.sarif import FINGERPRINT_KEY, sarif_log
from validator.rule_index import all_rules

from ._build import COMMIT, TEXT, finding, result

PROJECT = Path(__file__).resolve().parents[2]
SCHEMA = PROJECT / "snapshots" / "sarif" / "sarif-schema-2.1.0.json"
RECIPE = "models/Google/gemma-4-12B-it.yaml"


def sarif_validator() -> jsonschema.Draft4Validator:
    """Validator of the vendored official schema (after checking its pinned digest)."""
    expected = (SCHEMA.parent / (SCHEMA.name + ".sha256")).read_text().split()[0]
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == expected
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def errors_of(log: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in sarif_validator().iter_errors(log)]


def test_vendored_schema_is_the_pinned_official_one() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    sarif_validator()  # digest checked inside


def test_schema_validation_can_fail() -> None:
    log = sarif_log(result(finding()), env={})
    assert errors_of(log) == []
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    del broken["version"]
    assert len(errors_of(broken)) == 2


def test_hand_made_log_shape() -> None:
    run = result(finding(), finding(rule="REF013", severity=Severity.WARNING, line=5,
                                    end_line=5, column=7, end_column=20),
                 finding(rule="VER001", severity=Severity.INFO, line=0, column=0,
                         end_line=None, end_column=None))
    log = sarif_log(run, env={"GITHUB_ACTION_REPOSITORY": "acme/rc", "GITHUB_ACTION_REF": "v1"})
    assert errors_of(log) == []
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "recipe-check" and driver["informationUri"] == \
        "https://github.com/acme/rc"
    rules = driver["rules"]
    assert [r["id"] for r in rules][:len(all_rules())] == [r.id for r in all_rules()]
    ref001 = next(r for r in rules if r["id"] == "REF001")
    assert ref001["shortDescription"]["text"] == "model.model_id does not match the file path"
    assert ref001["defaultConfiguration"]["level"] == "error"
    assert ref001["help"]["markdown"].endswith(
        "[Rule documentation](https://github.com/acme/rc/blob/v1/docs/rules.md#ref001)")
    assert ref001["fullDescription"]["text"].startswith("``model.model_id`` must equal")
    results = run_["results"]
    assert [r["level"] for r in results] == ["note", "error", "warning"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    err = results[1]
    assert err["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "models/example-org/Example-7B.yaml",
                             "uriBaseId": "%SRCROOT%", "index": 0},
        "region": {"startLine": 2, "startColumn": 13, "endLine": 2, "endColumn": 38}}
    assert "region" not in results[0]["locations"][0]["physicalLocation"]  # line unknown
    assert err["message"]["text"] == "model_id does not match the path\nhint: set model_id " \
        "to the path"
    (artifact,) = run_["artifacts"]
    assert artifact["hashes"] == {"sha-256": hashlib.sha256(TEXT).hexdigest()}
    assert run_["versionControlProvenance"] == [{
        "repositoryUri": "https://github.com/example-org/recipes", "revisionId": COMMIT,
        "mappedTo": {"uriBaseId": "%SRCROOT%"}}]
    assert run_["columnKind"] == "unicodeCodePoints"


def test_fingerprints_ignore_lines_and_stay_unique() -> None:
    a = finding(line=2, end_line=2, message="value at line 2 is wrong")
    b = finding(line=9, end_line=9, message="value at line 9 is  wrong")
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(finding(pointer="/model/other"))
    assert fingerprint(a) != fingerprint(finding(rule="REF002"))
    log = sarif_log(result(a, b), env={})
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"]]
    assert prints[1] == prints[0] + ":2"


def test_fingerprint_ignores_the_configurations_a_rendered_finding_reaches() -> None:
    # a change that adds configurations reached by the same problem is not a new result
    few = finding(message="--foo is not a vLLM flag (on h200 / default and 3 more)")
    many = finding(message="--foo is not a vLLM flag (on h200 / default and 191 more)")
    assert fingerprint(few) == fingerprint(many)
    assert fingerprint(few) != fingerprint(finding(message="--bar is not a vLLM flag"))


def _check_sarif(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    main(["check", "--format", "sarif", "--root", str(root), str(root / RECIPE)])
    log: dict[str, Any] = json.loads(capsys.readouterr().out)
    return log


@pytest.mark.corpus
def test_real_recipe_sarif_validates_and_survives_a_line_shift(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _check_sarif(corpus_copy, capsys)
    assert errors_of(before) == []
    results = before["runs"][0]["results"]
    ref019 = [r for r in results if r["ruleId"] == "REF019"]
    assert len(ref019) == 1  # model_id 'google/...' in models/Google/
    region = ref019[0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (21, 13)
    data = (corpus_copy / RECIPE).read_bytes()
    assert before["runs"][0]["artifacts"][0]["hashes"]["sha-256"] == \
        hashlib.sha256(data).hexdigest()

    (corpus_copy / RECIPE).write_bytes(b"# a comment line added above everything\n" + data)
    after = _check_sarif(corpus_copy, capsys)
    assert errors_of(after) == []
    prints = {r["partialFingerprints"][FINGERPRINT_KEY]: r for r in results}
    moved = {r["partialFingerprints"][FINGERPRINT_KEY]: r for r in after["runs"][0]["results"]}
    assert prints.keys() == moved.keys()
    for key, r in prints.items():
        old = r["locations"][0]["physicalLocation"]["region"]["startLine"]
        new = moved[key]["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert new == old + 1


def test_reporter_writes_json_with_newline() -> None:
    from validator.report import get_reporter

    out = io.StringIO()
    get_reporter("sarif").write(result(finding()), out)
    assert out.getvalue().endswith("}\n")
    assert json.loads(out.getvalue())["runs"][0]["results"][0]["ruleId"] == "REF001"


def test_unverified_document_has_no_hash() -> None:
    """A document whose bytes failed verification (PROV001) has no digest to publish."""
    from validator.checker import DocumentResult, RunResult
    from validator.source.provenance import Provenance

    run = RunResult()
    path = "models/example-org/Example-7B.yaml"
    run.documents.append(DocumentResult(path, Provenance(path, "", "", commit=COMMIT),
                                        [finding(rule="PROV001", line=1, end_line=None)]))
    log = sarif_log(run, env={})
    assert errors_of(log) == []
    assert "hashes" not in log["runs"][0]["artifacts"][0]


def test_without_a_configured_repository_no_link_names_another_repository() -> None:
    log = sarif_log(result(finding()), env={})
    assert errors_of(log) == []
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver  # no repository is configured
    assert "github.com/recipe-check" not in json.dumps(log)
    ref001 = next(r for r in driver["rules"] if r["id"] == "REF001")
    assert ref001["helpUri"].startswith("file://") and ref001["helpUri"].endswith(
        "/docs/rules.md#ref001")
