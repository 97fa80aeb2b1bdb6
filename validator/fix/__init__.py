"""``recipe-check --fix``: fixes that edit only their own span of a recipe's text.

:mod:`validator.fix.model` (edits and the data changes they must make),
:mod:`validator.fix.spans` (where a scalar, a list item, a guide line stands),
:mod:`validator.fix.safe`, :mod:`validator.fix.unsafe` and :mod:`validator.fix.removed`
(one fix per rule, registered in :mod:`validator.fix.registry`),
:mod:`validator.fix.second_reader` (ruamel.yaml's reading of an edited file),
:mod:`validator.fix.engine` (check, fix, verify, repeat) and
:mod:`validator.fix.command` (the ``--fix``/``--diff`` options).

This ``__init__`` imports nothing: import what you use from its module
(:func:`validator.fix.engine.fix_document`, :data:`validator.fix.registry.FIXES`).
"""
