"""in-toto Statement v1 wrapping of a record.

Statement layout (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md)::

    {"_type": "https://in-toto.io/Statement/v1",
     "subject": [{"name": "<document path>",
                  "digest": {"sha256": "<hex>", "gitBlob": "<hex>"}}],
     "predicateType": PREDICATE_TYPE,
     "predicate": {<the record>, "resolvedDependencies": [
         {"uri": "git+https://github.com/<repo>@<commit>",
          "digest": {"gitCommit": "<commit>"}}]}}

Digest names follow the in-toto digest set (``sha256``, ``gitBlob``, ``gitCommit``); the
dependency URI uses the SPDX/SLSA ``git+https`` form. The statement is not signed here;
signing (DSSE) is left to the publisher's key management.
"""

from __future__ import annotations

from typing import Any

from validator.evidence.model import PREDICATE_TYPE, Record, canonical_json, record_json

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"


def statement(record: Record) -> dict[str, Any]:
    """The in-toto Statement for ``record`` (validated against the record schema first).

    Raises:
        RecordInvalid: the record does not match ``schemas/record.schema.json``.
    """
    data = record_json(record)
    src = record.source
    predicate = dict(data)
    predicate["resolvedDependencies"] = [{
        "uri": f"git+https://github.com/{src.repository}@{src.revision}",
        "digest": {"gitCommit": src.revision},
    }]
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": src.document_path,
                     "digest": {"sha256": src.document_sha256, "gitBlob": src.git_blob}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }


def statement_bytes(record: Record) -> bytes:
    """Canonical bytes of :func:`statement` (sorted keys, 2-space indent, final newline)."""
    return canonical_json(statement(record))
