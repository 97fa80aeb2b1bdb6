"""The vendored CLI registries every in-process check of one test process shares.

A run of the checker builds one :class:`~validator.vllm_cli.data_source.CliRegistries`
and gives it to each context it checks against (:class:`validator.session.Session`): the
loaded releases and what the rules derive from them (release plans, parsed argument
lists, first and last releases of names) are then computed once per run, not once per
recipe. Tests that check a small tree in process (:func:`tests.conftest.check_tree`) are,
taken together, one such run over many trees: they share the registries of the project's
vendored data the same way (one per pytest process, so per xdist worker), rather than
each building them anew, which cost about a sixth of checking a large recipe. Settings
that name another vendored folder (a test's own copy, which it may edit) get their own
registries, as before.
"""

from __future__ import annotations

from functools import cache

from validator.context import Settings
from validator.vllm_cli.data_source import CliRegistries


@cache
def _project_registries() -> CliRegistries:
    return CliRegistries()


def shared_registries(settings: Settings) -> CliRegistries | None:
    """The process's registries of the project's vendored data when ``settings`` read
    those (seen through the settings' release window by the context); ``None`` when they
    name a vendored folder of their own (the context then builds its registries)."""
    return _project_registries() if settings.vendored_dir is None else None
