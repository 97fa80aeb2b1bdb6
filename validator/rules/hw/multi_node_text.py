"""``HW020``: what the recipe's own text says about a variant's size vs what its
``vram_minimum_gb`` makes the site do.

The site decides single-node fit from numbers alone (``fitsSingleNode``:
``vram_minimum_gb <= vram_gb`` of the profile). When a variant's ``description`` or the
guide says that variant *needs* multi-node deployment while its declared minimum fits one
node of a profile the picker shows, the recipe contradicts itself: the site offers
single-node strategies the text says cannot work, and an evidence record derived from
the numbers would say the opposite of the prose. :func:`multi_node_statements` finds such
statements (also used by :mod:`validator.evidence` so that records never contradict
them).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from validator.analysis.guide_sections import folded, may_match
from validator.analysis.recipe_data import as_dict, get, items
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.render.gates import picker_hardware_if_shown
from validator.rules.api import Hit, Reads, rule
from validator.rules.hw.facts import (
    Profile,
    amount,
    fits_single_node,
    hardware_named,
    profiles,
)

_NEEDS_MULTI_NODE = re.compile(
    r"\b(?:requires?|required|needs?|needed|needing|must\s+(?:run|use|be\s+served)(?:\s+on)?)"
    r"\s+(?:an?\s+|at\s+least\s+two\s+nodes|\*\*)?\s*multi[- ]?node\b(?:\s+deployment)?",
    re.IGNORECASE)
_NEGATION = re.compile(r"(?:\bnot|n't|\bno\s+longer|\bnever)\s+(?:\w+\s+){0,2}$",
                       re.IGNORECASE)


@dataclass(frozen=True)
class MultiNodeStatement:
    """Text of the recipe saying that one variant needs multi-node deployment.

    Attributes:
        variant: the variant key the statement is about.
        pointer: ``/variants/<v>/description`` or ``/guide``.
        block_index: 0-based guide line (``None`` for a description).
        phrase: the matched words, as written (``requires multi-node deployment``).
        before: the words of its clause before the phrase (``On H100, it``).
        after: the words of its clause after it (``on H100 (one node is too small)``): a
            clause ends at a sentence end, a ``;`` or a line end.
    """

    variant: str
    pointer: str
    block_index: int | None
    phrase: str
    before: str = ""
    after: str = ""


@functools.lru_cache(maxsize=1024)
def _named(word: str) -> re.Pattern[str]:
    """The pattern of ``word`` standing alone in a text (case-insensitive)."""
    return re.compile(rf"(?<![\w./-]){re.escape(word)}(?![\w/-])", re.IGNORECASE)


VariantWords = list[tuple[str, list[tuple[str, str | None]]]]
"""Each variant's key and the words that name it (:func:`variant_words`), each with its
lower case when it is ASCII (else ``None``)."""


def variant_words(data: Any) -> VariantWords:
    """The words that name each variant of ``data`` in a text (:func:`_mentions`): its
    key, its model id, and a precision only it has; read once for the many texts of one
    document."""
    variants = as_dict(get(data, "variants"))
    precisions = [str(get(v, "precision")) for v in variants.values()]
    out: VariantWords = []
    for name, variant in variants.items():
        words = [name]
        model_id = get(variant, "model_id")
        if isinstance(model_id, str):
            words.append(model_id)
        prec = get(variant, "precision")
        if isinstance(prec, str) and precisions.count(prec) == 1:
            words.append(prec)
        out.append((name, [(w, w.lower() if w.isascii() else None) for w in words]))
    return out


def _mentions(text: str, data: Any, words: VariantWords | None = None) -> list[str]:
    """Variants named in ``text``: by key, by model id, or by a precision only one
    variant has (``words``: :func:`variant_words` of ``data``, when already read)."""
    out = []
    # an ASCII word in ASCII text matches its case-insensitive pattern only where its
    # lower case is in the text's: the pattern is searched only then (other text: always)
    lowered = text.lower() if text.isascii() else None
    for name, named in variant_words(data) if words is None else words:
        if any((lowered is None or low is None or low in lowered) and _named(w).search(text)
               for w, low in named):
            out.append(name)
    return out


def _sentence_start(text: str, at: int) -> int:
    cut = max(text.rfind(". ", 0, at), text.rfind(".\n", 0, at), text.rfind("\n\n", 0, at),
              text.rfind("\n#", 0, at), text.rfind("\n- ", 0, at))
    return 0 if cut < 0 else cut + 1


_CLAUSE_END = re.compile(r"[.!?](?:\s|$)|;|\n")


def _clause(text: str, start: int, end: int) -> tuple[str, str]:
    """The words of the clause around ``text[start:end]``: before it, after it."""
    cuts = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, end)
    return text[cuts[-1] if cuts else 0:start], text[end:after.start() if after else len(text)]


def multi_node_statements(data: Any) -> list[MultiNodeStatement]:
    """Every statement that a named variant needs multi-node, in document order:
    variant descriptions first, then guide lines. A guide statement counts only when the
    words before it in its sentence name exactly one variant; negated statements ("does
    not need multi-node") are ignored."""
    out: list[MultiNodeStatement] = []
    for name, variant, vptr in items(get(data, "variants"), "/variants"):
        desc = get(variant, "description")
        if not isinstance(desc, str):
            continue
        for m in _NEEDS_MULTI_NODE.finditer(desc):
            if not _NEGATION.search(desc[:m.start()]):
                out.append(MultiNodeStatement(name, vptr + "/description", None, m.group(0),
                                              *_clause(desc, m.start(), m.end())))
                break
    guide = get(data, "guide")
    if not isinstance(guide, str):
        return out
    starts = [0]
    for line in guide.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for m in _NEEDS_MULTI_NODE.finditer(guide):
        if _NEGATION.search(guide[max(0, m.start() - 40):m.start()]):
            continue
        named = _mentions(guide[_sentence_start(guide, m.start()):m.start()], data)
        if len(named) != 1:
            continue
        index = max(i for i, s in enumerate(starts) if s <= m.start())
        out.append(MultiNodeStatement(named[0], "/guide", index,
                                      re.sub(r"\s+", " ", m.group(0)),
                                      *_clause(guide, m.start(), m.end())))
    return out


def qualified_hardware(st: MultiNodeStatement, ctx: Context) -> set[str]:
    """The profile ids a statement limits itself to: hardware its clause names after a
    preposition (``requires multi-node on H100``, ``for 8x MI300X``, ``On A100, ...``), by
    profile id or display name, else by a brand or generation key (``on Hopper``); the
    words after the phrase first (``BF16 on 8xH200; requires multi-node on H100`` is about
    H100). Empty: the statement names no hardware and is about every profile."""
    for text in (st.after, st.before):
        def says(name: str, text: str = text, lowered: str = folded(text)) -> bool:
            return may_match(name, lowered) and _qualifier(name).search(text) is not None

        named = hardware_named(ctx, says, says)
        if named:
            return named
    return set()


@functools.lru_cache(maxsize=1024)
def _qualifier(name: str) -> re.Pattern[str]:
    """``name`` after ``on``/``for``/``with``/``using``/``across``, with up to three words
    between (``on one 8-GPU H100 node``) and a glued count (``8xH100``, ``8×H100``)."""
    return re.compile(rf"\b(?:on|for|with|using|across)\s+(?:[^\s;,.]+\s+){{0,3}}?"
                      rf"(?:\d+\s*[x×]\s*|(?<![\w-])){re.escape(name)}(?![\w-])",
                      re.IGNORECASE)


@rule("HW020", Severity.WARNING, "The recipe says a variant needs multi-node, but its "
      "vram_minimum_gb fits one node",
      reads=frozenset({Reads.TAXONOMY}))
def multi_node_text_vs_fit(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A variant's ``description`` or the guide says it needs multi-node deployment, yet
    its ``vram_minimum_gb`` is at most the ``vram_gb`` of one node of a profile the picker
    shows for it, so the site offers single-node strategies there (``fitsSingleNode``).
    One of the two is wrong: the declared minimum understates what the variant needs, or
    the text is out of date. A statement that names hardware ("requires multi-node on
    H100", "for MI300X", a profile id or display name, or a brand or generation, after a
    preposition in its clause) is judged on those profiles only.

    Failing::

        model: {parameter_count: "1000B", active_parameters: "40B"}
        compatible_strategies: [single_node_tp, multi_node_tp]
        variants:
          default:
            precision: bf16
            vram_minimum_gb: 1500          # one 8x288 GB node holds 2304 GB
            description: "BF16 - requires multi-node deployment"

    Passing::

        model: {parameter_count: "1000B", active_parameters: "40B"}
        compatible_strategies: [single_node_tp, multi_node_tp]
        variants:
          default:
            precision: bf16
            vram_minimum_gb: 2600          # more than any single node
            description: "BF16 - requires multi-node deployment"

    How to fix: raise ``vram_minimum_gb`` to what one node cannot hold (weights plus the
    KV cache the text assumes), restrict ``supported_hardware`` or the single-node
    strategies (``strategy_hardware``) on the profiles it does not fit, or correct the
    text if one node does serve it."""
    statements = multi_node_statements(doc.data)
    if not statements:
        return
    table = profiles(ctx)
    seen: set[tuple[str, str, int | None]] = set()
    for st in statements:
        variant = get(doc.data, "variants", st.variant)
        need = amount(get(variant, "vram_minimum_gb"))
        if need is None or need <= 0:
            continue
        shown_ids = picker_hardware_if_shown(ctx.hardware_profiles, variant, doc.data) or []
        named = qualified_hardware(st, ctx)
        fits = [table[hw] for hw in shown_ids if (not named or hw in named)
                and table[hw].vram_gb and fits_single_node(variant, table[hw])]
        key = (st.variant, st.pointer, st.block_index)
        if not fits or key in seen:
            continue
        seen.add(key)
        yield _text_contradicts_fit(st, need, fits, named)


def _text_contradicts_fit(st: MultiNodeStatement, need: float, fits: list[Profile],
                          named: set[str]) -> Hit:
    """The finding of a statement ``st`` that the variant needs multi-node while its
    ``vram_minimum_gb`` (``need``) fits one node of the profiles ``fits``."""
    where = "its description" if st.block_index is None else "the guide"
    shown = ", ".join(f"{p.id} ({p.vram_gb:g} GB)" for p in fits[:6])
    more = f" and {len(fits) - 6} more" if len(fits) > 6 else ""
    on = f" on {', '.join(sorted(named))}" if named else ""
    return Hit(st.pointer, f"{where} says variant {st.variant!r} \"{st.phrase}\"{on}, but "
               f"its vram_minimum_gb {need:g} fits one node of {shown}{more}, so the site "
               "offers single-node strategies for it there",
               "raise vram_minimum_gb to what one node cannot hold, restrict the "
               "profiles or single-node strategies it does not fit, or correct the text",
               block_index=st.block_index)
