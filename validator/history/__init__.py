"""Whole-history audit: check every revision of a recipes repository's recipes.

``recipe-check history`` (:mod:`validator.commands.history`) walks the commits of a
branch, checks each recipe blob against the context of its revision, reuses results for
blobs already checked against the same context (:mod:`validator.cache`), and
reports per revision the findings introduced and fixed (:mod:`validator.history.audit`).
Git objects are read through one ``git cat-file --batch`` process per process
(:mod:`validator.history.gitdata`).
"""
