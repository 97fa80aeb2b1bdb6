"""Environment variables whose VALUE decides which code a program loads: unlike the names
of :data:`validator.analysis.shell_hazards.CODE_LOADING_NAMES`, most values are plain
settings, so the value is judged (``REF018``).

``PYTHONWARNINGS`` holds comma-separated warning filters ``action:message:category:
module:lineno``; Python resolves a dotted ``category`` (``pkg.mod.Cat``) by importing
``pkg.mod`` at start-up, so ``ignore::evil.Cat`` runs ``evil.py`` from the working folder
or ``sys.path``. A category without a dot is looked up among the built-in exceptions (no
import), and ``builtins.``/``warnings.`` name modules Python has loaded already.
"""

from __future__ import annotations

from validator.analysis.shell_hazards import CODE_LOADING, EXPORTED_EFFECT, Hazard

_LOADED_MODULES = frozenset({"builtins", "warnings"})
"""Modules a warning category may name without importing anything new."""


def imported_warning_modules(value: str) -> list[str]:
    """The modules Python imports to read ``PYTHONWARNINGS=value`` (each filter's category
    field, stripped as Python strips it, that names a module outside builtins/warnings)."""
    found = []
    for entry in value.split(","):
        fields = [f.strip() for f in entry.split(":")]
        category = fields[2] if len(fields) > 2 else ""
        module = category.rpartition(".")[0]
        if module and module not in _LOADED_MODULES:
            found.append(module)
    return found


def env_value_hazards(name: str, value: str) -> list[Hazard]:
    """The :class:`Hazard` of env ``name`` set to ``value`` when that value makes a program
    load code (``PYTHONWARNINGS`` naming a category of a module to import), else none."""
    if name != "PYTHONWARNINGS":
        return []
    return [Hazard(CODE_LOADING, f"{name}={value}", EXPORTED_EFFECT + "every Python started later "
                   f"(vLLM included) imports the module `{module}` its warning filter names "
                   "as a category, running its code")
            for module in imported_warning_modules(value)[:1]]
