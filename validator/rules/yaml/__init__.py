"""``YAML``: parsing, duplicate keys, type ambiguity, hidden characters.

Stage rules: the loader (:mod:`validator.load`) finds these while it reads a file, so
each module here declares its rules (id, severity, description with failing and passing
snippets, how to fix) with :func:`validator.rules.metadata.declare` and imports nothing
above the metadata; the loader imports the declared :class:`~validator.rules.metadata.
Rule` objects and emits their findings. The fixes of these rules are in
:mod:`validator.rules.yaml.fixes` (a fix imports the loader, which imports the rules).
"""
