"""``VER013``, ``VER014``: what the guide and the descriptions say a recipe needs of vLLM
(the nightly wheel, a newer release for one variant) against what it declares."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from validator.analysis.recipe_data import get, items
from validator.analysis.stated_versions import release_list, text_sources
from validator.analysis.version_prose import version_statements
from validator.analysis.versions import effective_min_version, parse_min_version
from validator.findings import Severity
from validator.rules.api import RECIPE_ONLY, Hit, Reads, rule
from validator.rules.hw.multi_node_text import _mentions as variants_named
from validator.rules.hw.multi_node_text import variant_words

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


_NEEDS_NIGHTLY = re.compile(
    r"not\s+(?:yet\s+)?(?:in|part\s+of|included\s+in)\s+(?:a|any)\s+(?:stable\s+|released\s+)?"
    r"(?:release|vllm\s+wheel|wheel)|no\s+stable\s+release|requires?\s+(?:a\s+|the\s+)?"
    r"nightly|nightly\s+(?:build|wheel|image)\s+(?:is\s+)?required|not\s+yet\s+released",
    re.IGNORECASE)
#: A statement about one feature (a drafter, a PR's addition), not about the model.
_FEATURE_NOTE = re.compile(r"speculative|\bMTP\b|drafter|dflash|eagle|\bPR\b|pull/\d+|"
                           r"tool[- ]call|reasoning", re.IGNORECASE)


@rule("VER013", Severity.WARNING, "The guide says nightly is needed but nightly_required is off",
      reads=frozenset({Reads.RELEASES}))
def guide_says_nightly(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The guide (or a dependency note) says the model is in no stable release yet or needs
    the nightly wheel, while ``nightly_required`` is not set: the site's Install block then
    offers the stable ``pip install -U vllm``, and one of the two is wrong — either the
    note is stale (the minimum has shipped) or the recipe needs ``nightly_required``.

    Failing::

        model: {min_vllm_version: "0.34.0"}
        dependencies:
          - command: "pip install -U transformers"
            note: "requires the nightly vllm wheel"

    Passing::

        model: {min_vllm_version: "0.34.0", nightly_required: true}
        dependencies:
          - command: "pip install -U transformers"
            note: "requires the nightly vllm wheel"

    (or the note removed once the release ships). A note about one feature (MTP, a
    drafter, a pull request) is not judged.

    How to fix: set ``nightly_required: true`` (and a minimum of the coming release), or
    update the note when the release is out."""
    if get(doc.data, "model", "nightly_required") is True:
        return
    latest = release_list(ctx).latest
    minimum = parse_min_version(get(doc.data, "model", "min_vllm_version"))
    for pointer, index, text in text_sources(doc):
        m = _NEEDS_NIGHTLY.search(text)
        if m is None or _FEATURE_NOTE.search(text):
            continue
        released = (isinstance(minimum, Version) and latest is not None
                    and minimum <= latest.version)
        state = (f"the minimum {minimum} is released (newest {latest.version}), so the note "
                 "may be stale" if released and latest is not None else
                 "nightly_required is not set")
        yield Hit(pointer, f"the text says `{m.group(0)}` but nightly_required is not set: "
                  f"{state}", "set nightly_required: true, or update the note",
                  block_index=index)
        return


def _variant_texts(doc: LoadedDocument) -> Iterator[tuple[str, int | None, str, list[str]]]:
    """``(pointer, block_index, line, variants it is about)``: each variant's own
    ``description``, then guide and install lines naming exactly one variant."""
    data = doc.data
    for name, variant, vptr in items(get(data, "variants"), "/variants"):
        desc = get(variant, "description")
        if isinstance(desc, str):
            yield vptr + "/description", None, desc, [name]
    words = variant_words(data)  # once for every line
    for pointer, index, text in text_sources(doc):
        named = variants_named(text, data, words)
        if len(named) == 1:
            yield pointer, index, text, named


@rule("VER014", Severity.WARNING, "The text says a variant needs a newer vLLM than it declares",
      reads=RECIPE_ONLY)
def variant_needs_newer(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A variant's ``description``, or a guide or install line that names exactly one
    variant (by key, model id or a precision only it has), states a minimum vLLM
    (``vLLM >= 0.24.0``, "requires vLLM 0.24.0 or later", "NVFP4 vLLM version: >= 0.24.0")
    above that variant's effective minimum (the highest of ``model.min_vllm_version`` and
    its own ``min_vllm_version``): the site shows the lower minimum for the variant, and
    readers on the releases in between get a command that does not serve it. Pins
    (``vllm==X``) and notes about one feature (MTP, a drafter, a pull request) are not
    judged; a statement above the whole recipe's minimum that names no variant is
    ``VER008``'s.

    Failing::

        model:
          min_vllm_version: "0.17.0"
        variants:
          nvfp4:
            precision: nvfp4
        guide: |
          - **NVFP4 vLLM version:** >= 0.24.0

    Passing::

        variants:
          nvfp4:
            precision: nvfp4
            min_vllm_version: "0.24.0"

    How to fix: set the variant's ``min_vllm_version`` to the stated release, or correct
    the text if an older release serves it."""
    seen: set[tuple[str, Version]] = set()
    for pointer, index, text, named in _variant_texts(doc):
        if _FEATURE_NOTE.search(text):
            continue
        variant = named[0]
        effective = effective_min_version(doc, ctx, variant)
        if not isinstance(effective, Version):
            continue
        for st in version_statements(text):
            if st.kind != "minimum" or st.version <= effective or (variant, st.version) in seen:
                continue
            seen.add((variant, st.version))
            own = get(doc.data, "variants", variant, "min_vllm_version")
            declared = (f"variants.{variant}.min_vllm_version is {own}" if own is not None
                        else f"variant {variant!r} declares none, so model.min_vllm_version "
                        f"{effective} applies")
            where = "its description" if pointer.endswith("/description") else (
                "the guide" if pointer == "/guide" else pointer)
            yield Hit(pointer, f"{where} says variant {variant!r} needs vLLM {st.version} "
                      f"(`{st.text}`), but its effective minimum is {effective} ({declared})",
                      f"set variants.{variant}.min_vllm_version: \"{st.version}\", or correct "
                      "the text", block_index=index)
