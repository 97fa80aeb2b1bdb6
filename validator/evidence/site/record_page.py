"""One page per record: provenance, findings summary, rendered commands per configuration
(with copy buttons), deployment options, facts with their evidence links, reported results
with their conditions, the generated text with its citations, and what was not verified.

Every value comes from the record; every recipe string is escaped; evidence links are the
record's own pinned ``https://github.com/<repo>/blob/<commit>/<path>#L<n>`` URLs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validator.analysis.shell_hazards import warning_lines
from validator.evidence.record import RENDERED_LIMITATION
from validator.evidence.site.facts_page import facts
from validator.evidence.site.guide_page import guide_body
from validator.evidence.site.html import (
    citations,
    esc,
    evidence,
    hidden_count,
    link,
    local_link,
    number_text,
    page,
    table,
)
from validator.evidence.site.limitations import Limitation, limitations
from validator.evidence.site.precision import precision_label
from validator.render.args import shell_quote

_SETUP_LABELS = (("hardware", "hardware"), ("image", "image"),
                 ("draft_tokens", "draft tokens"), ("max_model_len", "max model len"),
                 ("input_tokens", "input tokens"), ("output_tokens", "output tokens"),
                 ("generated_tokens", "generated tokens"))


@dataclass(frozen=True)
class Links:
    """Relative links of one record page: the site root, the record JSON, the in-toto
    statement (``None`` when not published) and the schema."""

    root: str
    record_json: str
    statement: str | None
    schema: str


def _dl(pairs: list[tuple[str, str]]) -> str:
    return "<dl class=\"kv\">" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in pairs) \
        + "</dl>"


def provenance(rec: dict[str, Any], links: Links) -> str:
    """Where the document came from and how to check it."""
    src = rec["source"]
    pairs = [
        ("Repository", link(src["url"], src["repository"])),
        ("Commit", f"<code>{esc(src['revision'])}</code>"),
        ("Document", link(src["pinned_url"], src["document_path"], "pinned")),
        ("SHA-256", f"<code>{esc(src['document_sha256'])}</code>"),
        ("Git blob", f"<code>{esc(src['git_blob'])}</code>"),
        ("Last commit", esc(f"{src.get('last_commit') or 'unknown'} "
                            f"({src.get('last_commit_at') or 'no date'})")),
        ("Checked on", esc(src["checked_on"])),
        ("Record", local_link(links.record_json, "record JSON")
         + " &middot; " + local_link(links.schema, "schema")),
        ("in-toto Statement", local_link(links.statement, "statement (unsigned)")
         if links.statement else "<span class=\"muted\">not published</span>"),
    ]
    tool = rec["validation"]["tool"]
    pairs.append(("Checked by", esc(f"{tool['name']} {tool['version']}")))
    return "<h2 id=\"provenance\">Provenance</h2>" + _dl(pairs)


def findings(rec: dict[str, Any]) -> str:
    """Counts, skipped rules, and every finding with its line."""
    val = rec["validation"]
    s = val["summary"]
    skipped = val.get("rules_skipped") or []
    head = (f"<p><span class=\"count\">{s.get('errors', 0)} error(s), "
            f"{s.get('warnings', 0)} warning(s), {s.get('infos', 0)} info(s)</span> from "
            f"{val['rules_run']} rules")
    head += (f"; <strong>{len(skipped)} rules skipped</strong> for lack of context "
             f"({esc(', '.join(skipped))}).</p>" if skipped else "; no rule skipped.</p>")
    rows = [[f"<span class=\"nowrap\">{esc(f['rule'])}</span>",
             f"<span class=\"nowrap\">{esc(f['severity'])}</span>",
             evidence(f.get("evidence_url")),
             "<div class=\"msg\">" + esc(f["message"])
             + (f"<br><span class=\"muted\">{esc(f['hint'])}</span>" if f.get("hint") else "")
             + "</div>"]
            for f in val["findings"]]
    body = table(["Rule", "Severity", "Line", "Message"], rows, stack=True) if rows else \
        "<p class=\"muted\">No findings.</p>"
    return "<h2 id=\"findings\">Findings</h2>" + head + body


def _command(block_id: str, label: str, text: str | None,
             commands: list[str] | None = None) -> str:
    """A command block with a Copy button -- or, when a command of it (``commands``: the
    lines run one by one; else the whole text) holds shell code, its ``# warning:`` lines
    above the text and no button: the page never offers one click to run what it does
    not show."""
    if not text:
        return ""
    warnings = [w for command in (commands or [text]) for w in warning_lines(command)]
    if warnings:
        return (f"<div class=\"cmd warning\"><p><strong>{esc(label)}</strong> "
                "<span class=\"muted\">no Copy button: the recipe puts shell code in this "
                f"command (REF018)</span></p><pre><code id=\"{block_id}\">"
                f"{esc(chr(10).join([*warnings, text]))}</code></pre></div>")
    return (f"<div class=\"cmd\"><p><strong>{esc(label)}</strong> "
            f"<button type=\"button\" class=\"copy\" data-target=\"{block_id}\" hidden>Copy"
            f"</button></p><pre><code id=\"{block_id}\">{esc(text)}</code></pre></div>")


def commands(rec: dict[str, Any]) -> str:
    """Rendered default configuration per hardware; the landing one open."""
    rendered = rec.get("rendered_defaults")
    out = ["<h2 id=\"commands\">Rendered commands</h2>"]
    if rendered is None:
        out.append("<p class=\"muted\">Not rendered: the taxonomy or strategies of this "
                   "commit were unavailable.</p>")
        return "".join(out)
    out.append("<p class=\"muted\">The configuration the site's builder lands on for each "
               "hardware profile, rendered by recipe-check's port of the site's command "
               "synthesis. Nothing was run.</p>")
    for i, r in enumerate(sorted(rendered, key=lambda r: not r["site_default"])):
        title = (f"{r['hardware']} · {r['variant']} · {r['strategy']}"
                 + (f" · {r['node_count']} nodes" if (r.get("node_count") or 1) > 1 else "")
                 + (" (page default)" if r["site_default"] else ""))
        parts = [_dl([("Features", esc(", ".join(r["features"]) or "none")),
                      ("Deploy type", esc(r.get("deploy_type") or "")),
                      ("Docker image", f"<code>{esc(r.get('docker_image') or '')}</code>")])]
        for j, proc in enumerate(r["processes"] or []):
            parts.append(_command(f"c{i}-{j}", f"{proc['role']}: vllm serve",
                                  proc["command"]))
            parts.append(_command(f"d{i}-{j}", f"{proc['role']}: docker run",
                                  proc.get("docker_command")))
        if r["env"]:
            exports = [f"export {k}={shell_quote(v)}" for k, v in r["env"].items()]
            parts.append(_command(f"e{i}", "environment", "\n".join(exports), exports))
        if r.get("problems"):
            parts.append("<p class=\"muted\">" + esc("; ".join(r["problems"])) + "</p>")
        is_open = " open" if r["site_default"] else ""
        out.append(f"<details{is_open}><summary>{esc(title)}</summary>{''.join(parts)}"
                   "</details>")
    return "".join(out)


def options(rec: dict[str, Any]) -> str:
    """Variants: model, precision, planning minimum, minimum vLLM, hardware."""
    rows = []
    for o in rec["deployment_options"]:
        compat = o.get("compatible_hardware")
        single = o.get("single_node_hardware")
        rows.append([esc(o["variant"]), f"<code>{esc(o.get('model_id') or '')}</code>",
                     esc(precision_label(str(o.get("precision") or ""))),
                     esc(number_text(o.get("declared_planning_minimum_gb") or "")),
                     esc(o.get("minimum_runtime_version") or ""),
                     esc(", ".join(compat) if compat is not None else "not derived"),
                     esc(", ".join(single) if single is not None else "not derived")])
    return "<h2 id=\"options\">Variants</h2>" + table(
        ["Variant", "Model", "Precision", "Planning minimum (GB)", "Minimum vLLM",
         "Picker hardware", "One node holds the planning minimum"], rows)


def results(rec: dict[str, Any]) -> str:
    """Figures the guide reports, with bounds and conditions; never measurements."""
    out = ["<h2 id=\"reported\">Reported results</h2>"]
    res = rec.get("reported_results") or []
    if not res:
        out.append("<p class=\"muted\">The guide reports no figures.</p>")
        return "".join(out)
    out.append("<p class=\"muted\">What the recipe's guide says its authors observed. Not "
               "measured by recipe-check or the publisher.</p>")
    rows = []
    for r in res:
        setup = r.get("setup") or {}
        conds = [f"{label}: {', '.join(setup[k]) if isinstance(setup[k], list) else setup[k]}"
                 for k, label in _SETUP_LABELS if setup.get(k)]
        heading = (r.get("conditions") or {}).get("heading")
        if heading:
            conds.append(f"section: {heading}")
        carried = "".join(f" {evidence(u, 'from')}" for u in setup.get("inherited_from") or [])
        rows.append([esc(r["label"]), f"<code>{esc(r['quoted'])}</code>",
                     esc(f"{r.get('bound', '=')} {r['value']} {r['unit']}"),
                     esc("; ".join(conds)) + carried, evidence(r["evidence_url"])])
    out.append(table(["Figure", "As written", "Value", "Conditions", "Evidence"], rows))
    return "".join(out)


def editorial(rec: dict[str, Any]) -> str:
    """The generated text with its citations and record references."""
    ed = rec["editorial"]

    def para(p: dict[str, Any]) -> str:
        cites = citations(list(p.get("citations") or []))
        refs = (" <span class=\"muted\">(from the record: "
                + esc(", ".join(p["record_refs"])) + ")</span>") if p.get("record_refs") else ""
        return f"<p>{esc(p['text'])} <small>{cites}{refs}</small></p>"

    out = ["<h2 id=\"editorial\">Summary</h2>", para(ed["answer"])]
    for s in ed["sections"]:
        out.append(f"<h3>{esc(s['heading'])}</h3>")
        out += [para(p) for p in s["paragraphs"]]
    out.append(f"<p class=\"muted\">{esc(ed['byline'])}. {esc(ed['creation_method'])}</p>")
    return "".join(out)


def limits(rec: dict[str, Any], guide_notes: list[Limitation]) -> str:
    """This recipe's limitations (:mod:`validator.evidence.site.limitations`), each with
    the lines it rests on; ``guide_notes``: the guide's warnings."""
    items = limitations(rec) + guide_notes
    head = "<h2 id=\"limitations\">Limitations</h2>"
    if not items:
        return head + ("<p class=\"muted\">Neither this recipe's facts nor its guide show a "
                       "limitation (hardware not verified, a variant or mode limited to some "
                       "hardware, nightly builds, an unreleased minimum, a warning).</p>")
    return head + "<ul>" + "".join(
        f"<li>{esc(item.text)} <small>{citations(list(item.evidence))}</small></li>"
        for item in items) + "</ul>"


