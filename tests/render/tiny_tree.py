"""A small recipes tree of our own (taxonomy, strategies, a kv store, two recipes) that
exercises the tricky parts of the site's command synthesis."""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import yaml

from validator.context import Context
from validator.load import LoadedDocument, load_yaml

TAXONOMY = """\
hardware_profiles:
  hx8:
    brand: NVIDIA
    generation: hopper
    gpu_count: 8
    vram_gb: 640
  bx8:
    brand: NVIDIA
    generation: blackwell
    gpu_count: 8
    vram_gb: 1440
  gbx4:
    brand: NVIDIA
    generation: blackwell
    gpu_count: 4
    vram_gb: 768
  amx8:
    brand: AMD
    generation: amd
    gpu_count: 8
    vram_gb: 1536
  box1:
    brand: NVIDIA
    generation: blackwell
    gpu_count: 1
    vram_gb: 96
    restricted: true
    scalable: false
  tpux4:
    brand: Google
    generation: tpu
    gpu_count: 4
    vram_gb: 128
    restricted: true
kv_offload:
  cpu_tier:
    args: ["--kv-transfer-config", '{"kv_connector":"TierConnector"}']
    env:
      TIER_HASH_SEED: "7"
"""

STRATEGIES = {
    "single_node_tp": """\
name: single_node_tp
deploy_type: single_node
parallel_flag: "--tensor-parallel-size"
""",
    "single_node_dep": """\
name: single_node_dep
deploy_type: single_node
vllm_args: ["--enable-expert-parallel"]
parallel_flag: "--data-parallel-size"
""",
    "multi_node_tp": """\
name: multi_node_tp
deploy_type: multi_node
env:
  NCCL_SOCKET_IFNAME: "$IFACE_NAME"
""",
    "multi_node_dep": """\
name: multi_node_dep
deploy_type: multi_node
vllm_args: ["--enable-expert-parallel"]
parallel_flag: "--data-parallel-size"
""",
    "multi_node_tp_pp": """\
name: multi_node_tp_pp
deploy_type: multi_node
parallelism: tp_pp
""",
    "pd_cluster": """\
name: pd_cluster
deploy_type: pd_cluster
prefill:
  vllm_args: ["--port", "8001"]
  env:
    UCX_NET_DEVICES: "all"
    SIDE_HOST: "$PREFILL_NODE_1"
decode:
  vllm_args: ["--port", "8002"]
  env:
    SIDE_HOST: "$DECODE_NODE_1"
router:
  policy: round_robin
""",
}

KV_STORE = """\
name: kv_mooncake_test
deploy_type: kv_store_lb
default_instances: 2
vllm:
  vllm_args: ["--kv-transfer-config", '{"kv_connector":"StoreConnector"}']
  env:
    STORE_CONFIG_PATH: /etc/store.json
  install:
    nvidia: "uv pip install store-cuda"
    amd: "uv pip install store-rocm"
mooncake_master:
  command: "store_master --port 50051"
router:
  policy: cache_aware
"""

