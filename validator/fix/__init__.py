"""``recipe-check --fix``: fixes that edit only their own span of a recipe's text.

:mod:`validator.fix.model` (edits and the data changes they must make),
:mod:`validator.fix.spans` (where a scalar, a list item, a guide line stands),
:mod:`validator.fix.registry` (each rule's fix, registered beside the rule in
``validator/rules/<family>/``), :mod:`validator.fix.option_edits` (the fix steps the
``FLAG`` and ``GUIDE`` fixes share),
:mod:`validator.fix.second_reader` (ruamel.yaml's reading of an edited file),
:mod:`validator.fix.engine` (check, fix, verify, repeat) and
:mod:`validator.fix.command` (the ``--fix``/``--diff`` options).

This ``__init__`` imports nothing: import what you use from its module
(:func:`validator.fix.engine.fix_document`, :data:`validator.fix.registry.FIXES`).
"""
