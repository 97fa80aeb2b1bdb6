"""The configuration picker of a record page: the selects and feature checkboxes (the
choices the recipes site's page gives), the chosen configuration -- its verdict, the
minimum vLLM its install needs, a download of its JSON (made by the page script), and
each block ``render`` prints for it with a Copy button unless it holds shell code
(REF018) -- and the picker data (:mod:`validator.evidence.site.configurations`) the page
script reads. Without script the page shows the landing configuration, and its download
link is a plain link to that configuration's JSON file beside the page (which works from
``file://`` too); the script turns it into the picked configuration's."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from validator.evidence.site.configurations import Picker, block_lines, expanded
from validator.evidence.site.html import attr, esc, json_script

DATA_ID = "picker-data"


def _select(name: str, label: str, values: list[str], chosen: str) -> str:
    opts = "".join(f"<option value=\"{attr(v)}\"{' selected' if v == chosen else ''}>"
                   f"{esc(v)}</option>" for v in values)
    hidden = " hidden" if len(values) < 2 else ""
    return (f"<div{hidden}><label for=\"p-{name}\">{esc(label)}</label>"
            f"<select id=\"p-{name}\" name=\"{name}\">{opts}</select></div>")


def _checks(features: list[str], chosen: set[str]) -> str:
    if not features:
        return ""
    boxes = "".join(f"<label class=\"check\"><input type=\"checkbox\" name=\"feature\" "
                    f"value=\"{attr(f)}\"{' checked' if f in chosen else ''}> {esc(f)}"
                    "</label>" for f in features)
    return f"<fieldset><legend>Features</legend>{boxes}</fieldset>"


def _form(data: dict[str, Any], config: list[Any]) -> str:
    strings = data["strings"]
    parts = []
    for n, (name, label) in enumerate(data["choices"]):
        values = list(dict.fromkeys(strings[c[0][n]] for c in data["configs"]))
        parts.append(_select(name, label, values, strings[config[0][n]]))
    features = sorted({strings[f] for c in data["configs"] for f in c[1]})
    parts.append(_checks(features, {strings[f] for f in config[1]}))
    if any(len(c) > 6 for c in data["configs"]):  # an NVIDIA image whose build one picks
        parts.append(_select("cuda", "CUDA build", ["cu130", "cu129"], "cu130"))
    return ("<form id=\"picker\" class=\"filters picker\" aria-label=\"Pick a configuration\">"
            + "".join(parts) + "</form>")


def _verdict(data: dict[str, Any], config: list[Any]) -> str:
    rows = [data["findings"][n] for n in data["verdicts"][config[4]]]
    errors = sum(1 for r in rows if r[0] == "error")
    warnings = sum(1 for r in rows if r[0] == "warning")
    if errors:
        head, cls = f"This exact command fails recipe-check: {errors} error(s)", "err"
    elif warnings:
        head, cls = f"No error; {warnings} warning(s) for this exact command", "warn"
    else:
        head, cls = "No error or warning applies to this exact command", "ok"
    items = "".join(f"<li><strong>{esc(r[0])} {esc(r[1])}</strong> "
                    f"({esc(data['file'])} line {r[3]}): "
                    f"{esc(r[2])}</li>" for r in rows)
    whole = len(data["whole"])
    about = (f" <span class=\"muted\">{whole} finding(s) about the recipe as a whole: "
             "see Findings.</span>") if whole else ""
    return (f"<div id=\"verdict\" class=\"verdict {cls}\"><p><strong>{esc(head)}</strong>"
            f"{about}</p>" + (f"<ul>{items}</ul>" if items else "") + "</div>")


def _blocks(data: dict[str, Any], config: list[Any]) -> str:
    strings, out, every = data["strings"], [], block_lines(data["blocks"])
    for n, block_id in enumerate(data["blocksets"][config[3]]):
        title, copyable = data["blocks"][block_id][:2]
        lines = every[block_id]
        button = (f"<button type=\"button\" class=\"copy\" data-target=\"pb{n}\" hidden>Copy"
                  "</button>") if copyable else (
            "<span class=\"muted\">no Copy button: the recipe puts shell code in this "
            "command (REF018)</span>")
        out.append(f"<div class=\"cmd\"><p><strong>{esc(strings[title])}</strong> {button}"
                   f"</p><pre><code id=\"pb{n}\">"
                   f"{esc(chr(10).join(strings[i] for i in lines))}</code></pre></div>")
    return "".join(out)


def _title(data: dict[str, Any], config: list[Any]) -> str:
    strings = data["strings"]
    picked = [strings[i] for i in config[0][:4]]
    labels = ", ".join(strings[i] for i in config[2]) or "none"
    return " · ".join(picked) + f" · features: {labels}"


def download_name(data: dict[str, Any], k: int) -> str:
    """The name a download of configuration ``k``'s JSON suggests: the recipe's name and
    the configuration's, as the page script names it."""
    return re.sub(r"\.ya?ml$", "", str(data["file"])) + "." + str(data["configs"][k][5])


def picker_section(picker: Picker, script: str, landing: str) -> str:
    """The ``Configurations`` section; ``script`` is the relative path of the
    configurations' JSON table (:mod:`validator.evidence.site.config_json`), from which
    the page script makes the chosen configuration's JSON; ``landing`` the relative path
    of the landing configuration's JSON file, the download link's target without
    script."""
    data = {**picker.data, "json": script}
    data = {**data, "configs": [expanded(c, data) for c in data["configs"]]}
    config = data["configs"][picker.default]
    variant = data["strings"][config[0][1]]
    floor = data["floors"].get(variant) or "unknown"
    return (
        "<h2 id=\"configurations\">Configurations</h2>"
        f"<p class=\"muted\">{len(data['configs'])} configurations: every one the recipes "
        "site's page offers (hardware, variant, strategy, nodes, features), with the commands "
        "recipe-check's port of the site renders for it and the findings that apply to it. "
        "Nothing was run.</p>"
        + _form(data, config)
        + "<p id=\"picker-note\" class=\"muted\" role=\"status\" aria-live=\"polite\"></p>"
        "<div id=\"chosen\">"
        f"<h3 id=\"chosen-title\">{esc(_title(data, config))}</h3>"
        + _verdict(data, config)
        + f"<p id=\"chosen-install\">Install: vLLM &ge; <strong>{esc(floor)}</strong> "
        f"(the effective minimum of variant {esc(variant)})</p>"
        f"<p id=\"chosen-json\"><a class=\"config-json\" href=\"{quote(landing, safe='')}\" "
        f"download=\"{attr(download_name(data, picker.default))}\" type=\"application/json\">"
        "Download this configuration as JSON</a> <span class=\"muted\">(what "
        "<code>recipe-check render --format json</code> prints for it)</span></p>"
        "<div id=\"chosen-blocks\">" + _blocks(data, config) + "</div></div>"
        + json_script(DATA_ID, {**picker.data, "json": script}))
