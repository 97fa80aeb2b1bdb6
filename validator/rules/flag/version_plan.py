"""``FLAG018``, ``FLAG019``: the recipe's version plan (a minimum that predates ``vllm
serve``, flags checked against another release), and ``FLAG018``'s fix (raise the
minimum)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG018", Severity.ERROR, "min_vllm_version predates vllm serve",
      reads=FLAG_READS)
def predates_vllm_serve(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``vllm serve`` first shipped in vLLM 0.5.2; on 0.5.1 and older only ``python -m
    vllm.entrypoints.openai.api_server`` exists, so the rendered command cannot run.

    Failing::

        model:
          min_vllm_version: "0.4.2"

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: raise ``min_vllm_version`` to 0.5.2 or later."""
    return issue_hits("FLAG018")(doc, ctx)


@rule("FLAG019", Severity.INFO, "Flags checked against another release",
      reads=FLAG_READS)
def checked_against_other_release(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``min_vllm_version`` is ``nightly`` (or not a vendored release), so the flags are
    checked against the newest vendored release (or the nearest older one) instead; the
    message says which.

    On a recipe's launch day (a minimum no release has yet, ``nightly`` or newer than the
    newest, and an install path that pulls unreleased vLLM: ``nightly_required``, a
    source install, a launch image) this is the one finding that says what cannot be
    verified against a released vLLM yet: flags, parser names, values and environment
    variables that no vendored release has are not reported (not as ``FLAG001``,
    ``FLAG006``, ``FLAG016``, ``FLAG024`` nor the ``GUIDE`` rules), and the finding
    names the ``nightly_required`` line. What a release can tell (a typo of a released
    flag, a malformed JSON value) is still checked against the newest release.

    Failing::

        model:
          min_vllm_version: "nightly"

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: declare a released ``min_vllm_version`` where the recipe runs on one;
    otherwise nothing (the info says what was checked)."""
    return issue_hits("FLAG019")(doc, ctx)


@fixer("FLAG018", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_to_vllm_serve(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
