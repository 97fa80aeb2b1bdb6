"""The facts of a record page, grouped by what a reader asks: what model, which hardware,
which versions, which commands (folded: the configurations show them assembled); the rest
(dates, descriptions) folded too. Each fact shows
its value, a readable label of its class and the line that states it, named by its file;
how a derived fact was computed, and from which lines, is folded under it."""

from __future__ import annotations

from typing import Any

from validator.evidence.site.html import citations, esc, evidence, table, value_text

GROUPS = (("model", "What model", True), ("hardware", "Which hardware", True),
          ("versions", "Which versions", True), ("commands", "Which commands", False),
          ("other", "Other facts", False))
"""(key, heading, open) of each group, in page order; the command layers (shown
assembled in the configurations above) and the rest start folded."""

CLASS_LABELS = {"recipe_declaration": "declared by the recipe",
                "maintainer_verified": "maintainers verified (recipe says)",
                "derived": "derived by recipe-check",
                "source_reported": "reported by the source"}

_MODEL_POINTERS = frozenset({"/meta/title", "/meta/provider", "/model/model_id",
                             "/model/architecture", "/model/parameter_count",
                             "/model/active_parameters", "/model/context_length"})
_COMMAND_WORDS = ("argument", "environment", "feature", "mode", "strateg")
_HARDWARE_WORDS = ("hardware", "planning minimum", "kv offload", "multi-node",
                   "tensor parallel")


def fact_group(fact: dict[str, Any]) -> str:
    """The key of the :data:`GROUPS` entry ``fact`` belongs to."""
    name, pointer = str(fact["name"]).lower(), str(fact.get("pointer") or "")
    if "vllm version" in name or "docker image" in name:
        return "versions"
    if any(w in name for w in _COMMAND_WORDS) and "hardware gates" not in name:
        return "commands"
    if any(w in name for w in _HARDWARE_WORDS):
        return "hardware"
    if pointer in _MODEL_POINTERS or name.endswith(("model id", "precision")):
        return "model"
    return "other"


def class_label(classification: str) -> str:
    """A reader's words for a fact class (the identifier itself when unknown)."""
    return CLASS_LABELS.get(classification, classification.replace("_", " "))


def _derivation(fact: dict[str, Any]) -> str:
    """How a derived fact was computed and from which lines, folded."""
    inputs = fact.get("derived_from") or []
    how = fact.get("derivation")
    if not inputs and not how:
        return ""
    count = (f", from {len(inputs)} input{'s' if len(inputs) != 1 else ''}"
             if inputs else "")
    links = citations([c["url"] for c in inputs if c.get("url")])
    return (f"<details class=\"inputs\"><summary>how it was derived{count}</summary>"
            + (f"<p class=\"muted\">{esc(how)}</p>" if how else "") + links + "</details>")


def _row(fact: dict[str, Any]) -> list[str]:
    cls = str(fact["classification"])
    return [esc(fact["name"]), esc(value_text(fact["value"])),
            f"<span title=\"{esc(cls)}\">{esc(class_label(cls))}</span>",
            evidence(fact["evidence_url"]) + _derivation(fact)]


def facts(rec: dict[str, Any]) -> str:
    """The ``Facts`` section: one table per group with facts."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for fact in rec["facts"]:
        grouped.setdefault(fact_group(fact), []).append(fact)
    out = ["<h2 id=\"facts\">Facts</h2>"]
    for key, heading, is_open in GROUPS:
        rows = [_row(f) for f in grouped.get(key, [])]
        if rows:
            out.append(f"<details id=\"facts-{key}\"{' open' if is_open else ''}><summary>"
                       f"{esc(heading)} ({len(rows)})</summary>"
                       + table(["Fact", "Value", "Class", "Evidence"], rows,
                               widths=(28, 30, 18, 24)) + "</details>")
    return "".join(out)
