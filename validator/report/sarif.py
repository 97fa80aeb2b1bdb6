"""``--format sarif``: SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format,
https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the input of GitHub code scanning
(``github/codeql-action/upload-sarif``).

One run; ``tool.driver.rules`` is the whole rule catalogue
(:func:`validator.rule_index.all_rules`) and every result names its rule by
``ruleId`` and ``ruleIndex``. Regions are 1-based with exclusive ends, as libyaml and
SARIF (section 3.30) both count them; columns count Unicode code points
(``run.columnKind = "unicodeCodePoints"``, section 3.14.18).

``partialFingerprints["recipeCheck/v2"]`` is a SHA-256 over the path and the finding's
identity (:mod:`validator.identity`: rule or rule group, what it is about, where by
content), the identity ``pr`` matches base and head findings by: it does not depend on
the line a finding is on, the index of its list item or wording that other fields
decide, so code scanning keeps tracking an alert when lines above it move or list items
are inserted (section 3.27.17; GitHub documents the same use of
``partialFingerprints``). Equal fingerprints within one file get an occurrence suffix so
that each result stays unique. (``v1`` hashed the pointer and message; the key changed
with the identity, so code scanning does not compare the two.)

The output is valid against the official schema, vendored in
``snapshots/sarif/sarif-schema-2.1.0.json`` (tests check it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from validator import __version__
from validator.checker import DocumentResult, RunResult
from validator.findings import Finding, Severity, json_text
from validator.identity import fingerprint
from validator.report.environment import report_environment
from validator.report.github import finding_text
from validator.report.markdown import project_url, rule_doc_url

if TYPE_CHECKING:
    from validator.rules.metadata import Rule

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
"""``$schema`` of the log (the URI GitHub's documentation and upload action use)."""

SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "recipeCheck/v2"
SRCROOT = "%SRCROOT%"

LEVELS: Mapping[Severity, str] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
}
"""recipe-check severity -> SARIF ``level`` (section 3.27.10)."""

def _rule_name(summary: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", summary)
    return "".join(w[:1].upper() + w[1:] for w in words) or "Rule"


def _markdown_help(rule: Rule, env: Mapping[str, str]) -> str:
    text = rule.description.replace("``", "`")
    url = rule_doc_url(rule.id, env)
    return (f"**{rule.summary}** (default severity: {rule.severity.value})\n\n{text}"
            + (f"\n\n[Rule documentation]({url})" if url else ""))


def rule_descriptor(rule: Rule, env: Mapping[str, str]) -> dict[str, Any]:
    """SARIF ``reportingDescriptor`` of one rule (section 3.49)."""
    descriptor: dict[str, Any] = {
        "id": rule.id,
        "name": _rule_name(rule.summary),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.description},
        "help": {"text": rule.description, "markdown": _markdown_help(rule, env)},
        "helpUri": rule_doc_url(rule.id, env),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["recipe-check", rule.family]},
    }
    if descriptor["helpUri"] is None:  # no documentation to link: the help text has it
        del descriptor["helpUri"]
    return descriptor


def _region(f: Finding) -> dict[str, int] | None:
    if f.line <= 0:
        return None
    region = {"startLine": f.line}
    if f.column > 0:
        region["startColumn"] = f.column
    if f.end_line is not None and f.end_line >= f.line:
        region["endLine"] = f.end_line
        if f.end_column is not None and f.end_column > 0 and (
                f.end_line > f.line or f.end_column >= max(f.column, 1)):
            region["endColumn"] = f.end_column
    return region


URI_SAFE = "/-._~!$&'()*+,;=@"
"""Characters an ``artifactLocation.uri`` keeps as they are: RFC 3986 ``pchar`` (unreserved
and sub-delims, ``@``) and ``/``; ``:`` is encoded too, since the first segment of a
relative reference may not hold one (``path-noscheme``)."""


def artifact_uri(path: str) -> str:
    """``path`` as a relative URI reference (RFC 3986): every other character, ``%``,
    ``#``, ``?``, spaces, control and bidi characters and non-ASCII included, written as
    ``%XX`` of its UTF-8 bytes."""
    return quote(path, safe=URI_SAFE)


def _physical(uri: str, index: int | None, region: dict[str, int] | None) -> dict[str, Any]:
    loc: dict[str, Any] = {"uri": uri, "uriBaseId": SRCROOT}
    if index is not None:
        loc["index"] = index
    out: dict[str, Any] = {"artifactLocation": loc}
    if region:
        out["region"] = region
    return out


def _repository_uri(result: RunResult, env: Mapping[str, str]) -> str | None:
    pr = result.context.get("pr")
    if isinstance(pr, dict):  # PR mode knows the repository, or knows it does not
        uri = pr.get("repository_uri")
        return str(uri) if uri else None
    for doc in result.documents:
        if doc.provenance.repository:
            repo = doc.provenance.repository
            return repo if "://" in repo else f"https://github.com/{repo}"
    if env.get("GITHUB_REPOSITORY"):
        server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
        return f"{server}/{env['GITHUB_REPOSITORY']}"
    return None


def _revision(result: RunResult) -> str | None:
    pr = result.context.get("pr")
    if isinstance(pr, dict) and pr.get("head"):
        return str(pr["head"])
    revisions = {d.provenance.commit for d in result.documents if d.provenance.commit}
    return revisions.pop() if len(revisions) == 1 else None


