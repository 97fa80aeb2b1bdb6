"""The limitations of one recipe, derived from its record's own facts (each cites the
lines its facts cite) and from the warnings its guide writes: what a reader of this
model's page should know before using its commands -- hardware the commands are offered
for that the recipe does not mark verified, variants and feature modes limited to some
hardware or variants, variants that need more than one node, nightly builds, a minimum
vLLM newer than the newest release recipe-check knew of, and the guide's own warnings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

GUIDE_WARNING = re.compile(
    r"(?i)^\s*(?:>\s*)?(?:#+\s*)?(?:\*\*|__|\[!)?\s*(?:warning|caution|important|known issues?|"
    r"limitations?)\b|\b(?:not (?:yet )?supported|unsupported|does not work|doesn't work|"
    r"not work(?:ing)?)\b")
"""A guide line that warns: an admonition (``> **Warning**``, ``[!CAUTION]``, ``Known
issues``) or a sentence saying something is not supported or does not work."""


@dataclass(frozen=True)
class Limitation:
    """One limitation: its text and the evidence URLs (file lines) it rests on."""

    text: str
    evidence: tuple[str, ...]


def _facts(rec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(f["name"]): f for f in rec.get("facts") or []}


def _urls(*facts: dict[str, Any] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(f["evidence_url"]) for f in facts
                               if f and f.get("evidence_url")))


def _listed(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _variants(facts: dict[str, dict[str, Any]]) -> list[str]:
    return [m[1] for name in facts if (m := re.fullmatch(r"Variant (.+): compatible hardware",
                                                         name))]


def _hardware(facts: dict[str, dict[str, Any]]) -> Iterator[Limitation]:
    status = {name.split(": ", 1)[1]: f for name, f in facts.items()
              if name.startswith("Hardware status: ")}
    for hw, fact in status.items():
        if fact["value"] != "verified":
            yield Limitation(f"{hw}: the recipe marks it {fact['value']!r}, not verified.",
                             _urls(fact))
    offered: dict[str, list[dict[str, Any]]] = {}
    for variant in _variants(facts):
        fact = facts[f"Variant {variant}: compatible hardware"]
        for hw in _listed(fact["value"]):
            offered.setdefault(hw, []).append(fact)
    unlisted = [hw for hw in offered if hw not in status]
    if unlisted and status:
        yield Limitation(
            f"Commands are offered for {', '.join(unlisted)} (compatible by the taxonomy), "
            "which the recipe does not list among its verified hardware.",
            _urls(*(f for hw in unlisted for f in offered[hw])))


def _variant_limits(facts: dict[str, dict[str, Any]]) -> Iterator[Limitation]:
    variants = _variants(facts)
    every = {hw for v in variants
             for hw in _listed(facts[f"Variant {v}: compatible hardware"]["value"])}
    for v in variants:
        compatible = facts[f"Variant {v}: compatible hardware"]
        hardware = _listed(compatible["value"])
        if not hardware:
            yield Limitation(f"Variant {v} is offered on no hardware of the taxonomy.",
                             _urls(compatible))
        elif len(variants) > 1 and set(hardware) < every:
            yield Limitation(f"Variant {v} is offered only on {', '.join(hardware)}.",
                             _urls(compatible, facts.get(f"Variant {v}: hardware allowlist")))
        fits = facts.get(f"Variant {v}: hardware whose single node holds the planning minimum")
        minimum = facts.get(f"Variant {v}: planning minimum (GB, as declared)")
        if fits is not None and minimum is not None:
            multi = [hw for hw in hardware if hw not in _listed(fits["value"])]
            if multi:
                yield Limitation(
                    f"Variant {v} (planning minimum {minimum['value']} GB) needs more than "
                    f"one node on {', '.join(multi)}.", _urls(minimum, fits))


def _feature_limits(facts: dict[str, dict[str, Any]]) -> Iterator[Limitation]:
    variants = set(_variants(facts))
    for name, fact in facts.items():
        m = re.fullmatch(r"Feature (.+), mode (.+): variants", name)
        if m and variants - set(_listed(fact["value"])):
            yield Limitation(f"Feature {m[1]} in mode {m[2]} only for variant(s) "
                             f"{', '.join(_listed(fact['value'])) or 'none'}.", _urls(fact))
        m = re.fullmatch(r"Strategy (.+): hardware gates", name)
        if m and isinstance(fact["value"], dict):
            gates = ", ".join(f"{k}: {v}" for k, v in fact["value"].items())
            yield Limitation(f"Strategy {m[1]} is gated by hardware ({gates}).", _urls(fact))


def _images(facts: dict[str, dict[str, Any]]) -> Iterator[Limitation]:
    nightly = facts.get("Nightly vLLM required")
    if nightly is not None and nightly["value"] is True:
        yield Limitation("Needs a nightly vLLM build (nightly_required).", _urls(nightly))
    where: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, fact in facts.items():
        if not (name.startswith("Docker image") or name.endswith(": docker image")):
            continue
        value = fact["value"]
        for image in value.values() if isinstance(value, dict) else [value]:
            if isinstance(image, str) and "nightly" in image.rpartition(":")[2]:
                where.setdefault(image, []).append(
                    (name.removesuffix(": docker image"), fact))
    for image, named in where.items():
        yield Limitation(f"{image} is a nightly build, not a vLLM release; used by: "
                         f"{'; '.join(name for name, _ in named)}.",
                         _urls(*(fact for _, fact in named)))


def _newest_release(rec: dict[str, Any]) -> Version | None:
    for item in rec.get("validation", {}).get("inputs") or []:
        if item.get("name") == "vllm-release-list" and item.get("status") == "used":
            try:
                return Version(str(item.get("version")))
            except InvalidVersion:
                return None
    return None


def _unreleased(rec: dict[str, Any], facts: dict[str, dict[str, Any]]) -> Iterator[Limitation]:
    newest = _newest_release(rec)
    if newest is None:
        return
    for v in _variants(facts):
        fact = facts.get(f"Variant {v}: effective minimum vLLM version")
        if fact is None:
            continue
        try:
            minimum = Version(str(fact["value"]))
        except InvalidVersion:
            continue
        if minimum > newest:
            yield Limitation(f"Variant {v} needs vLLM {fact['value']}, newer than the newest "
                             f"release recipe-check knew of ({newest}).", _urls(fact))


def _plain(text: str) -> str:
    """A guide line without its markdown marks (quote, heading, list, emphasis)."""
    return re.sub(r"\*\*|__", "", re.sub(r"^[\s>#*_\-]+", "", text)).strip()


def guide_warnings(lines: Iterable[tuple[str, str]]) -> list[Limitation]:
    """The guide's warning lines (:data:`GUIDE_WARNING`), each quoted with its line
    URL (a short heading such as ``Limitations:`` with the line after it); ``lines`` are
    ``(url, text)`` of the guide's lines."""
    pairs, out = list(lines), []
    for i, (url, text) in enumerate(pairs):
        if not GUIDE_WARNING.search(text):
            continue
        quoted, urls = _plain(text), [url]
        if len(quoted) < 30 and quoted.endswith(":") and i + 1 < len(pairs) \
                and _plain(pairs[i + 1][1]):
            quoted += " " + _plain(pairs[i + 1][1])
            urls.append(pairs[i + 1][0])
        quoted = quoted if len(quoted) <= 240 else quoted[:239] + "…"
        out.append(Limitation(f"The guide says: “{quoted}”", tuple(urls)))
    return out


def limitations(rec: dict[str, Any]) -> list[Limitation]:
    """The limitations the record's facts show (see the module's docstring)."""
    facts = _facts(rec)
    return [*_hardware(facts), *_variant_limits(facts), *_feature_limits(facts),
            *_images(facts), *_unreleased(rec, facts)]
