"""``--format json``: the findings contract of DESIGN.md, validated against
``schemas/findings.schema.json``, sorted by (path, line, column, rule)."""

from __future__ import annotations

from typing import Any, TextIO

from validator import __version__
from validator.checker import RunResult
from validator.findings import Finding, json_text


def finding_dict(f: Finding) -> dict[str, Any]:
    """One finding as the contract's JSON object (optional keys only when set)."""
    out: dict[str, Any] = {
        "rule": f.rule,
        "severity": f.severity.value,
        "pointer": f.pointer,
        "line": f.line,
        "column": f.column,
        "message": f.message,
        "hint": f.hint,
    }
    if f.end_line is not None:
        out["end_line"] = f.end_line
        out["end_column"] = f.end_column
    if f.baseline:
        out["baseline"] = f.baseline
    if f.related:
        out["related"] = [
            {"line": r.line, "message": r.message, **({"path": r.path} if r.path else {})}
            for r in f.related
        ]
    return out


def result_dict(result: RunResult) -> dict[str, Any]:
    """The whole run as the contract's JSON object."""
    documents = []
    for doc in sorted(result.documents, key=lambda d: d.path):
        prov = doc.provenance
        documents.append({
            "path": doc.path,
            "sha256": prov.sha256 or None,  # None: refused unread (PROV005)
            "gitBlob": prov.git_blob or None,
            "revision": prov.commit,
            "resolved_from": prov.resolved_from,
            "repository": prov.repository,
            "findings": [finding_dict(f) for f in sorted(doc.findings, key=Finding.sort_key)],
        })
        if result.has_baseline():
            documents[-1]["fixed"] = [finding_dict(f) for f in doc.fixed]
            if doc.hidden:
                documents[-1]["hidden"] = [finding_dict(f) for f in doc.hidden]
    out: dict[str, Any] = {
        "tool": {"name": "recipe-check", "version": __version__},
        "documents": documents,
        "summary": {**result.summary(),
                    **(result.baseline_counts() if result.has_baseline() else {})},
    }
    if result.context:
        out["context"] = result.context
    return out


class JsonReporter:
    """Machine-readable report (stable key order, two-space indent, trailing newline)."""

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write :func:`result_dict` as JSON."""
        stream.write(json_text(result_dict(result)))
        stream.write("\n")
