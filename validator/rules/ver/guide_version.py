"""``VER008``: the vLLM versions the guide and the install texts state
(:func:`~validator.analysis.version_prose.version_statements`) agree with
``min_vllm_version``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from packaging.version import Version

from validator.analysis.guide_sections import section_headings
from validator.analysis.recipe_data import get
from validator.analysis.stated_versions import (
    ascend_base,
    line_of,
    min_version_pointers,
    text_ascend_images,
    text_images,
    text_sources,
)
from validator.analysis.version_prose import (
    VersionStatement,
    names_a_scope,
    statement_scope,
    version_statements,
)
from validator.analysis.versions import NIGHTLY, MinVersion, format_version, parse_min_version
from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, rule

# ---------------------------------------------------------------------------------------
# VER008 the guide's stated version


def _about_the_recipe(st: VersionStatement, text: str, headings: list[str]) -> bool:
    """Whether a statement of ``text`` (its section under ``headings``) is one about the
    whole recipe: a pip specifier always is; prose when it states a requirement (not
    "since vLLM X,") and neither its line nor its section's headings tie it to one
    hardware, kernel, precision or feature (:func:`names_a_scope`)."""
    if not st.prose:
        return True
    return (st.requirement and statement_scope(text, st) is None
            and names_a_scope(" ".join(headings)) is None)


@rule("VER008", Severity.WARNING, "The guide states another vLLM version than min_vllm_version",
      reads=RECIPE_ONLY)
def guide_version_agrees(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The guide (and the install commands and notes) should not contradict
    ``min_vllm_version``. Reported: a pin (``vllm==X``) or a stated minimum (``vllm>=X``,
    "vLLM X or newer", "requires vLLM X", "vLLM version: X") *below* the declared minimum
    — the reader installs a vLLM the recipe says cannot serve it (e.g. a GLM-5.3 page
    declaring 0.29.0 whose guide installs 0.28.0); and a prerequisites-style minimum (a
    line that opens with it: "- vLLM >= 0.12.0", "Requires vLLM 0.12.0") *above* every
    declared minimum — then the declared floor is too low. A vLLM image's release tag
    (``docker run/pull vllm/vllm-openai:v0.10.0``, here or in the install texts) is a pin,
    and so is vLLM-Ascend's (``quay.io/ascend/vllm-ascend:v0.9.1``: the vLLM its release
    is built on, 0.9.1).
    Not contradictions: pins above the minimum, and prose scoped to one path — a line (or
    its section's headings) naming a hardware, kernel or backend, precision or feature
    ("EAGLE3 requires vLLM >= 0.9.0", "vLLM 0.12.0 or later: the ROCm AITER kernels are
    used"), and remarks since when something holds ("Since vLLM 0.10"). Both are reported.

    Failing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.11.0
          ```

    Passing::

        model:
          min_vllm_version: "0.12.0"
        guide: |
          ## Installation

          ```bash
          pip install vllm==0.12.0
          ```

    How to fix: state the declared minimum in the text, or change ``min_vllm_version`` if
    the text is right."""
    model_raw = get(doc.data, "model", "min_vllm_version")
    declared = parse_min_version(model_raw)
    if declared is None:
        return
    variant_mins = {v for _, raw, var in min_version_pointers(doc)
                    if var is not None and isinstance(v := parse_min_version(raw), Version)}
    related = (Related(line_of(doc, "/model/min_vllm_version"),
                       f"min_vllm_version {format_version(declared)} declared here"),)
    guide = get(doc.data, "guide")
    for pointer, index, text in text_sources(doc):
        yield from _older_images(pointer, index, text, declared, related)
        headings = partial(_section_headings, guide, pointer, index)
        for st, below in _contradicting(text, declared, variant_mins, headings):
            verb = "installs" if st.kind == "pin" else "states"
            where = "the guide" if pointer == "/guide" else pointer
            hint = (f"state vLLM {format_version(declared)} (the declared minimum) here, or "
                    f"lower min_vllm_version if {st.version} really serves the model"
                    if below else f"raise min_vllm_version to {st.version}, or correct "
                    "the text")
            yield Hit(pointer, f"{where} {verb} vLLM {st.version} (`{st.text}`) but "
                      f"min_vllm_version is {format_version(declared)}", hint,
                      block_index=index, related=related)


def _older_images(pointer: str, index: int | None, text: str, declared: MinVersion,
                  related: tuple[Related, ...]) -> Iterator[Hit]:
    """A hit for each image of vLLM's own that ``text`` names (:func:`~validator.analysis.
    stated_versions.text_images`) whose release is below the declared minimum, and for
    each vLLM-Ascend image whose release is built on a vLLM below it."""
    where = "the guide" if pointer == "/guide" else pointer
    seen: set[str] = set()
    for image, version in text_images(text):
        if image in seen or not (declared == NIGHTLY or (
                isinstance(declared, Version) and version < declared)):
            continue
        seen.add(image)
        yield Hit(pointer, f"{where} runs vLLM {version} (`{image}`) but min_vllm_version "
                  f"is {format_version(declared)}", f"use an image of vLLM "
                  f"{format_version(declared)} (the declared minimum) or newer here, or lower "
                  f"min_vllm_version if {version} really serves the model",
                  block_index=index, related=related)
    for image, release in text_ascend_images(text):
        base = ascend_base(release)
        if image in seen or not (declared == NIGHTLY or (
                isinstance(declared, Version) and base < declared)):
            continue
        seen.add(image)
        yield Hit(pointer, f"{where} runs vLLM-Ascend {release}, built on vLLM {base} "
                  f"(`{image}`), but min_vllm_version is {format_version(declared)}",
                  f"use a vLLM-Ascend image of a release built on vLLM "
                  f"{format_version(declared)} (the declared minimum) or newer here, or lower "
                  f"min_vllm_version if {base} really serves the model",
                  block_index=index, related=related)


def _section_headings(guide: object, pointer: str, index: int | None) -> list[str]:
    """The headings of the guide section holding ``/guide`` line ``index`` (none for
    another text)."""
    return (section_headings(guide, index)[0] if pointer == "/guide" and
            isinstance(guide, str) and index is not None else [])


def _contradicting(text: str, declared: MinVersion, variant_mins: set[Version],
                   headings: Callable[[], list[str]]) -> Iterator[tuple[VersionStatement, bool]]:
    """The statements of ``text`` (first of each version) that contradict the declared
    minimum, each with whether it is below it (else a leading minimum above every
    declared one); ``headings`` gives the headings of the text's guide section."""
    seen: set[Version] = set()
    for st in version_statements(text):
        if st.version in seen:
            continue
        below = declared == NIGHTLY or (isinstance(declared, Version)
                                        and st.version < declared)
        above = (isinstance(declared, Version) and st.kind == "minimum" and st.leading
                 and st.version > declared and st.version not in variant_mins)
        if not (below or above):
            seen.add(st.version)
            continue
        if not _about_the_recipe(st, text, headings()):
            continue
        seen.add(st.version)
        yield st, below
