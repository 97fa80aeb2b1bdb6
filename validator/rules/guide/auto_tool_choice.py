"""``GUIDE008``: a guide command enabling auto tool choice without a tool-call parser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, guide_model
from validator.vllm_cli.parsed_args import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _auto_tool(cmd: ServeCommand, parsed: ParsedArgs, out: GuideAnalysis) -> None:
    for opt in parsed.find("enable_auto_tool_choice"):
        if not (opt.option or "").startswith("--no-") and not parsed.has("tool_call_parser"):
            out.add("GUIDE008", cmd.arg_lines[opt.index], "--enable-auto-tool-choice without "
                    "--tool-call-parser in this command: vLLM refuses to start",
                    "add --tool-call-parser <name>")


@rule("GUIDE008", Severity.ERROR,
      "Guide command enables auto tool choice without a tool-call parser",
      reads=GUIDE_READS)
def guide_auto_tool_without_parser(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``--enable-auto-tool-choice`` without ``--tool-call-parser`` in the same guide
    command: vLLM refuses to start (``validate_parsed_serve_args``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --enable-auto-tool-choice
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --enable-auto-tool-choice --tool-call-parser hermes
          ```

    How to fix: add ``--tool-call-parser <name>`` to the command."""
    out = GuideAnalysis()
    for c in guide_model(doc, ctx).checked:
        _auto_tool(c.cmd, c.parsed, out)
    return out.hits.get("GUIDE008", [])
