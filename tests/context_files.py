"""Context files of our own (not corpus files) for tests of how recipe-check judges a
kv-store deployment and the taxonomy's KV offload options."""

from __future__ import annotations

import json

KV_STORE = "kv_store/kv_store_example.yaml"
KV_STORE_TEXT = """name: kv_store_example
deploy_type: kv_store_lb
display_name: "Example KV store"
description: "A kv-store deployment of our own, for tests."
min_vllm_version: "{minimum}"
vllm:
  vllm_args:
    - "--kv-transfer-config"
    - '{{"kv_connector":"ExampleConnector","kv_role":"kv_both"}}'
{extra}"""
KV_OFFLOAD = """
kv_offload:
  example_cpu:
    display_name: "CPU"
    description: "An offload option of our own."
    args:
{args}"""


def kv_store_text(minimum: str = "0.21.0", extra: str | None = None) -> str:
    """A kv-store deployment of ``minimum`` with one more ``vllm_args`` item ``extra``."""
    return KV_STORE_TEXT.format(minimum=minimum,
                                extra=f'    - "{extra}"\n' if extra is not None else "")


def kv_offload_text(*args: str) -> str:
    """A taxonomy ``kv_offload`` section with one option whose ``args`` are ``args``."""
    return KV_OFFLOAD.format(args="".join(f"      - {json.dumps(a)}\n" for a in args))
