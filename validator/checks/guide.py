"""``GUIDE``: the ``vllm serve`` commands written in the markdown ``guide``.

Each rule is a unit over the shared model of :mod:`validator.checks.guide_model` (the
guide's commands, found and checked once per document): the continuation and fence rules
read the parse alone; the flag rules read the issues
:data:`~validator.checks.guide_model.ISSUE_RULE` maps to them; ``GUIDE008``-``GUIDE012`` keep
their own logic here. Every finding points at
the guide line (``Hit(block_index=...)`` -> ``SourceMap.block_line``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.checks import cli_plan, flag_engine
from validator.checks._data import as_dict, get
from validator.checks.guide_model import (
    GUIDE,
    GUIDE_READS,
    GuideAnalysis,
    file_line,
    guide_commands,
    guide_model,
    placeholder,
)
from validator.checks.registry import RECIPE_ONLY, Hit, rule
from validator.findings import Related, Severity
from validator.guide.commands import ServeCommand, find_fences
from validator.vllm_cli.argv import ParsedArgs

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

def _auto_tool(cmd: ServeCommand, parsed: ParsedArgs, out: GuideAnalysis) -> None:
    for opt in parsed.find("enable_auto_tool_choice"):
        if not (opt.option or "").startswith("--no-") and not parsed.has("tool_call_parser"):
            out.add("GUIDE008", cmd.arg_lines[opt.index], "--enable-auto-tool-choice without "
                    "--tool-call-parser in this command: vLLM refuses to start",
                    "add --tool-call-parser <name>")


def _served_model(doc: LoadedDocument, cmd: ServeCommand, ids: dict[str, str | None],
                  out: GuideAnalysis) -> None:
    model = cmd.model
    if model is None or placeholder(model) or model.lower() in ids:
        return
    known = ", ".join(sorted({str(get(doc.data, "model", "model_id"))} | {
        str(get(v, "model_id")) for v in as_dict(get(doc.data, "variants")).values()
        if isinstance(get(v, "model_id"), str)}))
    out.add("GUIDE009", cmd.model_line, f"this command serves `{model}`, which is neither "
            "the recipe's model_id nor a variant's", f"recipe models: {known}")


def _env(doc: LoadedDocument, cmd: ServeCommand, plan: cli_plan.VersionPlan,
         out: GuideAnalysis) -> None:
    seen: set[str] = set()
    for name, _, line in cmd.env:
        if name in seen:
            continue
        seen.add(name)
        why = flag_engine.env_issue(name, plan)
        if why is not None:
            out.add("GUIDE010", line, f"environment of a `vllm serve` command: {why[0]}",
                    why[1], related=(Related(file_line(doc, cmd.line), "the command"),))


def _hits(rule_id: str, doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The hits of the engine's issue codes that :data:`ISSUE_RULE` maps to ``rule_id``."""
    return guide_model(doc, ctx).issues.hits.get(rule_id, [])


def _line_issues(kind: str, doc: LoadedDocument) -> Iterator[tuple[int, str]]:
    """(guide line, text) of the continuation issues of ``kind`` in the guide."""
    found = guide_commands(doc)
    for issue in found.issues if found is not None else ():
        if issue.kind == kind:
            yield issue.line, issue.text


@rule("GUIDE001", Severity.ERROR, "Broken line continuation in a guide command",
      reads=RECIPE_ONLY)
