"""The plain data types the renderer's modules share, imported by them and importing none
of them (a leaf, so that :mod:`validator.render.configuration` and
:mod:`validator.render.problems` need not import each other).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RenderProblem:
    """Something the site cannot render, or renders broken, for one configuration.

    Attributes:
        code: ``unknown-hardware``, ``unknown-variant``, ``unknown-strategy``,
            ``unknown-kv-offload``, ``unknown-feature``, ``internal-error`` (a gap in this port),
            ``not-offered`` (a strategy the
            site does not offer on that hardware), ``synthesis-error`` (the site's
            renderer throws: its build skips the configuration), ``no-model-id``
            (``vllm serve unknown``), ``broken-value`` (a token or env value such as
            ``NaN``, ``undefined``, ``[object Object]``), ``no-docker-image``,
            ``unloadable``.
        severity: ``error`` (the user gets no or a broken command) or ``warning``.
        message: what is wrong and what the site does about it.
        document: path of the document to blame.
        pointer: JSON Pointer of the node to blame inside ``document`` ("" = the root).
    """

    code: str
    severity: str
    message: str
    document: str
    pointer: str
