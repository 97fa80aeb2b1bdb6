"""``RC001``-``RC004``: suppression comments that suppress nothing, name an unknown rule,
are no known directive, or are text rather than a comment (emitted by
:mod:`validator.suppress`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

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
