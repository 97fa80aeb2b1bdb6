"""Output injection (issue 16, items 8 and 9): file names and recipe text with CR/LF,
ESC, BEL, BS, NEL, U+2028, bidi overrides, ``#``/``?``/``%`` cannot fake lines or
workflow commands in any format, and SARIF URIs are RFC 3986 references."""

from __future__ import annotations

import io
import json
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

from validator.checker import DocumentResult, RunResult
from validator.cli import main
from validator.findings import Finding, Related, Severity
from validator.report import get_reporter
from validator.report.github import GithubReporter
from validator.source.provenance import Provenance

HOSTILE = ["\r::error::pwned", "\n::error::pwned", "\x1b[2J\x1b[31mred", "\x07bell", "\x08bs",
           "\u202eevil\u202c", "\u2028::error::sep", "\u2029para", "\x85::error::nel",
           "#frag", "?q=1", "%0A::error::enc", " sp ace", "\u200bzw", "caf\u00e9"]
NAME = "models/org/" + "".join(HOSTILE).replace("\n", "_").replace("/", "_") + ".yaml"

# What may never appear raw in output: C0/C1 controls but LF, format characters, and
# line/paragraph separators.
_BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
# RFC 3986 relative-ref path characters: unreserved, sub-delims, '@', '/', pct-encoded.
_URI = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=@/]|%[0-9A-F]{2})+$")


def _bad_chars(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text
            if _BAD.match(c) or unicodedata.category(c) == "Cf"]


def _result(n_findings: int = 3) -> RunResult:
    text = "value " + "".join(HOSTILE)
    findings = [Finding(rule="REF004", severity=Severity.ERROR, path=NAME, pointer="/a",
                        line=i + 1, column=1, message=f"{text} #{i}", hint=text,
                        related=(Related(1, text, NAME),))
                for i in range(n_findings)]
    result = RunResult()
    result.documents.append(DocumentResult(NAME, Provenance(NAME, "a" * 64, "b" * 40,
                                                            resolved_from=text), findings))
    result.internal_errors.append(f"REF004 crashed on {text}")
    return result


def _command_lines(out: str) -> list[str]:
    return [ln for ln in out.split("\n") if ln.startswith("::")]


@pytest.mark.parametrize("fmt", ["text", "github", "markdown", "json", "sarif"])
def test_no_raw_control_characters_in_any_format(fmt: str) -> None:
    buf = io.StringIO()
    get_reporter(fmt).write(_result(), buf)
    out = buf.getvalue()
    assert _bad_chars(out) == [], fmt
    assert "pwned" in out or "pwned" in json.dumps(out)


def test_github_lines_past_the_annotation_limit() -> None:
    buf = io.StringIO()
    GithubReporter(limit=1).write(_result(5), buf)
    out = buf.getvalue()
    assert _bad_chars(out) == []
    commands = _command_lines(out)
    # only the commands the reporter writes: group/endgroup, one annotation, the
    # internal error; no line begins with text from the recipe or the file name
    assert [c.split(" ", 1)[0].split("::")[1] for c in commands] == \
        ["group", "error", "endgroup", "error"]
    assert not any(ln.startswith("::error::pwned") for ln in out.split("\n"))
    assert sum("not annotated" in ln for ln in out.split("\n")) == 1


def test_sarif_uris_are_percent_encoded() -> None:
    log = json.loads(_sarif(_result()))
    run = log["runs"][0]
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    uris += [loc["physicalLocation"]["artifactLocation"]["uri"]
             for r in run["results"] for loc in r["locations"] + r["relatedLocations"]]
    assert uris and all(_URI.match(u) for u in uris), uris
    assert "%0D%3A%3Aerror%3A%3Apwned" in uris[0]
    assert "%23frag" in uris[0] and "%3Fq=1" in uris[0] and "%250A" in uris[0]
    assert "%E2%80%AE" in uris[0] and "%20sp%20ace" in uris[0]
    assert "models/org/" in uris[0]


def _sarif(result: RunResult) -> str:
    buf = io.StringIO()
    get_reporter("sarif").write(result, buf)
    return buf.getvalue()


def test_plain_names_keep_their_uri() -> None:
    from validator.report.sarif import artifact_uri

    assert artifact_uri("models/zai-org/GLM-5.2.yaml") == "models/zai-org/GLM-5.2.yaml"
    assert artifact_uri("models/a b/c#d?e%f.yaml") == "models/a%20b/c%23d%3Fe%25f.yaml"


@pytest.mark.corpus
def test_pr_text_and_github_with_hostile_file_names(corpus_repo: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    """A real PR (a clone of the corpus) adding files whose names carry CR + ``::error::``,
    ESC and bidi characters: no format prints them raw."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--shared", str(corpus_repo), str(repo)], check=True)

    def git(*args: str, data: bytes | None = None) -> str:
        return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                              input=data).stdout.decode().strip()

    names = ["models/org/a\r::error::pwned.yaml", "notes/\x1b[31mred\r::warning::x.txt",
             "models/org/\u202eevil.yaml", "docs/\u2028::error::y.md"]
    for name in names:
        blob = git("hash-object", "-w", "--stdin", data=b"model: [\n")
        git("update-index", "--add", "--cacheinfo", "100644", blob, name)
    commit = git("commit-tree", git("write-tree"), "-p", "HEAD", "-m", "hostile")
    for fmt in ("text", "github", "markdown", "sarif", "json"):
        code = main(["pr", "--repo", str(repo), "--base", "main", "--head", commit,
                     "--format", fmt])
        out = capsys.readouterr().out
        assert code == 1, fmt
        assert _bad_chars(out) == [], fmt
        if fmt in ("text", "github"):
            assert not any(ln.startswith(("::error::pwned", "::warning::x"))
                           for ln in out.split("\n")), fmt
