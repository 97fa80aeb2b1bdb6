"""Small hand-made run results for reporter tests (our own text, no upstream files)."""

from __future__ import annotations

from validator.checker import DocumentResult, RunResult
from validator.findings import Finding, Related, Severity
from validator.source.provenance import Provenance

TEXT = b"model:\n  model_id: example-org/Example-7B\n"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def finding(rule: str = "REF001", severity: Severity = Severity.ERROR, line: int = 2,
            column: int = 13, message: str = "model_id does not match the path",
            path: str = "models/example-org/Example-7B.yaml", pointer: str = "/model/model_id",
            hint: str | None = "set model_id to the path", end_line: int | None = 2,
            end_column: int | None = 38,
            related: tuple[Related, ...] = ()) -> Finding:
    """A finding with sensible defaults; override what a test is about."""
    return Finding(rule, severity, path, pointer, line, column, message, hint, end_line,
                   end_column, related)


def result(*findings: Finding, path: str = "models/example-org/Example-7B.yaml",
           data: bytes = TEXT, commit: str | None = COMMIT,
           repository: str | None = "example-org/recipes") -> RunResult:
    """A run with one document holding ``findings``."""
    prov = Provenance.of_bytes(path, data, commit=commit, repository=repository)
    run = RunResult()
    run.documents.append(DocumentResult(path, prov, sorted(findings, key=Finding.sort_key)))
    return run