TINY = """\
meta:
  title: Tiny
  provider: Acme
  hardware:
    box1: verified
model:
  model_id: acme/Tiny-1B
  min_vllm_version: "0.20.0"
  base_args:
    - "--max-model-len"
    - "4096"
    - "--max-num-seqs"
    - "64"
  base_env:
    TINY_MODE: "fast"
  docker_image:
    nvidia: "vllm/vllm-openai:v0.20.0"
variants:
  default:
    precision: bf16
    vram_minimum_gb: 60
  fp8:
    model_id: acme/Tiny-1B-FP8
    precision: fp8
    vram_minimum_gb: 700
    extra_args: ["--quantization", "fp8"]
    hardware_overrides:
      bx8:
        extra_args: ["--kv-cache-dtype", "fp8"]
        extra_env:
          FP8_ON_B: "1"
  pinned:
    precision: bf16
    tp:
      hopper: 2
      default: 4
  nvfp4:
    model_id: /models/tiny-nvfp4
    precision: nvfp4
compatible_strategies:
  - single_node_tp
  - single_node_dep
  - multi_node_tp
  - multi_node_dep
  - multi_node_tp_pp
  - pd_cluster
strategy_overrides:
  multi_node_dep:
    extra_args: ["--data-parallel-size-local", "2"]
  single_node_dep:
    hardware_overrides:
      blackwell:
        extra_args: ["--all2all-backend", "deepep"]
hardware_overrides:
  blackwell:
    extra_args: ["--async-scheduling"]
    extra_env:
      BW_ENV: "on"
features:
  tool_calling:
    args: ["--enable-auto-tool-choice", "--tool-call-parser", "tiny"]
  tuning:
    args: ["--max-num-seqs", "128", "--compilation-config", '{"mode":"max"}']
    hardware_overrides:
      blackwell:
        args: ["--max-num-seqs", "256"]
  spec:
    modes:
      mtp:
        args: ["--speculative-config", '{"method":"mtp"}']
      draft:
        args: ["--speculative-config", '{"method":"draft"}']
        hardware_overrides:
          hopper:
            args: ["--speculative-config", '{"method":"draft","n":2}']
    default_mode: mtp
  quoted:
    args: ["--chat-template", "it's here", "--served-model-name", "$SERVED_NAME"]
opt_in_features:
  - quoted
  - spec
"""

BROKEN = """\
meta:
  title: Broken
  provider: Acme
model:
  model_id: acme/Broken-1B
  base_args:
    - "--max-model-len"
    - 4096
variants:
  default:
    precision: bf16
compatible_strategies:
  - single_node_tp
  - multi_node_nope
default_strategy: multi_node_nope
"""


OMNI = """\
meta:
  title: Voice
  provider: Acme
  tasks: [omni]
model:
  model_id: acme/Voice-1B
  base_args: ["--trust-remote-code", "--port", "9000"]
  base_env:
    VOICE: "1"
variants:
  default:
    precision: bf16
    extra_args: ["--never-on-default"]
  large:
    model_id: acme/Voice-7B
    extra_args: ["--max-num-seqs", "4"]
    extra_env:
      LARGE: "yes"
hardware_overrides:
  nvidia:
    extra_args: ["--enforce-eager"]
omni:
  port: 8091
  tasks:
    - id: t2s
      label: Speech
    - id: clone
      model_id: acme/Voice-Clone-1B
      extra_args: ["--stage-configs-path", "clone.yaml"]
"""


def write_tree(root: Path) -> Path:
    """Write the tree under ``root`` (which must not exist) and return it."""
    (root / "strategies").mkdir(parents=True)
    (root / "kv_store").mkdir()
    (root / "models" / "acme").mkdir(parents=True)
    (root / "taxonomy.yaml").write_text(TAXONOMY, "utf-8")
    for name, text in STRATEGIES.items():
        (root / "strategies" / f"{name}.yaml").write_text(text, "utf-8")
    (root / "kv_store" / "kv_mooncake_test.yaml").write_text(KV_STORE, "utf-8")
    (root / "models" / "acme" / "Tiny-1B.yaml").write_text(TINY, "utf-8")
    (root / "models" / "acme" / "Broken-1B.yaml").write_text(BROKEN, "utf-8")
    (root / "models" / "acme" / "Voice-1B.yaml").write_text(OMNI, "utf-8")
    return root


def commit_tree(root: Path) -> str:
    """Make ``root`` a git repository with its files in one commit; that commit's id."""
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "x"]):
        subprocess.run(["git", *cmd], cwd=root, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def taxonomy_with_profiles(ctx: Context, profiles: dict[str, Any]) -> LoadedDocument:
    """The taxonomy of ``ctx`` (the tiny tree's) with ``profiles`` added to its hardware
    profiles, loaded as a document of its own."""
    assert ctx.taxonomy is not None and ctx.taxonomy.ok
    data = copy.deepcopy(ctx.taxonomy.data)
    data["hardware_profiles"].update(copy.deepcopy(profiles))
    return load_yaml(yaml.safe_dump(data, sort_keys=False).encode(), "taxonomy.yaml")
