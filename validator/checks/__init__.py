"""Rule families: one module per family (or part of one); each rule is a function
decorated with :func:`validator.checks.registry.rule`.

This package's ``__init__`` imports nothing, so that importing one family (or a helper
such as :mod:`validator.checks.versions`) imports only what that module needs. The
complete list of rule modules is :data:`validator.catalogue.RULE_MODULES`: a new module of
rules is added there.
"""
