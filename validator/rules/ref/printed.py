"""A value the recipes site prints unquoted into a command users copy (``REF018``,
:mod:`validator.rules.ref.shell_code`): where it comes from and how the site prints it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from validator.analysis.env_hazards import env_name_hazards, env_value_hazards

PLAIN = re.compile(r"[A-Za-z0-9_./=:@,+%-]*")
"""Text the site's ``shellQuote`` itself leaves bare: no shell syntax at all."""
SITE = "the site's renderer (command-synthesis.js)"


@dataclass(frozen=True)
class Printed:
    """A value printed unquoted: where it comes from, what it is, how the site prints it."""

    document: str
    pointer: str
    text: str
    what: str
    how: str
    literal: bool = True
    split: bool = False
    env_name: bool = False
    positional: str = ""
    """The operand the value stands for (``the image of `docker run```): a leading ``-``
    makes it an option there (:func:`word_hazards`)."""
    heredoc: bool = False
    """Written into an unquoted heredoc (:func:`_heredoc_hazards`), not as a word."""
    env_value_of: str = ""
    """The env name whose value this is (its value may load code: ``PYTHONWARNINGS``)."""

    def judged(self) -> bool:
        """Whether the value can hold a hazard (plain text outside an env name or an
        operand that starts with ``-`` cannot)."""
        return (not PLAIN.fullmatch(self.text)
                or (bool(self.positional) and self.text.startswith("-"))
                or (self.env_name and bool(env_name_hazards(self.text)))
                or bool(env_value_hazards(self.env_value_of, self.text)))
