"""``PROV``: pinning, digests, snapshots.

Stage rules: :mod:`validator.source` emits them while it fetches and verifies the files
of a revision; the modules here declare them (:func:`validator.rules.metadata.declare`)
and import nothing above the metadata.
"""
