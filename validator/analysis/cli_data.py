"""The data source the CLI rules read during a run (:func:`active`, :func:`using`).

The data source itself, :class:`CliRegistries` (the vendored registries of one run), is
:mod:`validator.vllm_cli.data_source`, re-exported here.

The driver builds one per run from the settings (:meth:`CliRegistries.from_settings`,
:class:`validator.session.Session`) and puts it on the context (``ctx.cli``); the
checker runs the rules with it as the :func:`active` data source, which the module
functions of :mod:`validator.analysis.cli_plan` read. Outside a run (tests, argument
parsing, fixers) :func:`active` gives a fresh data source over the project's vendored
folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from validator.vllm_cli.data_source import MEMO_SIZE, VLLM, CliRegistries

__all__ = ["MEMO_SIZE", "VLLM", "CliRegistries", "active", "using"]

_ACTIVE: ContextVar[CliRegistries | None] = ContextVar("recipe_check_cli_registries",
                                                       default=None)


def active() -> CliRegistries:
    """The data source of the current run (:func:`using`); outside a run a fresh one over
    the project's vendored registries (each loaded file is still read once per process,
    see :func:`validator.vllm_cli.registry.load_registry`)."""
    return _ACTIVE.get() or CliRegistries()


@contextmanager
def using(cli: CliRegistries) -> Iterator[CliRegistries]:
    """Run the block with ``cli`` as the :func:`active` data source (the checker wraps
    the rules)."""
    token = _ACTIVE.set(cli)
    try:
        yield cli
    finally:
        _ACTIVE.reset(token)
