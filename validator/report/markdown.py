"""``--format markdown``: a GitHub job summary (``$GITHUB_STEP_SUMMARY``).

Counts, the files checked (and, in PR mode, why each was checked), and one table of
findings per file, each rule linked to its section of ``docs/rules.md`` on the
repository the Action runs from, each line linked to the file at the checked revision.

GitHub accepts at most 1 MiB of step summary per step ("Adding a job summary",
docs.github.com: "the size of the summary for each step is limited to 1MiB"); the
reporter keeps its output within a byte budget (what is left of 1 MiB after what the step
already wrote) and ends with a note when it had to leave findings out.

Text from recipes (messages quote values) is escaped so that it renders as text: HTML
specials become entities and Markdown punctuation is backslash-escaped (CommonMark
section 2.4, "Backslash escapes").
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from validator import __version__
from validator.checker import DocumentResult, RunResult
from validator.findings import Finding, Severity, count_by_severity, printable
from validator.report.environment import report_environment

if TYPE_CHECKING:
    from validator.recipe_diff import RecipeDiff

SUMMARY_LIMIT = 1024 * 1024
"""GitHub's size limit of one step's summary, in bytes."""

PROJECT_URL_LABELS = ("repository", "source", "source code", "homepage")
"""``Project-URL`` labels of the installed package (``[project.urls]`` of
``pyproject.toml``) that name recipe-check's repository, in order of preference."""

_ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.INFO: "ℹ️"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")


