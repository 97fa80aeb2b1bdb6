"""The catalogue's stylesheet and script: plain CSS and a small vanilla script, written
beside the pages (``assets/site.css``, ``assets/site.js``). No fonts, images or scripts
from anywhere else: the pages must make no network request at all."""

from __future__ import annotations

CSS = """\
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --accent: #0a58ca; --warn: #8a5a00; --err: #b42318; --ok: #1a7f37; }
* { box-sizing: border-box; }
html { font-size: 16px; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); line-height: 1.5; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible,
summary:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--soft); padding: .5rem; }
.skip:focus { left: .5rem; }
header.top { border-bottom: 1px solid var(--line); padding: .75rem 1rem; }
header.top a { text-decoration: none; font-weight: 600; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
main p, main li, main dd, main summary { overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; }
.muted { color: var(--muted); }
.filters { display: grid; gap: .75rem; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr));
  background: var(--soft); padding: .75rem; border-radius: 6px; }
.filters label { display: block; font-size: .85rem; font-weight: 600; }
.filters input, .filters select { width: 100%; padding: .45rem; font-size: 1rem;
  border: 1px solid var(--line); border-radius: 4px; background: var(--bg); }
ul.records { list-style: none; padding: 0; }
ul.records li { border-bottom: 1px solid var(--line); padding: .6rem 0; }
ul.records li a { font-weight: 600; overflow-wrap: anywhere; }
.tags { display: flex; flex-wrap: wrap; gap: .3rem; margin-top: .25rem; }
.tag { font-size: .8rem; background: var(--soft); border: 1px solid var(--line);
  border-radius: 999px; padding: 0 .5rem; }
.tag.err { color: var(--err); } .tag.warn { color: var(--warn); } .tag.ok { color: var(--ok); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line);
  padding: .35rem .5rem; overflow-wrap: break-word; }
th { background: var(--soft); }
a.evidence { white-space: nowrap; }
table.fixed { table-layout: fixed; min-width: 36rem; }
.w14 { width: 14%; } .w18 { width: 18%; } .w24 { width: 24%; } .w26 { width: 26%; }
.w28 { width: 28%; } .w30 { width: 30%; } .w34 { width: 34%; }
.nowrap { white-space: nowrap; }
div.msg { overflow-wrap: anywhere; }
div.guide { overflow-wrap: anywhere; } div.guide pre { overflow-wrap: normal; }
div.guide h4 { font-size: 1rem; } div.guide h5, div.guide h6 { font-size: .95rem; }
div.guide th, div.guide td { overflow-wrap: normal; min-width: 10rem; }
div.guide .align-left { text-align: left; } div.guide .align-center { text-align: center; }
div.guide .align-right { text-align: right; }
details.inputs { margin: .2rem 0 0; } details.inputs summary { font-weight: 400; }
details.inputs p { margin: .2rem 0; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: .75rem; overflow-x: auto; font-size: .85rem; margin: .25rem 0 .75rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.cmd { position: relative; }
button.copy { font: inherit; font-size: .85rem; padding: .25rem .6rem; cursor: pointer;
  border: 1px solid var(--line); border-radius: 4px; background: var(--bg); }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.kv dt { font-weight: 600; } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
details { margin: .5rem 0; } summary { cursor: pointer; font-weight: 600; }
.count { font-weight: 600; }
mark.hidden-char { background: #fff1e5; color: var(--err); border: 1px solid var(--err);
  border-radius: 3px; padding: 0 .15rem; font-family: ui-monospace, monospace; font-size: .85em; }
.notice { border-left: 4px solid var(--err); background: #fff1e5; padding: .5rem .75rem; }
.picker fieldset { grid-column: 1 / -1; border: 1px solid var(--line); border-radius: 4px;
  margin: 0; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; }
.picker legend { font-size: .85rem; font-weight: 600; }
.picker label.check { display: inline-flex; align-items: center; gap: .35rem;
  font-size: 1rem; font-weight: 400; }
.picker label.check input { width: auto; }
.verdict { border-left: 4px solid var(--ok); padding: .1rem .75rem; margin: .5rem 0; }
.verdict.warn { border-color: var(--warn); } .verdict.err { border-color: var(--err);
  background: #fff1e5; }
@media (max-width: 40rem) {
  main { padding: .6rem; } dl.kv { grid-template-columns: 1fr; }
  table.stack thead { display: none; }
  table.stack tr { display: block; border-bottom: 1px solid var(--line); padding: .3rem 0; }
  table.stack td { display: inline; border: 0; padding: 0 .5rem 0 0; }
  table.stack td:last-child { display: block; padding-top: .2rem; }
  th, td { padding: .3rem; }
}
"""

JS = """\
(function () {
  "use strict";
  function versionKey(v) {
    if (!v) { return [0]; }
    if (v === "nightly") { return [9999]; }
    return v.split(/[^0-9]+/).filter(Boolean).map(Number);
  }
  function atMost(a, b) {
    var x = versionKey(a), y = versionKey(b);
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      var p = x[i] || 0, q = y[i] || 0;
      if (p !== q) { return p < q; }
    }
    return true;
  }
  function has(list, value) {
    return !value || (" " + list + " ").indexOf(" " + value + " ") >= 0;
  }
  var form = document.getElementById("filters");
  if (form) {
    var items = Array.prototype.slice.call(document.querySelectorAll("ul.records li"));
    var status = document.getElementById("shown");
    var apply = function () {
      var q = form.elements.q.value.trim().toLowerCase();
      var brand = form.elements.brand.value, prec = form.elements.precision.value;
      var task = form.elements.task.value, ver = form.elements.verified.value;
      var minv = form.elements.vllm.value;
      var shown = 0;
      items.forEach(function (li) {
        var d = li.dataset;
        var ok = (!q || d.search.indexOf(q) >= 0) && has(d.brands, brand)
          && has(d.precisions, prec) && has(d.tasks, task) && has(d.verified, ver)
          && (!minv || (d.minv && atMost(d.minv, minv)));
        li.hidden = !ok;
        if (ok) { shown++; }
      });
      status.textContent = shown + " of " + items.length + " records shown";
    };
    var fields = ["q", "brand", "precision", "task", "verified", "vllm"];
    var query = function () {
      var params = new URLSearchParams();
      fields.forEach(function (n) {
        if (form.elements[n].value) { params.set(n, form.elements[n].value); }
      });
      var text = params.toString();
      return location.pathname + (text ? "?" + text : "");
    };
    var restore = function () {
      var params = new URLSearchParams(location.search);
      fields.forEach(function (n) { form.elements[n].value = params.get(n) || ""; });
      apply();
    };
    form.addEventListener("input", function (e) {
      apply();
      if (e.target.name === "q") { history.replaceState(null, "", query()); }
    });
    form.addEventListener("change", function () {
      apply();
      if (query() !== location.pathname + location.search) {
        history.pushState(null, "", query());
      }
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); apply(); });
    window.addEventListener("popstate", restore);
    restore();
  }
  function copyText(text, button) {
    var done = function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(text, done); });
    } else { fallback(text, done); }
  }
  function fallback(text, done) {
    var area = document.createElement("textarea");
    area.value = text; area.setAttribute("readonly", "");
    area.style.position = "absolute"; area.style.left = "-9999px";
    document.body.appendChild(area); area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(area); done();
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (b) {
    b.hidden = false;
  });
  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.copy") : null;
    if (!b) { return; }
    var target = document.getElementById(b.getAttribute("data-target"));
    if (target) { copyText(target.textContent, b); }
  });
})();
"""
