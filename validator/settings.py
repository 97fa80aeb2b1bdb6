"""The run-wide options the checks and data loaders honour (:class:`Settings`).

A module of its own, re-exported by :mod:`validator.context`: the command line builds
the settings before it knows whether the run has anything to check (a history audit
answered from its cache checks nothing), and the context's loaders are not imported for
that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass
class Settings:
    """Run-wide options the checks and data loaders honour.

    Attributes:
        strict: warnings count as errors.
        offline: never touch the network (release list, fetches come from snapshots).
        vendored_dir: folder of vendored, digest-pinned data (default: the project's
            ``snapshots/``): the vLLM release list and, in its ``vllm-cli/``, the CLI
            registries the rules read (:class:`validator.vllm_cli.data_source.CliRegistries`).
        max_bytes: size limit for any YAML file read, in bytes.
        online_releases: fetch the vLLM release list from PyPI instead of the vendored
            snapshot (see :mod:`validator.releases`); off by default.
        as_of: judge with the vLLM releases published by that date (``--as-of``).
        vllm: check every install range against this one vendored release (``--vllm``).
        rendered: also check every command the recipes site renders (``--rendered``).
    """

    strict: bool = False
    offline: bool = False
    vendored_dir: Path | None = None
    max_bytes: int = 2 * 1024 * 1024
    online_releases: bool = False
    as_of: date | None = None
    vllm: str | None = None
    rendered: bool = False
