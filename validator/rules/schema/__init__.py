"""``SCHEMA``: shape, types, enums.

Stage rules: :mod:`validator.schema` emits them while it validates a document against
the JSON Schemas of ``validator/data/schemas``; the modules here declare them
(:func:`validator.rules.metadata.declare`) and import nothing above the metadata.
"""