def broken_continuation(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A guide shell line ends with a backslash followed by blanks. bash reads ``\\ `` as an
    escaped blank, so the command ends on that line and the following lines run as
    separate commands (their flags are never passed)."""
    for line, _ in _line_issues("trailing_blank", doc):
        yield Hit(GUIDE, "a backslash followed by blanks does not continue the line: bash "
                  "escapes the blank, ends the command here and runs the next line as a "
                  "separate command", "delete the blanks after the `\\`", block_index=line)


@rule("GUIDE002", Severity.ERROR, "Guide flag line lost its backslash",
      reads=RECIPE_ONLY)
def lost_backslash(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A line starting with ``--flag`` follows a command line that does not end with a
    backslash: the shell runs the command without it and then fails on the flag line.
    The flags are still checked as if the continuation were there.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
            --max-model-len 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --max-model-len 32768
          ```

    How to fix: end the previous line with `` \\``."""
    for line, text in _line_issues("lost_backslash", doc):
        yield Hit(GUIDE, f"`{text[:60]}` starts a new command: the line before it does not "
                  "end with `\\`, so this flag is never passed", "end the previous line "
                  "with ` \\`", block_index=line)


@rule("GUIDE003", Severity.ERROR, "Unknown vLLM flag in a guide command",
      reads=GUIDE_READS)
def guide_unknown_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``vllm serve`` (or ``docker run`` vLLM image, or API server module) command in the
    guide passes an option that no vendored vLLM release has, or one the recipe's
    minimum version does not have (see ``FLAG001``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-lenn 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: correct the flag (the hint names the nearest real one) or drop it."""
    return _hits("GUIDE003", doc, ctx)


@rule("GUIDE004", Severity.ERROR, "Guide flag newer than the declared minimum vLLM",
      reads=GUIDE_READS)
def guide_flag_newer(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag that exists only from a release later than the recipe's
    (or the served variant's) effective ``min_vllm_version`` (see ``FLAG002``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --linear-backend auto
          ```

    Passing::

        model: {min_vllm_version: "0.22.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --linear-backend auto
          ```

    How to fix: raise ``min_vllm_version`` to the release the message names, or drop the flag."""
    return _hits("GUIDE004", doc, ctx)


@rule("GUIDE005", Severity.WARNING, "Guide flag or value removed by a newer release",
      reads=GUIDE_READS)
def guide_flag_removed(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command uses a flag or value that the newest vendored vLLM release no longer
    accepts while every install path pins an older release (see ``FLAG003``, also for a
    removal that only pre-releases show; inside the install range it is ``GUIDE017``).

    Failing::

        model:
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --calculate-kv-scales
          ```

    Passing::

        model:
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: replace the flag before the pinned release is upgraded past the one the
    message names."""
    return _hits("GUIDE005", doc, ctx)


@rule("GUIDE006", Severity.ERROR, "Invalid flag value in a guide command",
      reads=GUIDE_READS)
def guide_invalid_value(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command gives a flag a value vLLM rejects at the declared minimum: a missing
    value, a value given to a switch, a value outside the flag's choices or the
    registered parser names, JSON that does not parse, a non-positive
    ``num_speculative_tokens``, a value the flag's argparse type refuses
    (``--max-model-len abc``), or a dotted key that swallows the next flag (one finding
    at the dotted key, what it causes later as related locations; see
    ``FLAG004``-``FLAG009``). A whole shell expansion where an option would be
    (``"$@"``, ``$EXTRA_ARGS``, ``"${ARGS[@]}"``) is not judged, nor are the bare words
    right after it: bash replaces it by words the guide does not show. The literal flags
    around it are judged, and one after an option taking a value is that value
    (``--host $HEAD_IP``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --kv-cache-dtype fp9
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --kv-cache-dtype fp8
          ```

    How to fix: give the flag a value vLLM accepts at the minimum version."""
    return _hits("GUIDE006", doc, ctx)


@rule("GUIDE007", Severity.WARNING, "Abbreviated flag in a guide command",
      reads=GUIDE_READS)
def guide_abbreviated_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """argparse accepts a unique prefix of a long option; the abbreviation breaks when vLLM
    adds an option with the same prefix (see ``FLAG014``).

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model 32768
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

    How to fix: write the option in full."""
    return _hits("GUIDE007", doc, ctx)


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


@rule("GUIDE009", Severity.WARNING, "Guide command serves another model",
      reads=GUIDE_READS)
def guide_other_model(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The model a guide command serves is neither ``model.model_id`` nor a variant's (or an
    omni task's) ``model_id``; local paths and placeholders are not reported. Hugging
    Face ids are compared case-insensitively, as the Hub resolves them.

    Failing::

        guide: |
          ```bash
          vllm serve other-org/Other-Model-8B
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    How to fix: serve the recipe's ``model_id`` (or a variant's), or write a placeholder."""
    out = GuideAnalysis()
    model = guide_model(doc, ctx)
    for c in model.checked:
        _served_model(doc, c.cmd, model.ids, out)
    return out.hits.get("GUIDE009", [])


@rule("GUIDE010", Severity.WARNING, "VLLM_* variable in a guide command not read",
      reads=GUIDE_READS)
def guide_env_var_not_read(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A ``VLLM_*`` variable set for a guide command (prefix assignment, ``export`` earlier
    in the same block, ``docker -e``) is not read by the recipe's minimum vLLM, or no
    longer by the newest release (see ``FLAG016``).

    Failing::

        guide: |
          ```bash
          VLLM_NOT_A_REAL_VARIABLE=1 vllm serve example-org/Example-Chat-8B
          ```

    Passing::

        guide: |
          ```bash
          VLLM_LOGGING_LEVEL=INFO vllm serve example-org/Example-Chat-8B
          ```

    How to fix: drop the variable, or use the name the release reads."""
    out = GuideAnalysis()
    for c in guide_model(doc, ctx).checked:
        _env(doc, c.cmd, c.plan, out)
    return out.hits.get("GUIDE010", [])


@rule("GUIDE013", Severity.ERROR, "Closing fence glued to a guide command line",
      reads=RECIPE_ONLY)
def fence_glued_to_command(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A closing code fence (```` ``` ````) ends a command line instead of standing on a line
    of its own. CommonMark only closes a fence on its own line, so the block swallows the
    text after it, and the copied command hands bash a backtick command substitution.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768 ```

          Then send a request.

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --max-model-len 32768
          ```

          Then send a request.

    How to fix: put the closing ``` on a line of its own."""
    for line, _ in _line_issues("glued_fence", doc):
        yield Hit(GUIDE, "the closing ``` is written at the end of this command line: "
                  "markdown does not close the code block there (the following prose renders "
                  "as code) and a copied command passes backticks to the shell",
                  "put the closing ``` on a line of its own", block_index=line)


@rule("GUIDE014", Severity.WARNING, "Code fence in the guide is never closed",
      reads=RECIPE_ONLY)
def fence_never_closed(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A fenced code block of the guide has no closing fence. CommonMark then runs the
    block to the end of the document (spec 0.31, section 4.5), so every heading and
    paragraph after it renders as code, and the commands inside it may include prose.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    How to fix: add a closing ``` line after the block's last line."""
    text = get(doc.data, "guide")
    if not isinstance(text, str):
        return
    for fence in find_fences(text):
        if not fence.closed and not fence.glued_close:  # a glued close is GUIDE013
            yield Hit("/guide", f"the code block opened here ({fence.lang or 'no language'}) "
                      "is never closed: the rest of the guide renders as code",
                      "add a closing ``` line after the block's last line",
                      block_index=fence.start)


@rule("GUIDE015", Severity.WARNING, "--additional-config key vLLM-Ascend ignores (guide)",
      reads=GUIDE_READS)
def guide_additional_config_key_ignored(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A vLLM-Ascend command in the guide passes an ``--additional-config`` key the
    release the recipe needs does not read, so it has no effect (see ``FLAG021``).

    Failing::

        model: {min_vllm_version: "0.17.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_bindings": true}'
          ```

    Passing::

        model: {min_vllm_version: "0.17.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_binding": true}'
          ```

    How to fix: correct the key's spelling, or drop it (the message names the first release
    that reads it, if any)."""
    return _hits("GUIDE015", doc, ctx)


@rule("GUIDE016", Severity.ERROR, "--additional-config key vLLM-Ascend rejects (guide)",
      reads=GUIDE_READS)
def guide_additional_config_key_rejected(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A vLLM-Ascend command in the guide passes an ``--additional-config`` key that a
    release with a strict ``AscendConfig`` (0.27 on) refuses: the server does not start
    (see ``FLAG022``).

    Failing::

        model: {min_vllm_version: "0.28.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_bindings": true}'
          ```

    Passing::

        model: {min_vllm_version: "0.28.0"}
        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B \\
            --additional-config '{"enable_cpu_binding": true}'
          ```

    How to fix: correct the key's spelling, or drop it: the server does not start with it."""
    return _hits("GUIDE016", doc, ctx)
