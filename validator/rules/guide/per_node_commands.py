"""``GUIDE012``: the per-node commands of one multi-node deployment in the guide agree."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from validator.findings import Related, Severity
from validator.guide.commands import ServeCommand
from validator.rules.api import Hit, rule
from validator.rules.guide.facts import GUIDE_READS, GuideAnalysis, file_line, guide_model
from validator.vllm_cli.parsed_args import ParsedArgs, parse_json

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


#: Flags whose value differs per node of one multi-node deployment by design.
PER_NODE_DESTS = frozenset({
    "data_parallel_start_rank", "data_parallel_rank", "node_rank", "headless", "host",
    "data_parallel_size_local", "api_server_count",
})
#: Flags that mark a command as one node of a multi-node deployment.
MULTI_NODE_DESTS = frozenset({
    "data_parallel_start_rank", "data_parallel_rank", "node_rank", "headless",
    "data_parallel_address", "master_addr", "nnodes",
})
#: API-server (frontend) options: a ``--headless`` node runs no API server, so their
#: absence there is expected. The ``Frontend`` group of ``make_arg_parser``
#: (``FrontendArgs`` in ``vllm/entrypoints/openai/cli_args.py``, 0.10-0.33), plus the
#: reasoning parser, served name, request logging and API server count.
FRONTEND_DESTS = frozenset({
    "allow_credentials", "allowed_headers", "allowed_methods", "allowed_origins",
    "api_key", "chat_template", "chat_template_content_format", "default_chat_template_kwargs",
    "disable_access_log_for_endpoints", "disable_fastapi_docs",
    "disable_frontend_multiprocessing", "disable_uvicorn_access_log",
    "enable_auto_tool_choice", "enable_force_include_usage", "enable_log_deltas",
    "enable_log_outputs", "enable_prompt_tokens_details", "enable_request_id_headers",
    "enable_server_load_tracking", "enable_ssl_refresh", "enable_tokenizer_info_endpoint",
    "exclude_tools_when_tool_choice_none", "grpc_port", "host", "log_config_file",
    "log_error_stack", "lora_modules", "max_log_len", "middleware", "port",
    "reasoning_effort_map", "response_role", "return_tokens_as_token_ids", "root_path",
    "ssl_ca_certs", "ssl_cert_reqs", "ssl_certfile", "ssl_ciphers", "ssl_keyfile",
    "tool_call_parser", "tool_parser_plugin", "tool_server", "trust_request_chat_template",
    "uds", "uvicorn_log_level", "reasoning_parser", "served_model_name",
    "disable_log_requests", "enable_log_requests", "disable_log_stats", "api_server_count",
})

@rule("GUIDE012", Severity.WARNING, "Per-node guide commands disagree",
      reads=GUIDE_READS)
def per_node_commands_differ(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The guide gives one command per node of a multi-node deployment (same section and
    model, with ``--data-parallel-address``/``--headless``/``--node-rank``/
    ``--data-parallel-start-rank``...) and a flag that every node should share differs
    between them (e.g. ``--gpu-memory-utilization``, or a flag present on one node only).
    Per-node flags (ranks, ``--headless``, ``--host``, local DP size, API server count)
    are expected to differ, and API-server (frontend) flags may be absent on a
    ``--headless`` node, which runs no API server.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --data-parallel-address 10.0.0.1 \\
            --data-parallel-start-rank 0 --gpu-memory-utilization 0.9
          vllm serve example-org/Example-Chat-8B --data-parallel-address 10.0.0.1 \\
            --data-parallel-start-rank 1 --headless --gpu-memory-utilization 0.8
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --data-parallel-address 10.0.0.1 \\
            --data-parallel-start-rank 0 --gpu-memory-utilization 0.9
          vllm serve example-org/Example-Chat-8B --data-parallel-address 10.0.0.1 \\
            --data-parallel-start-rank 1 --headless --gpu-memory-utilization 0.9
          ```

    How to fix: use the same value on every node unless the difference is intended."""
    out = GuideAnalysis()
    model = guide_model(doc, ctx)
    _node_sets(doc, [(c.cmd, c.parsed) for c in model.checked] + model.unchecked, out)
    return out.hits.get("GUIDE012", [])


def _kv_role(parsed: ParsedArgs) -> str | None:
    value, _ = parsed.json_value("kv_transfer_config")
    role = value.get("kv_role") if isinstance(value, dict) else None
    return role if isinstance(role, str) else None


def _node_sets(doc: LoadedDocument, results: list[tuple[ServeCommand, ParsedArgs]],
               out: GuideAnalysis) -> None:
    groups: dict[tuple[str, str, str | None], list[tuple[ServeCommand, ParsedArgs]]] = {}
    for cmd, parsed in results:
        if not any(parsed.has(d) for d in MULTI_NODE_DESTS):
            continue
        key = (cmd.section, (cmd.model or "").lower(), _kv_role(parsed))
        groups.setdefault(key, []).append((cmd, parsed))
    for members in groups.values():
        if len(members) < 2:
            continue
        ranks = {_rank_signature(p) for _, p in members}
        if len(ranks) < 2:
            continue  # the same command repeated (alternatives), not per-node commands
        ref_cmd, ref = members[0]
        ref_values = _shared_values(ref_cmd, ref)
        ref_headless = ref.has("headless")
        for cmd, parsed in members[1:]:
            values = _shared_values(cmd, parsed)
            headless = parsed.has("headless")
            for dest in sorted(set(ref_values) | set(values)):
                a, b = ref_values.get(dest), values.get(dest)
                if (a and a[0]) == (b and b[0]):
                    continue
                missing_on_headless = (b is None and headless) or (a is None and ref_headless)
                if missing_on_headless and dest.split(".")[0] in FRONTEND_DESTS:
                    continue  # a headless node runs no API server
                line = b[1] if b is not None else cmd.line
                shown_a = "absent" if a is None else f"`{a[0]}`"
                shown_b = "absent" if b is None else f"`{b[0]}`"
                name = "--" + dest.replace("_", "-")
                out.add("GUIDE012", line, f"{name} is {shown_b} in this node's command but "
                        f"{shown_a} in the command for another node of the same deployment",
                        "use the same value on every node unless the difference is intended",
                        (Related(file_line(doc, a[1] if a else ref_cmd.line),
                                 "the other node's command"),))


def _rank_signature(parsed: ParsedArgs) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((o.dest, o.value or "") for o in parsed.options
                        if o.dest in PER_NODE_DESTS - {"host", "data_parallel_size_local",
                                                       "api_server_count"}))


def _shared_values(cmd: ServeCommand, parsed: ParsedArgs) -> dict[str, tuple[str, int]]:
    """ident -> (value, guide line) of the options every node should share."""
    out: dict[str, tuple[str, int]] = {}
    for o in parsed.options:
        if o.dest in PER_NODE_DESTS:
            continue  # flags vLLM does not know (a plugin's) are compared as written
        value = " ".join(o.values) if o.values else (o.option or o.normalised)
        if o.keys:
            value = f"{'.'.join(o.keys)}={value}"
        out[o.ident] = (_canonical_json(value), cmd.arg_lines[o.index])
    return out


def _canonical_json(value: str) -> str:
    if not value.lstrip().startswith(("{", "[")):
        return value
    try:
        return json.dumps(parse_json(value), sort_keys=True)
    except ValueError:
        return value


# --------------------------------------------------------------------------- rules
