"""Input trial 13: small usage errors that were silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main
from validator.config import ALWAYS_ERRORS
from validator.findings import Severity


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_path_is_a_usage_error(empty: str, examples_tree: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``recipe-check "$UNSET"`` checked the whole current folder (``Path("")`` is ``.``)."""
    monkeypatch.chdir(examples_tree)
    assert main([empty]) == 2
    captured = capsys.readouterr()
    assert "is empty: name a recipe file or folder" in captured.err
    assert "file(s) checked" not in captured.out
    # a real path beside it does not make the empty one harmless
    assert main(["models/", empty]) == 2


@pytest.mark.parametrize("rule_id", sorted(ALWAYS_ERRORS))
def test_a_severity_for_an_always_reported_rule_is_a_config_error(
        rule_id: str, examples_tree: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``[severity] PROV005 = "info"`` was accepted and did nothing: a refused file still
    failed the run as an error."""
    monkeypatch.chdir(examples_tree)
    config = examples_tree / ".recipe-check.toml"
    config.write_text(f'[severity]\n{rule_id} = "info"\n', "utf-8")
    assert main(["models/"]) == 2
    err = capsys.readouterr().err
    assert f".recipe-check.toml:2: the severity of {rule_id} cannot be changed" in err
    config.write_text(f'[severity]\n{rule_id} = "error"\n', "utf-8")  # restating it is fine
    assert main(["models/example-org/Example-Chat-8B.yaml"]) == 0


def test_the_always_reported_rules_are_the_ones_that_bypass_the_policy() -> None:
    """:data:`ALWAYS_ERRORS` names the errors the run records outside the policy: bytes that
    failed verification (``VerificationError``'s rules), a refused file, an unhandled path."""
    from validator.rules.prov.digests import BLOB_MISMATCH, SHA256_MISMATCH
    from validator.rules.prov.snapshot_lock import SNAPSHOT_MISMATCH
    from validator.rules.prov.unread_files import UNHANDLED_PATH
    from validator.source.verify import REFUSED

    bypassing = {BLOB_MISMATCH, SHA256_MISMATCH, SNAPSHOT_MISMATCH, REFUSED, UNHANDLED_PATH}
    assert {r.id for r in bypassing} == ALWAYS_ERRORS
    assert all(r.severity is Severity.ERROR for r in bypassing)
