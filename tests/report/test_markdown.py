"""``--format markdown``: the job summary, its links, escaping and the 1 MiB limit."""

from __future__ import annotations

import re
from pathlib import Path

from validator.docs import rules_markdown
from validator.findings import Severity
from validator.report.markdown import (
    SUMMARY_LIMIT,
    MarkdownReporter,
    append_step_summary,
    escape_md,
    project_url,
    rule_doc_url,
)
from validator.rule_index import all_rules

from ._build import COMMIT, finding, result

ENV = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_ACTION_REPOSITORY": "acme/rc",
       "GITHUB_ACTION_REF": "v1"}


def test_links_point_at_the_actions_repository_and_ref() -> None:
    assert rule_doc_url("REF001", ENV) == \
        "https://github.com/acme/rc/blob/v1/docs/rules.md#ref001"
    env = {**ENV, "RECIPE_CHECK_PROJECT_URL": "https://git.example/rc/", "RECIPE_CHECK_DOCS_REF":
           "abc"}
    assert rule_doc_url("SCHEMA003", env) == "https://git.example/rc/blob/abc/docs/rules.md#schema003"


def test_without_a_configured_repository_rules_link_to_the_shipped_docs() -> None:
    """No ``RECIPE_CHECK_PROJECT_URL`` and no Action: the link is the ``docs/rules.md``
    of this checkout, never a repository guessed by name."""
    assert project_url({}) is None  # this package declares no Project-URL
    doc = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    assert rule_doc_url("REF001", {}) == doc.as_uri() + "#ref001"
    text = MarkdownReporter(env={}).render(result(finding()))
    assert f"| [REF001]({doc.as_uri()}#ref001) | " in text
    assert "github.com/recipe-check" not in text
    assert "### REF001\n" in doc.read_text("utf-8")


def test_every_rule_link_anchor_exists_in_rules_md() -> None:
    doc = rules_markdown(all_rules())
    headings = set(re.findall(r"^### (\S+)$", doc, flags=re.MULTILINE))
    for r in all_rules():
        # GitHub's heading anchor is the lower-cased heading text
        assert r.id in headings
        assert str(rule_doc_url(r.id, ENV)).endswith("#" + r.id.lower())


def test_escaping_keeps_recipe_text_literal() -> None:
    assert escape_md("a|b <script>x</script> *y* [z](u)\nnext") == \
        r"a\|b &lt;script&gt;x&lt;/script&gt; \*y\* \[z\](u)<br>next"


def test_summary_tables_counts_and_links() -> None:
    run = result(finding(), finding(rule="REF013", severity=Severity.WARNING, line=5,
                                    end_line=5, message="related recipe 'a|b' missing"))
    text = MarkdownReporter(env=ENV).render(run)
    assert text.startswith("## recipe-check: ❌ 1 error\n")
    assert "1 file checked: 1 error, 1 warning, 0 infos" in text
    blob = f"https://github.com/example-org/recipes/blob/{COMMIT}/models/example-org/Example-7B.yaml"
    assert f"| [models/example-org/Example-7B.yaml]({blob}) | 1 | 1 | 0 |" in text
    assert "Checked because" not in text  # only PR mode knows why
    assert (f"| ❌ error | [REF001](https://github.com/acme/rc/blob/v1/docs/rules.md#ref001) | "
            f"[2]({blob}#L2) | model\\_id does not match the path<br>*hint:* set model\\_id "
            "to the path |") in text
    assert "related recipe 'a\\|b' missing" in text


def test_clean_run_says_so() -> None:
    text = MarkdownReporter(env=ENV).render(result())
    assert text.startswith("## recipe-check: ✅ no errors")
    assert "### Findings" not in text


def test_truncates_within_budget_with_a_note() -> None:
    findings = [finding(line=i, end_line=i, message="x" * 200) for i in range(1, 400)]
    run = result(*findings)
    full = MarkdownReporter(env=ENV).render(run)
    assert "truncated" not in full
    small = MarkdownReporter(budget=20_000, env=ENV).render(run)
    assert len(small.encode("utf-8")) <= 20_000
    shown = small.count("| ❌ error |")
    assert 0 < shown < 399
    assert f"**Summary truncated:** {399 - shown} findings not shown" in small
    assert "Totals: 399 errors, 0 warnings, 0 infos" in small


def test_append_keeps_the_step_summary_under_one_mib(tmp_path: Path) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_bytes(b"# earlier output\n" + b"." * (SUMMARY_LIMIT - 30_000))
    run = result(*[finding(line=i, end_line=i, message="y" * 300) for i in range(1, 500)])
    written = append_step_summary(run, summary, env=ENV)
    assert 0 < written <= 30_000
    assert summary.stat().st_size <= SUMMARY_LIMIT
    assert "Summary truncated" in summary.read_text(encoding="utf-8")
    # a full file takes nothing more
    summary.write_bytes(b"." * SUMMARY_LIMIT)
    assert append_step_summary(run, summary, env=ENV) == 0
    assert summary.stat().st_size == SUMMARY_LIMIT
