"""The text ``recipe-check render`` prints: the commands of one rendering as a user pastes
them, section titles and notes as shell comments."""

from __future__ import annotations

from validator.analysis.shell_hazards import comment_line
from validator.render.renderer import Rendered
from validator.render_blocks import block_text, blocks


def text_block(r: Rendered, reasons: list[str] | None = None,
               feature_labels: list[str] | None = None) -> str:
    """The commands of one rendering, as a user pastes them (section titles are shell
    comments); ``reasons`` why the site would not offer it become ``# note:`` lines under
    the header, ``feature_labels`` name the features. A comment line holding recipe text
    keeps it on that line (:func:`comment_line`); a ``vllm serve`` / ``docker run`` /
    ``export`` line holding shell code has a ``# warning:`` line per hazard above it."""
    c = r.config
    features = ", ".join(feature_labels if feature_labels is not None else c.features) \
        or "none"
    if r.deploy_type == "omni":
        head = (f"{r.recipe_path} · {c.hardware} · {c.variant} · vLLM-Omni"
                f"{f' · task {c.omni_task}' if c.omni_task else ''}")
    else:
        head = (f"{r.recipe_path} · {c.hardware} · {c.variant} · {c.key}"
                f"{f' + KV offload {c.kv_option}' if c.kv_option else ''}"
                f"{f' (serving {c.strategy})' if c.kv_offload else ''} · "
                f"{_nodes(r.node_count)}"
                f"{''.join(f' · {role} ×{n}' for role, n in c.pd_nodes or ())}"
                f"{f' · {c.kv_instances} kv instances' if c.kv_instances else ''}"
                f" · features: {features}")
    lines = [comment_line(head)]
    lines += [comment_line(f"note: {reason}") for reason in reasons or ()]
    for block in blocks(r):
        lines += block_text(block)
    return "\n".join(lines)


def _nodes(count: object) -> str:
    """``"2 nodes"``; ``"no node count"`` when the site's rendering gives none (a
    configuration it renders no command for)."""
    if not isinstance(count, int) or isinstance(count, bool):
        return "no node count"
    return f"{count} node{'s' if count != 1 else ''}"
