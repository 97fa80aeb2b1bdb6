"""Helpers shared by the provenance tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

GLM = "models/zai-org/GLM-5.2.yaml"
REPO = "vllm-project/recipes"

# Upstream commits of vllm-project/recipes (mapped to bundle commits by commit_map):
# GLM-5.2.yaml created, changed twice later, and main's head (which did not touch it).
UPSTREAM_PINS = [
    "e9ee06079e38d1968f9efe4d4975ff275498f906",
    "70bd67ebc0b10593f14f5e4618d338150a2b3bee",
    "5943215a27acb4a243e9d27bd69daf491034cfea",
    "8959cf64189c71d36e11c6a30335f923f261b1f7",
]
UPSTREAM_BEFORE_GLM = "5f7ce360e8cb334e1bd212a3b99911b46d6f15f4"
"""The parent of the commit that created GLM-5.2.yaml: the path is absent there."""


def git_out(repo: Path, *args: str) -> str:
    """stdout of ``git -C repo ARGS`` (text, stripped)."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def git_bytes(repo: Path, *args: str) -> bytes:
    """stdout of ``git -C repo ARGS`` as bytes."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True,
                          capture_output=True).stdout


def assert_findings_schema(report: object) -> None:
    """Validate a ``--format json`` report against ``schemas/findings.schema.json``."""
    import json

    import jsonschema

    schema_path = Path(__file__).resolve().parents[2] / "schemas" / "findings.schema.json"
    schema = json.loads(schema_path.read_text())
    jsonschema.Draft202012Validator(schema).validate(report)


def one_file_commit(path: str, data: bytes, message: str = "one file\n"
                    ) -> tuple[str, list[bytes]]:
    """``(commit id, raw git objects)`` of a commit whose tree holds only ``path`` with
    ``data``, built in git's object format (no repository needed): what a snapshot
    store needs beside a lock entry to tie it to its commit."""
    import hashlib

    def obj(kind: str, body: bytes) -> tuple[str, bytes]:
        raw = f"{kind} {len(body)}".encode() + b"\0" + body
        return hashlib.sha1(raw).hexdigest(), raw

    objects: list[bytes] = []
    oid, raw = obj("blob", data)
    mode, parts = b"100644", path.split("/")
    for name in reversed(parts):
        oid, raw = obj("tree", mode + b" " + name.encode() + b"\0" + bytes.fromhex(oid))
        objects.append(raw)
        mode = b"40000"
    commit, raw = obj("commit", (f"tree {oid}\nauthor t <t@example.invalid> 1700000000 +0000\n"
                                 f"committer t <t@example.invalid> 1700000000 +0000\n\n"
                                 f"{message}").encode())
    return commit, [raw, *reversed(objects)]
