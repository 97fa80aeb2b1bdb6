"""The fixes of the ``YAML`` rules (here rather than beside each declaration: a fix imports
the loader, and the loader imports the declarations).

* ``YAML003``/``YAML004`` (:mod:`validator.rules.yaml.ambiguous_scalars`), safe: quote the
  scalar, keeping its source text (``0.10`` -> ``"0.10"``).
"""

from __future__ import annotations

from validator.fix.model import Applicability, Edit, SetValue
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, scalar_span


@fixer("YAML003", "YAML004", applicability=Applicability.SAFE,
       summary="quote the scalar, keeping its source text")
def quote_scalar(req: FixRequest) -> FixResult:
    """``key: 0.10`` -> ``key: "0.10"``: the string the author wrote, in every YAML
    version."""
    span = scalar_span(req.doc, req.index, req.finding.pointer)
    if span.style != "plain":
        raise NotApplicable("the value is already quoted")

    return (f'quote `{span.inner}`', [Edit(span.start, span.end, f'"{span.inner}"')],
            [SetValue(req.finding.pointer, span.inner)])
