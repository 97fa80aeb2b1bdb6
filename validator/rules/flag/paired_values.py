"""``FLAG035``: two values of a rendered ``vllm serve`` command, each valid alone, that
vLLM's config refuses together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, reported

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG035", Severity.ERROR, "Values vLLM refuses together in one command",
      reads=FLAG_READS)
def values_refused_together(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A command the site renders holds two values, each accepted alone, that vLLM's own
    config checks refuse together, so vLLM does not start:

    - ``--max-cpu-loras`` below ``--max-loras`` (default 1) under ``--enable-lora``:
      ``LoRAConfig`` raises "max_cpu_loras (..) must be >= max_loras (..)" (every release);
    - ``--data-parallel-size-local`` above ``--data-parallel-size`` (default 1):
      ``ParallelConfig`` raises "data_parallel_size_local (..) must be <=
      data_parallel_size (..)" (from vLLM 0.9.0).

    The two values often come from different lists (a feature and a hardware override, a
    strategy override and the site's own parallel sizes): the rule judges each rendered
    command whole, and reports the later of the two values the recipe wrote, with the
    configurations that render it and the releases of the install range that refuse it.
    The same pair in a guide command is ``GUIDE006``.

    Failing::

        features:
          lora:
            description: "LoRA adapters"
            args: ["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "2"]

    Passing::

        features:
          lora:
            description: "LoRA adapters"
            args: ["--enable-lora", "--max-loras", "4", "--max-cpu-loras", "8"]

    How to fix: raise ``--max-cpu-loras`` to at least ``--max-loras`` (or drop it: it
    defaults to ``--max-loras``); keep ``--data-parallel-size-local`` at most the total
    ``--data-parallel-size`` (the GPUs of one node that serve data-parallel ranks)."""
    return reported("FLAG035", doc, ctx, [])
