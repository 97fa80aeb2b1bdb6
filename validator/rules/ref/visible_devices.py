"""``REF034``: a rendered ``vllm serve`` that needs more GPUs on its node than it can see.

vLLM's GPU worker (``vllm/v1/worker/gpu_worker.py``, ``Worker.init_device``) places the
local DP rank *i* of a ``--data-parallel-size-local`` (by default the whole
``--data-parallel-size``) on the visible devices ``i × TP × PP`` to ``(i + 1) × TP × PP - 1``
and asserts that each index is below ``torch.cuda.device_count()`` ("DP adjusted local
rank … is out of bounds"): an engine core whose devices are not visible fails, and the
server does not start. The devices a command sees are its ``CUDA_VISIBLE_DEVICES`` (the
site pins one for each PD pool), else the hardware profile's ``gpu_count``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from validator.analysis.rendered_commands import affected
from validator.context import Context
from validator.findings import Related
from validator.load import LoadedDocument
from validator.render.cache import rendered_configurations
from validator.render.renderer import Process, Rendered, Token
from validator.rules.api import CONTEXT_FILES, Hit, Severity, rule
from validator.sourcemap import pointer_value

#: Brands whose serving processes run vLLM's GPU worker (CUDA and ROCm).
GPU_BRANDS = frozenset({"NVIDIA", "AMD"})
#: The size flags (with vLLM's short spellings) whose product one node must hold.
SIZES = {"--tensor-parallel-size": "tp", "-tp": "tp", "--pipeline-parallel-size": "pp",
         "-pp": "pp", "--data-parallel-size": "dp", "-dp": "dp",
         "--data-parallel-size-local": "dpl", "-dpl": "dpl"}
#: Flags after which the placement is not one node's: several nodes share the world
#: (``--nnodes``), Ray places the ranks, or each DP rank is its own server.
ELSEWHERE = frozenset({"--nnodes", "--headless", "--data-parallel-rank", "-dpr",
                       "--data-parallel-backend", "-dpb", "--distributed-executor-backend",
                       "--data-parallel-external-lb"})
#: Which written size a finding blames first (the multiplier most often added by hand).
BLAME_ORDER = ("dpl", "dp", "pp", "tp")


SIZE_HINT = ("a size in model.base_args, a variant's extra_args or a hardware override "
             "reaches every strategy: give it only where it fits (variants.<name>.tp, "
             "strategy_overrides.<strategy>), or leave the size to the site")
POOL_HINT = ("use tep pools where prefill and decode share one node, or mark pd_cluster "
             "unsupported in strategy_hardware for hardware where the model fits one node")


@dataclass(frozen=True)
class Placement:
    """What one process needs and sees on its node."""

    need: int
    sizes: dict[str, int]
    visible: int
    pinned: str | None
    tokens: dict[str, Token]


def placement(proc: Process, gpu_count: int) -> Placement | None:
    """The GPUs ``proc`` needs on its node and those it sees, or ``None`` where it is not a
    one-node ``vllm serve`` with whole-number sizes (or fits)."""
    sizes: dict[str, int] = {}
    tokens: dict[str, Token] = {}
    words = list(proc.tokens)
    for i, token in enumerate(words):
        if not isinstance(token.text, str):
            return None
        flag, eq, value = token.text.partition("=")
        if flag in ELSEWHERE:
            return None
        key = SIZES.get(flag)
        if key is None:
            continue
        raw = value if eq else (words[i + 1].text if i + 1 < len(words) else "")
        if not isinstance(raw, str) or not raw.isdigit() or int(raw) < 1:
            return None
        sizes[key], tokens[key] = int(raw), token  # vLLM keeps the last
    local = sizes.get("dpl", sizes.get("dp", 1))
    need = sizes.get("tp", 1) * sizes.get("pp", 1) * local
    pinned = proc.env.get("CUDA_VISIBLE_DEVICES")
    if pinned is not None:
        if not isinstance(pinned, str) or not pinned.strip():
            return None
        visible = len(pinned.split(","))
    else:
        visible = gpu_count
    if need <= visible:
        return None
    return Placement(need, sizes, visible, pinned if isinstance(pinned, str) else None,
                     tokens)


def _gpu_count(ctx: Context, hw_id: str) -> int | None:
    taxonomy = getattr(ctx.taxonomy, "data", None)
    profile = pointer_value(taxonomy, f"/hardware_profiles/{hw_id}") \
        if isinstance(taxonomy, dict) else None
    if not isinstance(profile, dict) or profile.get("brand") not in GPU_BRANDS:
        return None
    count = profile.get("gpu_count")
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 \
        else None


def _pool_parallelism(doc: LoadedDocument, ctx: Context, strategy: str, role: str
                      ) -> tuple[str, tuple[Related, ...]] | None:
    """Where a PD pool's ``dep`` comes from: the recipe's ``parallelism`` of the pool, its
    ``pool_modes``, else the strategy file's pool (reported with a see line to it)."""
    base = f"/strategy_overrides/{strategy}"
    for pointer in (f"{base}/{role}/parallelism", f"{base}/pool_modes"):
        if pointer_value(doc.data, pointer) is not None:
            return pointer, ()
    other = ctx.strategy_document(strategy)
    if other is None:
        return None
    line = other.source_map.position(f"/{role}/parallelism")[0]
    return "", (Related(line, f"the pool's parallelism is in {other.path}", other.path),)


