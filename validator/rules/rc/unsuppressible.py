"""``RC005``: a suppression comment names a rule no comment may silence (emitted by
:mod:`validator.suppress`)."""

from __future__ import annotations

from validator.findings import Severity
from validator.rules.metadata import declare

WHY_NOT_SUPPRESSIBLE = {
    "REF018": "shell code in a command users copy",
    "FLAG027": "shell code in a command users copy",
    "REF022": "a command users copy runs a script fetched over plain HTTP",
    "REF027": "a context file replacing another's commands under a name not its own",
    "REF028": "a quickstart file the site writes outside its folder or onto another file",
}
"""Rules no ``# recipe-check:`` comment of the file under review silences, and why: each
guards the person who copies a rendered or shown command from running code the command
does not show them (shell code bash would run, a script anyone on the network path can
swap), or keeps a change from replacing other files' commands unseen. A pull request could
otherwise switch them off for its own payload; ``select``/``ignore`` of the configuration
(read at the merge base in ``pr``) still applies."""

NOT_SUPPRESSIBLE_IDS = frozenset(WHY_NOT_SUPPRESSIBLE)

NOT_SUPPRESSIBLE = declare("RC005", Severity.WARNING,
                           "suppression comment names a rule that cannot be suppressed", """
    A ``# recipe-check: ignore[...]`` or ``ignore-file[...]`` comment names ``REF018`` or
    ``FLAG027`` (shell code in a command users copy and paste), ``REF022`` (a shown
    command running a script downloaded over plain HTTP), ``REF027`` (a strategy or
    kv-store file claiming another's name) or ``REF028`` (a quickstart file the site writes
    outside its folder or onto another file). A comment in the file itself never silences
    them (nor this finding), so a change cannot switch them off for its own text; the
    finding stays, and the comment's mention of the rule is ignored.
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
