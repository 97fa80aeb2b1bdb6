"""A small recipe of our own (not a corpus file) for tests that run the whole pipeline on
one recipe in a copy of the corpus tree: ``ARGS`` marks the base argument list's items."""

from __future__ import annotations

from pathlib import Path

PATH = "models/org/Tiny-1B.yaml"
RECIPE = """meta:
  title: "Tiny-1B"
  slug: "tiny-1b"
  provider: "org"
  description: "A small model of our own."
  date_added: 2025-10-15
  date_updated: "2025-10-16"
  difficulty: beginner
  tasks: [text]
  hardware:
    h100: verified
model:
  model_id: "org/Tiny-1B"
  min_vllm_version: "0.12.0"
  architecture: dense
  parameter_count: "1B"
  active_parameters: "1B"
  context_length: 40960
  base_args:
ARGS
  base_env: {}
variants:
  default:
    precision: bf16
    vram_minimum_gb: 3
compatible_strategies: [single_node_tp]
guide: |
  Serve it.
"""


def write_tiny(root: Path, args: str, recipe: str = RECIPE) -> str:
    """Write the recipe with ``args`` (YAML lines at four spaces, or a flow list after
    ``base_args:``) into the tree at ``root``; returns its text."""
    text = recipe.replace("  base_args:\nARGS", f"  base_args: {args.strip()}") \
        if not args.startswith("    ") else recipe.replace("ARGS", args.rstrip("\n"))
    target = root / PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return text
