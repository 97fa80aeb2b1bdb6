"""Rule families. Importing this package registers every check rule.

One module per family; each rule is a function decorated with
:func:`validator.checks.registry.rule`. Add a family by adding a module and importing it
here.
"""

from validator.checks import (
    env_vars,
    flag,
    flag_range,
    guide,
    guide_range,
    hw,
    hw_claims,
    hw_text,
    ref,
    render_checks,
    ver,
    ver_claims,
)
from validator.source import verify as _prov  # noqa: F401  (registers PROV stage rules)

__all__ = ["env_vars", "flag", "flag_range", "guide", "guide_range", "hw", "hw_claims",
           "hw_text", "ref", "render_checks", "ver", "ver_claims"]
