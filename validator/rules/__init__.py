"""The rules: what recipe-check judges, one folder per family.

* :mod:`validator.rules.metadata`: the catalogue entry of a rule (:class:`~validator.
  rules.metadata.Rule`, its severity and the :class:`~validator.rules.metadata.Reads` it
  declares) and :class:`~validator.rules.metadata.Hit`. It imports nothing above
  :mod:`validator.findings`, so every pipeline stage (the loader, the schema validator,
  provenance) may declare the rules it emits.
* :mod:`validator.rules.api`: what a check module imports (the :func:`~validator.rules.
  api.rule` decorator and the type of a check function), above :mod:`validator.load` and
  :mod:`validator.context`.
* ``validator/rules/<family>/``: the rules of one family (``yaml``, ``schema``, ``prov``,
  ``rc``, ``ref``, ``hw``, ``env``), one module per rule or tight group of rules named
  after what it checks, each with its description (failing and passing snippets, how to
  fix) and its fix; ``facts.py`` holds what the family's rules share.

This ``__init__`` imports nothing, so that importing the metadata does not import the
check API or any family. The complete list of rule modules is
:data:`validator.rule_index.RULE_MODULES`.
"""
