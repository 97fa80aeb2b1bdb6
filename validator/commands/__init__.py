"""Subcommands of the ``recipe-check`` command line, one module each."""
