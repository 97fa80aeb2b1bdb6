"""``RC``: recipe-check's own configuration: suppression comments.

Stage rules: :mod:`validator.suppress` emits them while it applies the suppression
comments of a file; the module here declares them and imports nothing above the metadata.
"""