EVERY_CONFIGURATION = ("The commands on this page are recipe-check's reproduction of the "
                       "site's command synthesis for every configuration the page offers "
                       "(the record's JSON keeps the default configuration of each hardware "
                       "profile); none was run.")
"""What a page with the configuration picker says of its commands."""


def not_verified(rec: dict[str, Any], every_configuration: bool = False) -> str:
    """What the record does not establish (``every_configuration``: the page renders
    every configuration, not only the record's defaults)."""
    items = [EVERY_CONFIGURATION if every_configuration and item == RENDERED_LIMITATION
             else item for item in rec.get("limitations") or []]
    items.append("The site's rendering was reproduced by recipe-check, not by the site "
                 "(site_reproduced: false); no figure is comparable or ranked.")
    for c in rec["validation"]["context"]:
        if c["status"] != "same_revision":
            items.append(f"{c['name']}: {c.get('note') or 'unavailable'}")
    for i in rec["validation"]["inputs"]:
        if i["status"] != "used":
            items.append(f"{i['name']}: {i.get('note') or 'unavailable'}")
    skipped = rec["validation"].get("rules_skipped") or []
    if skipped:
        items.append(f"{len(skipped)} rules were not run: {', '.join(skipped)}")
    return ("<h2 id=\"not-verified\">What was not verified</h2><ul>"
            + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")


def _hidden_notice(count: int) -> str:
    if not count:
        return ""
    return (f"<p class=\"notice\" role=\"note\"><strong>{count} hidden character(s)</strong>"
            " in this record: bidirectional controls or invisible characters (YAML010) that "
            "would reorder or hide the text around them. Each is shown, and copied, as a "
            "mark such as &lt;U+202E&gt;.</p>")


def byline(rec: dict[str, Any]) -> str:
    """Who made the record, how, and when; the recipe's own dates."""
    ed, src = rec["editorial"], rec["source"]
    params = rec.get("recipe_parameters") or {}
    parts = [f"Record by {esc(ed['byline'])}",
             f"generated {esc(ed.get('generated_on') or src['checked_on'])}",
             f"recipe checked on {esc(src['checked_on'])}"]
    if params.get("recipe_added_on"):
        parts.append(f"recipe added {esc(params['recipe_added_on'])}")
    if params.get("recipe_updated_on"):
        parts.append(f"updated {esc(params['recipe_updated_on'])}")
    return (f"<p class=\"byline muted\">{' · '.join(parts)}</p>"
            f"<p class=\"muted\"><small>{esc(ed['creation_method'])}</small></p>")


def licence(rec: dict[str, Any]) -> str:
    """The licence the record found for the recipe, and what it covers."""
    lic = rec.get("license") or {}
    spdx = lic.get("declared_spdx")
    pairs = [("Declared", f"<code>{esc(spdx)}</code>" if spdx
              else "<span class=\"muted\">not declared</span>"),
             ("Scope", esc(lic.get("scope") or "not stated"))]
    if lic.get("evidence_url"):
        pairs.append(("Evidence", evidence(lic["evidence_url"])))
    return "<h2 id=\"licence\">Licence</h2>" + _dl(pairs)


def guide(text: str | None) -> str:
    """The recipe's guide, its markdown rendered (raw HTML shown as text, links only to
    web URLs, code blocks highlighted:
    :func:`validator.evidence.site.guide_page.guide_body`), folded."""
    if not text:
        return ""
    lines = text.count("\n") + 1
    return ("<h2 id=\"guide\">Guide</h2><details><summary>The recipe's guide "
            f"({lines} lines of markdown), as the site shows it; its commands are examples, the "
            "configurations above are what the site renders</summary>"
            f"{guide_body(text)}</details>")


def record_html(rec: dict[str, Any], links: Links, configurations: str | None = None,
                guide_text: str | None = None,
                guide_notes: list[Limitation] | None = None) -> str:
    """The whole page of one record; ``configurations`` is its picker section
    (:func:`validator.evidence.site.picker_page.picker_section`), else the default
    configuration per hardware is shown; ``guide_text`` the recipe's guide,
    ``guide_notes`` its warnings (:func:`validator.evidence.site.limitations.guide_warnings`)."""
    sections = [("configurations", "Configurations") if configurations else
                ("commands", "Commands"), ("editorial", "Summary"),
                ("limitations", "Limitations"), ("findings", "Findings"),
                ("options", "Variants"), ("facts", "Facts"), ("reported", "Reported results")]
    sections += [("guide", "Guide")] if guide_text else []
    sections += [("licence", "Licence"), ("provenance", "Provenance"),
                 ("not-verified", "Not verified")]
    nav = ("<nav aria-label=\"Sections\"><p class=\"muted\">"
           + " · ".join(f"<a href=\"#{a}\">{t}</a>" for a, t in sections) + "</p></nav>")
    head = (f"<h1>{esc(rec['title'])}</h1><p><code>{esc(rec.get('model_id') or '')}</code>"
            f" &middot; {esc(rec.get('model_provider') or '')}</p>"
            + (f"<p>{esc(rec['summary'])}</p>" if rec.get("summary") else "")
            + byline(rec) + _hidden_notice(hidden_count(rec)))
    body = "".join((head, nav, configurations or commands(rec), editorial(rec),
                    limits(rec, guide_notes or []), findings(rec),
                    options(rec), facts(rec), results(rec), guide(guide_text), licence(rec),
                    provenance(rec, links),
                    not_verified(rec, configurations is not None)))
    return page(rec["title"], body, links.root, rec.get("summary") or "")
