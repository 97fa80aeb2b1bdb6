"""Where bytes come from.

Every source yields the exact bytes of a file plus a
:class:`~validator.source.provenance.Provenance` saying which repository, commit and path
they are, with their digests. A :class:`~validator.source.tree.RecipeTree` is one revision
of a recipes repository: a working tree on disk, a git commit, an HTTP mirror or a
snapshot store.
"""
