"""Pull-request mode: which files a change between two commits asks us to check, and why.

:mod:`validator.pr.event` reads the revisions from a GitHub Actions event,
:mod:`validator.pr.select` diffs the merge base against the head and picks the recipes
(changed ones, and those referencing changed taxonomy/strategy entries),
:mod:`validator.pr.run` checks them at the head revision.
"""
