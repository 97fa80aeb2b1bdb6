"""The ``PROV`` tests' fixtures: the small example repository the ``pr`` tests build
(a pull request's changed files are where a refused git object shows)."""

from tests.pr.conftest import example_repo  # noqa: F401  (fixture)
