"""The ``vllm serve`` argument lists of the context files, judged on the files themselves.

A strategy (``vllm_args``, ``prefill``/``decode.vllm_args``), a kv-store deployment
(``vllm.vllm_args``, ``pd.prefill``/``pd.decode.args``) and the taxonomy's KV offload
options (``kv_offload.<key>.args``) put arguments into the commands of every recipe that
renders with them. Each list is checked once, by the same ``FLAG`` engine as a recipe's
own lists (:func:`validator.rules.flag.facts.judge_list`), against the vLLM CLI from the
file's own ``min_vllm_version`` (else the newest vendored release) up to the newest
release, and reported at the file's own line. A recipe using the list keeps only what its
own release range adds (:func:`validator.rules.flag.facts.add_issue_hits`).

Every value of such a file that the site prints unquoted -- an argument item no flag
takes, a flag item, a strategy's ``parallel_flag``, an environment variable's name and
value (``-e KEY=VALUE`` of ``docker run``) -- is read with the shell model of ``REF018``
(:func:`validator.rules.ref.shell_code.context_shell_hits`) and reported on the file at its
line, also for the KV offload options, whose configurations no recipe's rendering holds.

The whole commands a context file shows verbatim -- a kv-store deployment's companion
commands, the install snippets of ``platforms.yaml`` -- and the links of ``platforms.yaml``
are judged as a recipe's are (:mod:`validator.rules.ref.shown_commands`: ``REF022``,
``REF023``, ``REF024``), on the file at its line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from validator.analysis.arg_layers import parallel_flag_layers, parallel_flag_value
from validator.analysis.env_verdicts import env_issue
from validator.rules.api import Hit, Rule
from validator.rules.env.download_source import context_download_source_hits
from validator.rules.flag.facts import add_issue_hits, context_list_issues, context_plan
from validator.rules.ref.context_values import context_arg_lists, context_env_maps
from validator.rules.ref.shell_code import context_shell_hits
from validator.rules.ref.shown_commands import shown_command_hits
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.findings import Finding
    from validator.load import LoadedDocument
    from validator.vllm_cli.data_source import CliRegistries


def context_arg_hits(cli: CliRegistries, doc: LoadedDocument, kind: str
                     ) -> dict[str, list[Hit]]:
    """Rule id -> hits of every argument list of the context document ``doc``, judged
    with ``cli`` (the run's CLI registries, seen through its release window)."""
    hits: dict[str, list[Hit]] = {}
    if not doc.ok:
        return hits
    for layer in context_arg_lists(kind, doc.data):
        _parsed, tokens, where, issues, joined = context_list_issues(cli, doc, layer)
        for rule_id, found in joined.items():
            hits.setdefault(rule_id, []).extend(found)
        add_issue_hits(doc, layer, tokens, where, issues, hits)
    if kind == "strategy":
        _add_parallel_flag_hits(cli, doc, hits)
    env = list(_context_env_hits(cli, doc, kind))
    if env:
        hits.setdefault("FLAG016", []).extend(env)
    download = list(context_download_source_hits(kind, doc.data))
    if download:
        hits.setdefault("ENV002", []).extend(download)
    shell = context_shell_hits(doc.path, kind, doc.data)
    if shell:
        hits.setdefault("REF018", []).extend(shell)
    for rule_id, found in shown_command_hits(kind, doc.data).items():
        hits.setdefault(rule_id, []).extend(found)
    return hits


def _add_parallel_flag_hits(cli: CliRegistries, doc: LoadedDocument,
                            hits: dict[str, list[Hit]]) -> None:
    """The issues of each ``parallel_flag`` of the strategy ``doc``, judged as the item
    ``[flag, size]`` the site renders (:func:`parallel_flag_layers`), reported at the
    flag's line: those of the flag only (the size is the site's), and ``FLAG005`` when the
    flag carries its own value (:func:`parallel_flag_value`)."""
    for layer in parallel_flag_layers(doc.data):
        _parsed, tokens, where, issues, _joined = context_list_issues(cli, doc, layer)
        found: dict[str, list[Hit]] = {}
        add_issue_hits(doc, layer, tokens, where, [i for i in issues if where[i.index] == 0],
                       found)
        for rule_id, flag_hits in found.items():
            hits.setdefault(rule_id, []).extend(
                replace(h, pointer=layer.pointer, related=()) for h in flag_hits)
        glued = parallel_flag_value(layer)
        if glued is not None:
            hits.setdefault("FLAG005", []).append(Hit(layer.pointer, glued[0], glued[1]))


def _context_env_hits(cli: CliRegistries, doc: LoadedDocument, kind: str
                      ) -> Iterator[Hit]:
    """``FLAG016`` of the ``VLLM_*`` names of a strategy's ``env`` (and its PD roles'), of a
    kv-store deployment's ``vllm.env`` and of the taxonomy's KV offload options' ``env``,
    judged as their argument lists are (:func:`context_plan`) and reported on the file at
    the name's line. A recipe selecting the strategy keeps what only its own range or
    channels show (:mod:`validator.rules.flag.environment_variables`)."""
    plan = context_plan(cli, doc)
    for pointer, env in context_env_maps(kind, doc.data):
        for name in env:
            why = env_issue(name, plan) if isinstance(name, str) else None
            if why is not None:
                yield Hit(join_pointer(pointer, name), f"{pointer[1:].replace('/', '.')}: "
                          f"{why[0]}", why[1], on_key=True)


def context_arg_findings(cli: CliRegistries, doc: LoadedDocument, kind: str,
                         rules: Mapping[str, Rule], *, strict: bool) -> list[Finding]:
    """:func:`context_arg_hits` as findings of those of ``rules`` (id -> rule: the run's
    selection) that found them, before the run's policy."""
    return [doc.finding(rules[rule_id], hit, strict=strict)
            for rule_id, hits in context_arg_hits(cli, doc, kind).items() if rule_id in rules
            for hit in hits]


def context_shell_findings(doc: LoadedDocument, kind: str, rules: Mapping[str, Rule], *,
                           strict: bool) -> list[Finding]:
    """Only the ``REF018`` findings of :func:`context_arg_findings` (when ``rules`` holds
    it): what a run that does not judge the file's argument lists still reports of it."""
    if "REF018" not in rules or not doc.ok:
        return []
    return [doc.finding(rules["REF018"], hit, strict=strict)
            for hit in context_shell_hits(doc.path, kind, doc.data)]