def sarif_log(result: RunResult, *, path_prefix: str = "",
              rules: Sequence[Rule] | None = None,
              env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The SARIF log of ``result`` as a JSON-ready dict.

    Args:
        path_prefix: prepended to document paths (recipes in a sub-folder of the
            repository that ``%SRCROOT%`` stands for).
        rules: the catalogue for ``tool.driver.rules`` (default: every registered rule).
        env: environment for links and repository (default
            :func:`~validator.report.environment.report_environment`).
    """
    env = report_environment() if env is None else env
    prefix = path_prefix.strip("/") + "/" if path_prefix.strip("/") else ""
    catalogue, index = _catalogue(result, rules)
    artifacts: list[dict[str, Any]] = []
    artifact_index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for doc in sorted(result.documents, key=lambda d: d.path):
        uri = artifact_uri(prefix + doc.path)
        artifact_index[uri] = len(artifacts)
        artifacts.append(_artifact(doc, uri))
        for f in sorted(doc.findings, key=Finding.sort_key) + doc.fixed:
            fp = fingerprint(f, prefix + doc.path)
            seen[fp] = seen.get(fp, 0) + 1
            if seen[fp] > 1:
                fp = f"{fp}:{seen[fp]}"
            res = _result(f, index[f.rule], _physical(uri, artifact_index[uri], _region(f)), fp)
            related = _related_locations(f, uri, prefix, artifact_index)
            if related:
                res["relatedLocations"] = related
            results.append(res)

    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "recipe-check",
            "version": __version__,
            "semanticVersion": __version__,
            **({"informationUri": url} if (url := project_url(env)) else {}),
            "rules": [rule_descriptor(r, env) for r in catalogue],
        }},
        "invocations": [_invocation(result)],
        "columnKind": "unicodeCodePoints",
        "artifacts": artifacts,
        "results": results,
    }
    vcs = _version_control(result, env)
    if vcs:
        run["versionControlProvenance"] = [vcs]
    if result.context:
        run["properties"] = {"recipeCheck": result.context}
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _catalogue(result: RunResult, rules: Sequence[Rule] | None
               ) -> tuple[list[Rule], dict[str, int]]:
    """The rules of ``tool.driver.rules`` and the index of each id among them: ``rules``
    (default: every registered rule), plus a plain descriptor for each rule of a finding
    the catalogue does not hold."""
    from validator.rule_index import all_rules
    from validator.rules.metadata import Rule

    catalogue = list(all_rules() if rules is None else rules)
    index = {r.id: i for i, r in enumerate(catalogue)}
    for f in result.all_findings():
        if f.rule not in index:
            index[f.rule] = len(catalogue)
            catalogue.append(Rule(f.rule, f.severity, f.rule, f"Rule {f.rule}."))
    return catalogue, index


def _artifact(doc: DocumentResult, uri: str) -> dict[str, Any]:
    """The SARIF artifact of one checked document (its digests when it was verified)."""
    artifact: dict[str, Any] = {
        "location": {"uri": uri, "uriBaseId": SRCROOT},
        "roles": ["analysisTarget"],
        "mimeType": "application/yaml",
        "encoding": "utf-8",
        "properties": {"kind": doc.checked},
    }
    if doc.provenance.sha256:  # empty when the bytes failed verification (PROV001)
        artifact["hashes"] = {"sha-256": doc.provenance.sha256}
        artifact["properties"]["gitBlob"] = doc.provenance.git_blob
    return artifact


def _result(f: Finding, rule_index: int, location: dict[str, Any],
            fp: str) -> dict[str, Any]:
    """The SARIF result of one finding (without its related locations)."""
    res: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[f.severity],
        "message": {"text": finding_text(f)},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {FINGERPRINT_KEY: fp},
        "properties": {"pointer": f.pointer},
    }
    if f.baseline:  # PR mode (section 3.27.24)
        res["baselineState"] = f.baseline
        if f.baseline == "absent":  # fixed: the rule passes there at the head
            res.update(kind="pass", level="none")
    if f.hint:
        res["properties"]["hint"] = f.hint
    return res


def _related_locations(f: Finding, uri: str, prefix: str,
                       artifact_index: dict[str, int]) -> list[dict[str, Any]]:
    """The lines a finding's message names, as SARIF related locations (an artifact
    index where the named document is already among the artifacts)."""
    related = []
    for n, rel in enumerate(f.related, start=1):
        rel_uri = artifact_uri(prefix + rel.path) if rel.path else uri
        related.append({
            "id": n,
            "physicalLocation": _physical(rel_uri, artifact_index.get(rel_uri),
                                          {"startLine": rel.line} if rel.line > 0
                                          else None),
            "message": {"text": rel.message},
        })
    return related


def _version_control(result: RunResult, env: Mapping[str, str]) -> dict[str, Any] | None:
    """The run's ``versionControlProvenance`` entry, when its revision and repository
    are known."""
    revision = _revision(result)
    repo_uri = _repository_uri(result, env)
    if not (revision and repo_uri):
        return None
    vcs: dict[str, Any] = {"repositoryUri": repo_uri, "revisionId": revision,
                           "mappedTo": {"uriBaseId": SRCROOT}}
    if env.get("GITHUB_HEAD_REF"):
        vcs["branch"] = env["GITHUB_HEAD_REF"]
    return vcs


def _invocation(result: RunResult) -> dict[str, Any]:
    inv: dict[str, Any] = {"executionSuccessful": not result.internal_errors}
    if result.internal_errors:
        inv["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": msg}} for msg in result.internal_errors]
    return inv


class SarifReporter:
    """SARIF 2.1.0 log, two-space indented, trailing newline.

    Args:
        path_prefix: see :func:`sarif_log`.
    """

    def __init__(self, path_prefix: str = "") -> None:
        self.path_prefix = path_prefix

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write :func:`sarif_log` of ``result`` as JSON."""
        stream.write(json_text(sarif_log(result, path_prefix=self.path_prefix)))
        stream.write("\n")
