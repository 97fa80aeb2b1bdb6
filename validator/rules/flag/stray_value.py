"""``FLAG005``: a value given to a switch, or a stray token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG005", Severity.ERROR, "Value given to a switch, or a stray token",
      reads=FLAG_READS)
def value_given_to_switch(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A switch (an option taking no value, e.g. ``--trust-remote-code``) is given
    ``=value`` (argparse: "ignored explicit argument") or is followed by a bare token,
    or a bare token follows a complete option: argparse rejects it as an unrecognized
    positional argument. A whole shell expansion the site's printed command leaves to
    bash (an item ``$EXTRA`` or ``"$@"`` no flag takes, a bare ``$NAME`` after a switch)
    is not judged, nor are the bare items right after it: bash replaces it by words no
    check can know. A value the site single-quotes (``'${EXTRA}'``) reaches vLLM as
    written and is judged.

    Failing::

        model:
          base_args: ["--trust-remote-code=true"]

    Passing::

        model:
          base_args: ["--trust-remote-code"]

    How to fix: write the switch alone (its ``--no-`` form turns it off), or remove the
    stray token."""
    return issue_hits("FLAG005")(doc, ctx)
