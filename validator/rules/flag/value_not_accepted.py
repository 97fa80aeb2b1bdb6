"""``FLAG006``: a value the flag does not accept, and its fix (raise the minimum when a
newer release accepts it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.fix.model import Applicability
from validator.fix.option_edits import raise_minimum
from validator.fix.registry import FixRequest, FixResult, fixer
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG006", Severity.ERROR, "Value not accepted by the flag",
      reads=FLAG_READS)
def value_not_accepted(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The value is not among the flag's choices at the recipe's minimum version: argparse
    ``choices``, the registered tool-call and reasoning parser names, the
    ``--kv-cache-dtype`` values (vLLM validates these after argparse). A value that only
    appears in a later release is reported with that release. A parser name is not
    judged where every command the site renders it in also loads a parser plugin file
    (``--tool-parser-plugin``, ``--reasoning-parser-plugin``, in any list of that
    command): the file registers its own names. The hint of an unknown parser name says
    so. A value the option's argparse ``type`` refuses at the minimum version
    (``--max-model-len abc``, ``--gpu-memory-utilization 1.5e``) is reported too, judged by
    the kind of that release's own type callable (an integer, vLLM's human-readable
    integer such as ``32k``, a number, a boolean, and the words it also takes such as
    ``auto``; vendored per release in ``snapshots/vllm-cli/types``). A release without
    vendored kinds judges no value this way, and a value the shell or a reader fills in
    (a bare ``$MAX_LEN`` the site leaves unquoted, a guide command's ``${LEN:-8192}``,
    ``<len>``) is not judged; a list's value holding another ``$`` reaches vLLM as
    written (the site single-quotes it: ``--port 'abc$'``) and is judged as that text.
    A number outside the bound
    the minimum's release states in its config (``--gpu-memory-utilization 1.5``,
    ``--max-num-batched-tokens 0``; vendored per release with its source in
    ``validator/data/vllm_bounds.json``) is reported too, and so is a ``--lora-modules``
    value the release's parser refuses: neither ``name=path`` nor (from 0.6.2) a JSON
    object of ``name``, ``path`` and optionally ``base_model_name``
    (:mod:`validator.analysis.lora_modules`). A value in no vendored
    release's choices that is a near-miss of one (``--load-format safetensor``) is a
    typo, also where a later release dropped the choices list and takes any string: it
    is never "accepted from" that release, and raising the minimum does not fix it.

    Failing::

        model:
          base_args: ["--kv-cache-dtype", "fp9", "--enable-lora",
                      "--lora-modules", "org/adapter"]

    Passing::

        model:
          base_args: ["--kv-cache-dtype", "fp8", "--enable-lora",
                      "--lora-modules", "adapter=org/adapter"]

    How to fix: use a value the flag accepts at the minimum version, or raise
    ``min_vllm_version`` to the release that accepts it."""
    return issue_hits("FLAG006")(doc, ctx)


@fixer("FLAG006", applicability=Applicability.UNSAFE,
       summary="raise model.min_vllm_version to what the commands need")
def raise_minimum_for_value(req: FixRequest) -> FixResult:
    """Raise ``model.min_vllm_version`` to the release the finding asks for (the highest
    any finding of the document asks for: :func:`~validator.fix.option_edits.raise_minimum`)."""
    return raise_minimum(req)
