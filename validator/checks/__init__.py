"""Rule families. Importing this package registers every check rule.

One module per family; each rule is a function decorated with
:func:`validator.checks.registry.rule`. Add a family by adding a module and importing it
here.
"""

from validator.checks import flag, guide, hw, ref, render_checks, ver
from validator.source import verify as _prov  # noqa: F401  (registers PROV stage rules)

__all__ = ["flag", "guide", "hw", "ref", "render_checks", "ver"]