def project_url(env: Mapping[str, str] | None = None) -> str | None:
    """URL of recipe-check's repository (no trailing slash), or None when none is
    configured: rule links then point at the documentation shipped with the project
    (:func:`shipped_rules_doc`), never at a repository guessed by name.

    Order: ``RECIPE_CHECK_PROJECT_URL``; ``$GITHUB_SERVER_URL/$GITHUB_ACTION_REPOSITORY``
    when an Action step is running; the installed package's ``Project-URL``
    (:data:`PROJECT_URL_LABELS`).
    """
    env = report_environment() if env is None else env
    if env.get("RECIPE_CHECK_PROJECT_URL"):
        return env["RECIPE_CHECK_PROJECT_URL"].rstrip("/")
    if env.get("GITHUB_ACTION_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server.rstrip('/')}/{env['GITHUB_ACTION_REPOSITORY']}"
    return _package_project_url()


def _package_project_url() -> str | None:
    """The installed package's repository ``Project-URL`` (an https URL), if declared."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        entries = metadata("recipe-check").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    urls = {}
    for entry in entries:
        label, _, url = str(entry).partition(",")
        urls[label.strip().lower()] = url.strip().rstrip("/")
    return next((urls[k] for k in PROJECT_URL_LABELS
                 if urls.get(k, "").startswith("https://")), None)


def shipped_rules_doc() -> Path | None:
    """``docs/rules.md`` of the project this package runs from (a source checkout or an
    editable install: the folder above the package holds the project's
    ``pyproject.toml``), or None (an installed wheel carries no docs folder)."""
    root = Path(__file__).resolve().parents[2]
    doc = root / "docs" / "rules.md"
    if (root / "pyproject.toml").is_file() and doc.is_file():
        return doc
    return None


def rule_doc_url(rule_id: str, env: Mapping[str, str] | None = None) -> str | None:
    """Link to ``rule_id``'s section of ``docs/rules.md``: in recipe-check's configured
    repository (:func:`project_url`) at ``RECIPE_CHECK_DOCS_REF`` (else
    ``GITHUB_ACTION_REF``, else ``main``); else in the copy shipped with the project
    (a ``file:`` URI); else None (no link: ``recipe-check rules --long`` documents it)."""
    from validator.docs import rule_anchor

    env = report_environment() if env is None else env
    base = project_url(env)
    if base is not None:
        ref = env.get("RECIPE_CHECK_DOCS_REF") or env.get("GITHUB_ACTION_REF") or "main"
        return f"{base}/blob/{ref}/docs/rules.md#{rule_anchor(rule_id)}"
    doc = shipped_rules_doc()
    return f"{doc.as_uri()}#{rule_anchor(rule_id)}" if doc is not None else None


def escape_md(text: str) -> str:
    """``text`` as literal Markdown inside a table cell: HTML specials as entities,
    Markdown punctuation backslash-escaped, line breaks as ``<br>``."""
    text = html.escape(printable(text, keep="\r\n"), quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class MarkdownReporter:
    """Job-summary Markdown within a byte budget.

    Args:
        budget: most bytes (UTF-8) to write; default :data:`SUMMARY_LIMIT`.
        path_prefix: prepended to document paths for links (recipes in a sub-folder of
            the repository).
        env: environment to read ``GITHUB_*``/``RECIPE_CHECK_*`` from (default
            :func:`~validator.report.environment.report_environment`).
    """

    def __init__(self, budget: int = SUMMARY_LIMIT, path_prefix: str = "",
                 env: Mapping[str, str] | None = None) -> None:
        self.budget = budget
        self.path_prefix = path_prefix.strip("/") + "/" if path_prefix.strip("/") else ""
        self.env = dict(report_environment() if env is None else env)
        self._pr: dict[str, Any] | None = None

    # -- links -------------------------------------------------------------------------

    def _blob_url(self, doc: DocumentResult, line: int | None = None) -> str | None:
        revision = doc.provenance.commit
        # PR mode names the repository it knows (None for a clone of unknown origin,
        # whose provenance label is only a folder name)
        repo = (self._pr.get("repository") if self._pr is not None
                else doc.provenance.repository or self.env.get("GITHUB_REPOSITORY"))
        if not revision or not repo:
            return None
        server = (self.env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
        url = f"{server}/{repo}/blob/{revision}/{self.path_prefix}{doc.path}"
        return f"{url}#L{line}" if line else url

    def _file_cell(self, doc: DocumentResult) -> str:
        url = self._blob_url(doc)
        name = escape_md(self.path_prefix + doc.path)
        return f"[{name}]({url})" if url else name

    # -- sections ----------------------------------------------------------------------

    def _header(self, result: RunResult) -> list[str]:
        s = result.summary()
        if result.internal_errors:
            verdict = "💥 recipe-check crashed on some checks"
        elif result.failing():
            verdict = f"❌ {_plural(len(result.failing()), 'error')}"
            if result.fail_on == "new" and result.has_baseline():
                verdict += " introduced by this change"
        elif s["errors"]:
            verdict = f"✅ no new errors ({_plural(s['errors'], 'error')} already at the base)"
        else:
            verdict = "✅ no errors"
        out = [f"## recipe-check: {verdict}", ""]
        if result.has_baseline():
            b = result.baseline_counts()
            failing = len(result.failing())
            out += [f"**{b['new']} new**, {b['existing']} existing, {b['fixed']} fixed "
                    f"against the merge base; {_plural(failing, 'error')} "
                    f"fail{'s' if failing == 1 else ''} this check "
                    f"(fail-on: {escape_md(result.fail_on)}).", ""]
        out += [f"{_plural(s['documents'], 'file')} checked: {_plural(s['errors'], 'error')}, "
               f"{_plural(s['warnings'], 'warning')}, {_plural(s['infos'], 'info')} "
               f"(recipe-check {escape_md(__version__)}).", ""]
        pr = result.context.get("pr")
        if isinstance(pr, dict):
            base, head, mb = pr.get("base"), pr.get("head"), pr.get("merge_base")
            if head:
                line = f"Checked head `{str(head)[:12]}`"
                if base:
                    line += f" against base `{str(base)[:12]}`"
                if mb:
                    line += f" (merge base `{str(mb)[:12]}`)"
                out += [line + ", with the head's taxonomy and strategies.", ""]
        for msg in result.internal_errors:
            out += [f"> internal error: {escape_md(msg)}", ""]
        return out

    def _files_table(self, result: RunResult) -> list[str]:
        pr = result.context.get("pr")
        reasons: dict[str, list[str]] = {}
        skipped: list[dict[str, Any]] = []
        if isinstance(pr, dict):
            for entry in pr.get("files", []):
                reasons[entry["path"]] = list(entry.get("reasons", []))
            skipped = list(pr.get("skipped", []))
        if not result.documents and not skipped:
            if isinstance(pr, dict):
                return ["No recipe, taxonomy or strategy file to check in this change.", ""]
            return []
        pr_mode = isinstance(pr, dict)
        out = ["### Files checked", "",
               "| File | Errors | Warnings | Infos |" + (" Checked because |" if pr_mode else ""),
               "| --- | ---: | ---: | ---: |" + (" --- |" if pr_mode else "")]
        for doc in sorted(result.documents, key=lambda d: d.path):
            c = count_by_severity(doc.findings)
            row = f"| {self._file_cell(doc)} | {c['errors']} | {c['warnings']} | {c['infos']} |"
            if pr_mode:
                row += " " + ("<br>".join(escape_md(r) for r in reasons.get(doc.path, []))
                              or "—") + " |"
            out.append(row)
        out.append("")
        if skipped:
            out += ["Not checked: " + "; ".join(
                f"{escape_md(str(s.get('path')))} ({escape_md(str(s.get('why')))})"
                for s in skipped), ""]
        return out

    def _finding_row(self, doc: DocumentResult, f: Finding) -> str:
        # a fixed finding's line is the merge base's, not the head's: no link
        url = None if f.baseline == "absent" else self._blob_url(doc, f.line or None)
        where = f"[{f.line}]({url})" if url and f.line > 0 else str(f.line or "—")
        doc_url = rule_doc_url(f.rule, self.env)
        rule = f"[{f.rule}]({doc_url})" if doc_url else f.rule
        text = escape_md(f.message)
        for rel in f.related:
            text += f"<br>see {escape_md(rel.path or f.path)}:{rel.line}: {escape_md(rel.message)}"
        if f.hint:
            text += f"<br>*hint:* {escape_md(f.hint)}"
        state = {"new": " · new", "unchanged": " · existing", "absent": " · fixed"}.get(
            f.baseline or "", "")
        return f"| {_ICON[f.severity]} {f.severity.value}{state} | {rule} | {where} | {text} |"

    # -- output ------------------------------------------------------------------------

    def render(self, result: RunResult) -> str:
        """The whole summary as text, at most :attr:`budget` bytes in UTF-8."""
        pr = result.context.get("pr")
        self._pr = pr if isinstance(pr, dict) else None
        footer_reserve = 400
        buf = io.StringIO()
        used = 0

        def put(lines: list[str]) -> bool:
            nonlocal used
            chunk = "\n".join(lines) + "\n"
            size = len(chunk.encode("utf-8"))
            if used + size > self.budget - footer_reserve:
                return False
            buf.write(chunk)
            used += size
            return True

        if not put(self._header(result)):
            return _truncation_note(result.summary(), 0, self.budget)
        self._put_user_changes(result, put)
        self._put_patches(result, put)
        files = self._files_table(result)
        if files and not put(files):
            put(["_The list of files was too long for the summary._", ""])
        total = len(result.all_findings()) + sum(len(d.fixed) for d in result.documents)
        shown = 0
        docs = [d for d in sorted(result.documents, key=lambda d: d.path)
                if d.findings or d.fixed]
        if docs and put(["### Findings", ""]):
            for doc in docs:
                head = [f"#### {self._file_cell(doc)}", "",
                        "| Severity | Rule | Line | Message |", "| --- | --- | ---: | --- |"]
                if not put(head):
                    break
                ok = True
                for f in sorted(doc.findings, key=Finding.sort_key) + doc.fixed:
                    if not put([self._finding_row(doc, f)]):
                        ok = False
                        break
                    shown += 1
                put([""])
                if not ok:
                    break
        text = buf.getvalue()
        if shown < total:
            text += _truncation_note(result.summary(), total - shown, self.budget - used)
        return text

    def _put_user_changes(self, result: RunResult, put: Callable[[list[str]], bool]) -> None:
        """PR mode: the "What changes for users" section, in at most half the budget, line
        by line; a last line says how many lines did not fit."""
        if result.user_changes is None:
            return
        lines = result.user_changes.markdown()
        half = self.budget // 2
        used = 0
        fence: str | None = None
        for n, line in enumerate(lines):
            size = len(line.encode("utf-8")) + 1
            if used + size > half or not put([line]):
                closing = [fence, ""] if fence else []
                put([*closing, f"_… {len(lines) - n} more line(s) of changes not shown "
                     "(GitHub limits a step summary to 1 MiB); run `recipe-check diff` "
                     "for all._", ""])
                return
            used += size
            if line.startswith("```"):
                fence = None if fence else line.removesuffix("text")

    def _put_patches(self, result: RunResult, put: Callable[[list[str]], bool]) -> None:
        """PR mode: the "Suggested fixes" section, the safe fixes of the new findings as a
        patch per recipe (``recipe-check --fix PATH`` applies them); a patch that does not
        fit in a quarter of the budget is named, not shown."""
        if not result.suggested_patches:
            return
        if not put(["### Suggested fixes", "",
                    "Safe fixes of the new findings; `recipe-check --fix PATH` applies them.",
                    ""]):
            return
        room = self.budget // 4
        for path, patch in sorted(result.suggested_patches.items()):
            longest = max((len(m) for m in re.findall(r"`+", patch)), default=0)
            fence = "`" * max(3, longest + 1)
            block = [f"#### `{printable(path)}`", "", f"{fence}diff",
                     *(printable(line) for line in patch.rstrip("\n").split("\n")), fence, ""]
            size = sum(len(line.encode("utf-8")) + 1 for line in block)
            if size > room or not put(block):
                put([f"_The patch for `{printable(path)}` is too long for the summary; run "
                     f"`recipe-check --diff {printable(path)}`._", ""])
            else:
                room -= size

    def write(self, result: RunResult, stream: TextIO) -> None:
        """Write :meth:`render` of ``result``."""
        stream.write(self.render(result))


def _truncation_note(summary: dict[str, int], missing: int, room: int) -> str:
    note = (f"\n> **Summary truncated:** {_plural(missing, 'finding')} not shown "
            f"(GitHub limits a step summary to 1 MiB). Totals: "
            f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')},"
            f" {_plural(summary['infos'], 'info')}. The SARIF or JSON report lists all.\n")
    return note if len(note.encode("utf-8")) <= max(room, 0) else ""


def append_step_summary(result: RunResult, path: Path, *, path_prefix: str = "",
                        env: Mapping[str, str] | None = None) -> int:
    """Append the summary of ``result`` to the step-summary file ``path``, keeping the
    file within :data:`SUMMARY_LIMIT` (what the step already wrote counts).

    Returns the number of bytes appended (0 when no room was left).

    Raises:
        OSError: the file cannot be read or written.
    """
    existing = path.stat().st_size if path.exists() else 0
    budget = SUMMARY_LIMIT - existing
    if budget <= 0:
        return 0
    text = MarkdownReporter(budget, path_prefix, env).render(result)
    data = text.encode("utf-8")
    with path.open("ab") as stream:
        stream.write(data)
    return len(data)


def recipe_diff_lines(diff: RecipeDiff, title: str) -> list[str]:
    """What a change to a recipe changes for its users (``recipe-check diff``, the PR
    summary) as a Markdown block: a heading and a fenced block, one line per change."""
    body = diff.lines() or [f"nothing changes for users ({diff.compared} configurations "
                            "rendered the same)"]
    fence = "````" if any("```" in line for line in body) else "```"
    return [f"#### {escape_md(title)}", "", fence + "text",
            *(printable(line) for line in body), fence, ""]
