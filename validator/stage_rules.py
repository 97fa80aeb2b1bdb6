"""The rules a pipeline stage emits rather than a check: ``PROV`` (provenance) and ``RC``
(suppression comments).

They are declared here, beside the catalogue and below every stage, so that the stage
that emits them (:mod:`validator.source.verify`, :mod:`validator.source.snapshots`,
:mod:`validator.suppress`, :mod:`validator.policy`, :mod:`validator.checker`) imports a
declaration and nothing else; :mod:`validator.catalogue` lists this module with the
check families. This module imports only :mod:`validator.rules` and
:mod:`validator.findings`.
"""

from __future__ import annotations

from validator.findings import Severity
from validator.rules import declare

# ---------------------------------------------------------------- PROV: provenance

BLOB_MISMATCH = declare(
    "PROV001",
    Severity.ERROR,
    "Fetched bytes do not match the git blob id of the commit's tree",
    """The git blob id computed from the fetched bytes (``sha1("blob <size>\\0" + bytes)``,
    git's object format) differs from the blob id the commit's tree records for the path.
    The bytes are not the file at that commit: a truncated or altered download, a proxy
    rewriting content, or a corrupted clone. Nothing is stored and nothing else is
    checked in those bytes.""",
)
SHA256_MISMATCH = declare(
    "PROV002",
    Severity.ERROR,
    "Document SHA-256 differs from the expected digest",
    """The SHA-256 of the document's bytes differs from the digest it was expected to have:
    the one given with ``--expect-sha256``, or the one the snapshot lock file records for
    the same repository, commit and path. A pinned commit's file cannot change, so the
    pin, the lock file or the source is wrong.""",
)
SNAPSHOT_MISMATCH = declare(
    "PROV003",
    Severity.ERROR,
    "Stored snapshot file does not match its lock entry",
    """A file in the snapshot store no longer hashes to the SHA-256 (or git blob id) its
    lock file entry records: it was altered or damaged on disk after it was verified and
    stored. ``recipe-check snapshot verify`` reports every such file; ``--offline``
    re-verifies each file on every read and refuses to check altered bytes.""",
)
NOT_PINNED = declare(
    "PROV004",
    Severity.WARNING,
    "Revision is a branch, tag or short id rather than a full commit",
    """The document was fetched at a revision given by name (a branch or tag) or by a short
    commit id, resolved once to a full commit for this run. The findings name that
    commit, but the same command can fetch other bytes later. Pin the full 40-hex commit
    id for reproducible results and records.""",
)


REFUSED = declare(
    "PROV005",
    Severity.ERROR,
    "File refused: not read",
    """A file selected for checking was not read: a symbolic link that leaves the recipes
    root, something other than a regular file (FIFO, device, socket, directory), or a file
    too large to read. Nothing in it was checked, so the run fails rather than passing it
    by in silence.""",
)


UNHANDLED_PATH = declare(
    "PROV006",
    Severity.ERROR,
    "Changed file cannot be handled: the change is not checked",
    """A pull request changes a file whose name or change recorded by git cannot be
    handled (a name that is not valid UTF-8, a change type git reports that PR mode does
    not know). PR mode lists changed files from git's NUL-separated output, so every name
    is seen; one it cannot interpret fails the run instead of being skipped.

    How to fix: rename the file to a UTF-8 name (recipes live at
    ``models/<org>/<model>.yaml``).

    Failing: a pull request adding ``models/a/\\xff.yaml`` (byte 0xFF in the name).
    Passing: the same file named ``models/a/model.yaml``.""",
)


UNBOUND_ENTRY = declare(
    "PROV007",
    Severity.ERROR,
    "Snapshot lock entry does not belong to its commit",
    """A snapshot lock entry is tied to its commit by the git objects stored beside it
    (``objects/git/``): the commit object, which must hash to the entry's commit id, the
    tree objects from its root tree down to the file, whose entry must record the entry's
    ``gitBlob``, and the last commit's object, whose id and committer date must be the
    entry's ``last_commit`` and ``last_commit_date``. An entry whose ``sha256``,
    ``gitBlob``, ``path``, ``last_commit`` or date was edited or swapped with another
    entry, or whose objects are missing, fails: its bytes are not that commit's file.

    How to fix: delete the store's entry (or the whole store) and run
    ``recipe-check fetch`` again for the commit.

    Failing: a lock whose entry for ``taxonomy.yaml`` carries the ``sha256`` and
    ``gitBlob`` of ``strategies/single_node_tp.yaml``.
    Passing: the lock as ``recipe-check fetch`` wrote it.""",
)

