"""``FLAG021``, ``FLAG022``: ``--additional-config`` keys vLLM-Ascend ignores or rejects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG021", Severity.WARNING, "--additional-config key vLLM-Ascend ignores",
      reads=FLAG_READS)
def additional_config_key_ignored(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A top-level key of ``--additional-config`` (vLLM hands the object to the platform
    plugin unchanged) is not one the vLLM-Ascend release the recipe needs reads
    (``additional_config.get("key")`` in ``vllm_ascend/ascend_config.py`` and elsewhere in
    the package, collected from the release's source). Releases up to 0.26 ignore keys
    they do not read, so the setting silently has no effect. A key that only later
    releases read names the first one.

    Failing::

        model:
          min_vllm_version: "0.17.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_bindings": true}']

    Passing::

        model:
          min_vllm_version: "0.17.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_binding": true}']

    How to fix: correct the key's spelling, or drop it (the message names the first release
    that reads it, if any)."""
    return issue_hits("FLAG021")(doc, ctx)


@rule("FLAG022", Severity.ERROR, "--additional-config key vLLM-Ascend rejects",
      reads=FLAG_READS)
def additional_config_key_rejected(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """As FLAG021, for a vLLM-Ascend release that types the whole object (``AscendConfig``,
    a pydantic config with ``extra="forbid"``, from 0.27): an unknown key is a
    validation error and the server does not start.

    Failing::

        model:
          min_vllm_version: "0.28.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_bindings": true}']

    Passing::

        model:
          min_vllm_version: "0.28.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_binding": true}']

    How to fix: correct the key's spelling, or drop it: the server does not start with it."""
    return issue_hits("FLAG022")(doc, ctx)
