"""``FLAG`` rules about the install range: a flag judged at every release a recipe
claims (:mod:`validator.analysis.install_range`), found by the family's shared model
(:mod:`validator.rules.flag.facts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.rules.api import Hit, rule
from validator.rules.flag.environment_variables import env_hits
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


@rule("FLAG023", Severity.ERROR, "Flag rejected by a release inside the install range",
      reads=FLAG_READS)
def rejected_inside_install_range(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A flag or value is accepted by the recipe's minimum vLLM but rejected by a release
    the recipe also claims: every vendored release from the minimum up to the newest one
    an install path pulls (``uv pip install -U vllm`` and ``vllm/vllm-openai:latest``
    pull the newest; ``vllm==X`` or a ``vX`` image tag pull X). Anyone on such a release
    gets "unrecognized arguments" (or "ambiguous option" for an abbreviation that a later
    release made ambiguous, or a value the release's parser refuses). The message names
    the releases (``0.17.0–0.32.0 (16 releases)``) and where the flag is accepted again.
    Below, ``--disable-log-requests`` is absent from 0.17.0 to 0.32.0.

    Failing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--disable-log-requests"]

    Passing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--disable-log-stats"]

    How to fix: drop or replace the flag, or raise ``min_vllm_version`` to the release
    that accepts it again; ``--vllm VERSION`` checks every recipe against one release."""
    return issue_hits("FLAG023")(doc, ctx)


@rule("FLAG024", Severity.INFO, "Flag only unreleased code may have",
      reads=FLAG_READS)
def only_unreleased_code(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A flag, or a value of a flag with fixed choices (a parser name, a backend), is in no
    vendored release, and an install path of the recipe pulls unreleased code
    (``nightly_required`` and its nightly wheel or ``:nightly`` image, a ``git clone``
    source install, a model launch image). It may well exist there, so it is not judged
    (elsewhere it is ``FLAG001`` / ``FLAG006``). The hint names the nearest released
    flag or value in case it is a typo (a near-typo of a released one stays an error).
    With a minimum no release has yet it is not reported either: ``FLAG019`` says once
    that the recipe cannot be verified against a released vLLM yet. Commands that run in
    an image the recipe gives their hardware that no vendored release describes (a
    launch, nightly, community or dev build: the install-channel model) get the info
    naming that image for such a flag or value, and for a ``VLLM_*`` variable or an
    ``--additional-config`` key no vendored release reads.

    Failing::

        model:
          min_vllm_version: "0.20.0"
          nightly_required: true
          base_args: ["--brand-new-flag"]

    Passing::

        model:
          min_vllm_version: "0.20.0"
          nightly_required: true
          base_args: ["--max-model-len", "32768"]

    How to fix: nothing while the flag is unreleased; re-check with ``recipe-check data
    vllm-cli VERSION`` once the release ships."""
    return issue_hits("FLAG024")(doc, ctx) + _environment(doc, ctx)


def _environment(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The infos of ``VLLM_*`` variables that only channels no vendored release
    describes set (:func:`~validator.rules.flag.environment_variables.env_hits`: they name
    their configurations already)."""
    return env_hits(doc, ctx)["FLAG024"]