# ------------------------------------------------------- RC: suppression comments

UNUSED = declare("RC001", Severity.WARNING, "suppression comment suppresses nothing", """
    A ``# recipe-check: ignore[...]`` or ``ignore-file[...]`` comment names a rule that
    reports nothing where the comment applies: the problem was fixed, or the comment is on
    the wrong line. Stale suppressions hide the next real problem (ruff's ``RUF100``).
    Not reported for rules that did not run (deselected by ``select``/``ignore``).

    Failing::

        model:
          # recipe-check: ignore[FLAG013]
          model_id: example-org/Example-Chat-8B

    Passing::

        model:
          model_id: example-org/Example-Chat-8B

    How to fix: delete the comment, or the ids in it that are no longer needed.
    """)

UNKNOWN = declare("RC002", Severity.WARNING, "suppression comment names an unknown rule", """
    The brackets of a suppression comment hold something that is no rule id, id prefix or
    family prefix (a typo, or a rule of another tool), or nothing at all.

    Failing::

        max_model_len: 4096  # recipe-check: ignore[FLAG999]

    Passing::

        max_model_len: 4096  # recipe-check: ignore[FLAG013]

    How to fix: name the rule shown in the finding (``recipe-check rules`` lists them).
    """)

MALFORMED = declare("RC003", Severity.WARNING, "recipe-check comment is not a known directive",
                    """
    A ``# recipe-check:`` comment is neither ``ignore[IDS]`` nor ``ignore-file[IDS]``, so it
    suppresses nothing (a blanket ``ignore`` without ids is not supported: say which rule).
    So is a ruff/flake8 ``# noqa: IDS`` comment whose ids are all recipe-check rules (one
    naming another tool's codes, ``# noqa: E501`` in a guide's Python, is left alone).

    Failing::

        max_model_len: 4096  # recipe-check: ignore

    Passing::

        max_model_len: 4096  # recipe-check: ignore[FLAG013]

    How to fix: write ``ignore[ID, ...]`` or ``ignore-file[ID, ...]``.
    """)

IN_TEXT = declare("RC004", Severity.WARNING, "suppression directive is text, not a comment", """
    A ``# recipe-check:`` directive stands inside a string: a line of a block scalar
    (``guide: |``) or of a quoted string. YAML does not read comments there, so the line is
    part of the value (js-yaml keeps it; the site shows it, in a guide as a heading) and it
    suppresses nothing. Findings on the lines of a block scalar can only be suppressed for
    the whole file, by an ``ignore-file`` comment outside the string.

    Failing::

        guide: |
          # recipe-check: ignore-file[GUIDE]
          Run the server.

    Passing::

        # recipe-check: ignore-file[GUIDE]
        guide: |
          Run the server.

    How to fix: move the directive out of the string, onto a comment line of its own
    above the key (``ignore-file[...]`` for findings inside the string).
    """)

NOT_SUPPRESSIBLE_IDS = frozenset({"REF018", "FLAG027"})
"""Rules about shell code in the commands users copy: no ``# recipe-check:`` comment of
the file under review silences them (a pull request could otherwise switch them off for
its own payload); ``select``/``ignore`` of the configuration (read at the merge base in
``pr``) still applies."""

NOT_SUPPRESSIBLE = declare("RC005", Severity.WARNING,
                           "suppression comment names a rule that cannot be suppressed", """
    A ``# recipe-check: ignore[...]`` or ``ignore-file[...]`` comment names ``REF018`` or
    ``FLAG027``: shell code in a command users copy and paste. A comment in the file
    itself never silences them (nor this finding), so a change cannot switch them off
    for its own text; the finding stays, and the comment's mention of the rule is ignored.
    A prefix (``REF``) still silences the other rules it names.

    Failing::

        # recipe-check: ignore-file[REF018]
        model:
          model_id: example-org/Example-Chat-8B

    Passing::

        model:
          model_id: example-org/Example-Chat-8B

    How to fix: remove the rule from the comment and fix the value the finding names.
    """)
