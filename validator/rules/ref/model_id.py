"""``REF001``, ``REF019``: ``model.model_id`` is the recipe's file path
(``models/<org>/<name>.yaml``), letter case included; the fix of ``REF019`` writes the
path's spelling."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import get
from validator.context import Context
from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.fix.spans import NotApplicable, replace_in_scalar, value_at
from validator.load import LoadedDocument
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.ref.facts import (
    expected_model_id,
    not_a_file_name,
)


@rule("REF001", Severity.ERROR, "model.model_id does not match the file path",
      reads=RECIPE_ONLY)
def model_id_matches_path(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``model.model_id`` must equal ``<org>/<repo>`` of ``models/<org>/<repo>.yaml``:
    the site derives the page URL from the path and links Hugging Face by the id, so a
    mismatch publishes a page for one model that serves another. An id that differs
    only in letter case is ``REF019``'s warning.

    Failing::

        model:
          model_id: "example-org/Example-Chat-8B-Base"

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"

    How to fix: set ``model_id`` to the file's ``<org>/<repo>`` exactly, or rename the file
    after the Hugging Face id."""
    expected = expected_model_id(doc.path)
    model_id = get(doc.data, "model", "model_id")
    if expected is None or not isinstance(model_id, str) or \
            model_id.lower() == expected.lower():
        return
    not_a_name = not_a_file_name(model_id)
    hint = (f"set model_id to {expected!r}; no file can be renamed after {model_id!r}: it "
            f"{not_a_name}" if not_a_name else
            f"rename the file to models/{model_id}.yaml or set model_id to {expected!r}")
    yield Hit("/model/model_id", f"model_id {model_id!r} does not match the file path "
              f"{doc.path!r}", hint)


@rule("REF019", Severity.WARNING, "model.model_id differs from the file path only in case",
      reads=RECIPE_ONLY)
def model_id_case_differs(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``model.model_id`` names the same model as ``models/<org>/<repo>.yaml`` but in
    other letter case (``google/gemma-4-31B-it`` in ``models/Google/…``). The Hugging
    Face Hub resolves ids case-insensitively, so the command the page shows downloads
    the right model; tools that compare ids exactly see two. A warning, not ``REF001``'s
    error.

    Failing::

        model:
          model_id: "example-org/example-chat-8b"

    Passing::

        model:
          model_id: "example-org/Example-Chat-8B"

    How to fix: write ``model_id`` as the file path spells it (``recipe-check fix
    --unsafe-fixes``), or rename the file after the Hub's spelling."""
    expected = expected_model_id(doc.path)
    model_id = get(doc.data, "model", "model_id")
    if expected is None or not isinstance(model_id, str) or model_id == expected \
            or model_id.lower() != expected.lower():
        return
    yield Hit("/model/model_id", f"model_id {model_id!r} differs from the file path "
              f"{doc.path!r} only in letter case", f"set model_id to {expected!r} or rename "
              f"the file to models/{model_id}.yaml")


@fixer("REF019", applicability=Applicability.UNSAFE,
       summary="write model_id as the file path spells it")
def model_id_from_path(req: FixRequest) -> FixResult:
    """``model_id: google/gemma-x`` in ``models/Google/gemma-x.yaml`` -> ``Google/gemma-x``.
    Unsafe: the Hub resolves ids case-insensitively, but tools that compare ids exactly
    see another model. A model_id that differs otherwise is left alone."""
    path = req.doc.path
    parts = path.split("/")
    if len(parts) != 3 or parts[0] != "models" or not parts[2].endswith((".yaml", ".yml")):
        raise NotApplicable("the file is not models/<org>/<name>.yaml")
    spelled = parts[1] + "/" + parts[2].rsplit(".", 1)[0]
    current = value_at(req.doc, req.finding.pointer)
    if not isinstance(current, str) or current.lower() != spelled.lower() or current == spelled:
        raise NotApplicable("model_id differs from the file path by more than letter case; "
                            "rename the file or fix the id by hand")
    edit, change = replace_in_scalar(req.doc, req.index, req.finding.pointer, current, spelled)
    return f"model_id {current} -> {spelled}", [edit], [change]