Blame = tuple[str, tuple[Related, ...], str]
"""(pointer, see lines, hint) of a finding."""


def _blame(doc: LoadedDocument, ctx: Context, rendered: Rendered, proc: Process,
           where: Placement) -> Blame | None:
    """The recipe node that makes the command too big: a size the recipe wrote, its own
    ``CUDA_VISIBLE_DEVICES``, else the ``dep`` parallelism of the PD pool."""
    for key in BLAME_ORDER:
        token = where.tokens.get(key)
        if token is not None and token.document == doc.path and token.pointer:
            return token.pointer, (), SIZE_HINT
    source = proc.env_sources.get("CUDA_VISIBLE_DEVICES")
    if source is not None and source.document == doc.path and source.pointer:
        return source.pointer, (), SIZE_HINT
    if rendered.deploy_type == "pd_cluster" and proc.role in ("prefill", "decode") \
            and where.pinned is not None:
        found = _pool_parallelism(doc, ctx, rendered.config.strategy, proc.role)
        return None if found is None else (*found, POOL_HINT)
    return None


def _why(proc: Process, where: Placement, hint: str) -> str:
    sizes = where.sizes
    local = sizes.get("dpl", sizes.get("dp", 1))
    seen = (f"`CUDA_VISIBLE_DEVICES={where.pinned}` ({where.visible} devices)"
            if where.pinned is not None else f"the node's {where.visible} GPUs")
    role = "" if proc.role == "serve" else f"the {proc.role} "
    layout = ("on the site's one-node PD layout (half the node for each pool, the pool's DP "
              "ranks sized from the whole node), " if hint == POOL_HINT else "")
    return (f"{layout}{role}`vllm serve` needs {where.need} GPUs on its node (TP "
            f"{sizes.get('tp', 1)} × PP {sizes.get('pp', 1)} × {local} local DP ranks) but "
            f"sees {seen}: vLLM places local DP rank i on the devices from i × TP × PP and "
            "does not start when they are not visible (\"DP adjusted local rank … is out "
            "of bounds\")")


@rule("REF034", Severity.ERROR, "A rendered command needs more GPUs than it can see",
      reads=CONTEXT_FILES)
def more_gpus_than_visible(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A ``vllm serve`` the site renders for one node (NVIDIA or AMD) asks for TP × PP ×
    local DP ranks (``--data-parallel-size-local``, else ``--data-parallel-size``) GPUs,
    more than it can see: its ``CUDA_VISIBLE_DEVICES`` (the site pins half the node for each
    pool of its one-node PD layout), else the profile's ``gpu_count``. vLLM places local DP
    rank *i* on the visible devices from *i* × TP × PP and refuses to start when they are
    not there. Reported at the size the recipe wrote (a ``--data-parallel-size`` in
    ``model.base_args`` multiplies the TP the site derives from the ``gpu_count``), else at
    the ``dep`` parallelism of the PD pool: on its one-node layout the site pins 4 of 8
    GPUs for each pool but still sizes the pool's local DP ranks from the whole node (a
    site defect the recipe's ``dep`` pool triggers), with the configurations affected.
    Commands spread over nodes (``--nnodes``, Ray, one server per DP rank) are not judged.

    Failing::

        model:
          base_args: ["--data-parallel-size", "16"]   # 16 ranks on an 8-GPU node

    Passing::

        model:
          base_args: ["--data-parallel-size", "4"]    # TP 1 × 4 ranks: fits 4-GPU nodes

    How to fix: drop the size the site already derives (the DEP strategies set the DP
    size, ``variants.<name>.tp`` the TP size); for a ``dep`` PD pool, offer ``tep`` (or
    ``tp``) pools where prefill and decode share a node, or mark ``pd_cluster``
    ``unsupported`` in ``strategy_hardware`` for hardware where the model fits one node.
    """
    grouped: dict[Blame, tuple[str, list[Rendered]]] = {}
    counts: dict[str, int | None] = {}
    placed: dict[tuple[int, int], Placement | None] = {}  # processes shared by renderings
    for rendered in rendered_configurations(doc, ctx):
        if not rendered.ok:
            continue
        if rendered.hardware not in counts:
            counts[rendered.hardware] = _gpu_count(ctx, rendered.hardware)
        gpus = counts[rendered.hardware]
        if gpus is None:
            continue
        for proc in rendered.processes:
            key = (id(proc), gpus)
            if key not in placed:
                placed[key] = placement(proc, gpus)
            where = placed[key]
            blame = None if where is None else _blame(doc, ctx, rendered, proc, where)
            if where is None or blame is None:
                continue
            grouped.setdefault(blame, (_why(proc, where, blame[2]), []))[1].append(rendered)
    for (pointer, related, hint), (why, renderings) in grouped.items():
        labels = [r.config.label() for r in renderings]
        yield Hit(pointer, f"{why} ({affected(labels)})", hint, related=related)
