"""``ENV001``: a vendor environment variable spelled almost like a real one.

NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch and Ascend CANN read environment variables by exact
name, and an unknown name is silently ignored: ``NCCL_SOCKET_IFNAMES=eth0`` leaves NCCL on
its default interface, ``CUDA_VISIBLE_DEVICE=0,1`` exposes every GPU. The names these
libraries read are vendored in ``validator/data/vendor_env.json``, one list per source
(project, version, URL and how the names were collected). ``VLLM_*`` names are judged by
``FLAG016``/``GUIDE010`` against the vendored vLLM registries, not here.

Only near-typos of a listed name are reported, never a name merely missing from a list:
the lists cannot hold every variable a library will ever read, so an unknown but plausible
name (``HCCL_SOCKET_IFNAME``, ``PYTORCH_XPU_ALLOC_CONF``) passes. See
:func:`validator.rules.env.facts.near_miss`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.analysis.recipe_data import as_dict, as_list, get
from validator.context import Context
from validator.findings import Related, Severity
from validator.guide.commands import parsed_guide
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.env.facts import NearMiss, near_miss
from validator.sourcemap import join_pointer

_ENV_KEYS = frozenset({"env", "extra_env", "base_env"})


def env_maps(data: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(pointer, mapping)`` of every ``env``/``extra_env``/``base_env`` mapping in
    ``data`` (model, variants, features, modes, overrides, prefill/decode roles)."""
    if isinstance(data, dict):
        for key, value in data.items():
            child = join_pointer(pointer, str(key))
            if key in _ENV_KEYS and isinstance(value, dict):
                yield child, value
            else:
                yield from env_maps(value, child)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from env_maps(value, join_pointer(pointer, i))


def _message(miss: NearMiss, where: str) -> tuple[str, str]:
    src = miss.source
    return (f"{where}: `{miss.name}` is not an environment variable {src.project} reads "
            f"({miss.how}; the library ignores unknown names); did you mean "
            f"`{miss.nearest}`?", f"rename it to {miss.nearest} (list: {src.version}, "
            f"{src.url})")


@rule("ENV001", Severity.WARNING, "Vendor environment variable misspelled",
      reads=frozenset({Reads.STRATEGIES}))
def vendor_env_typo(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """An environment variable of a recipe (``model.base_env``, a variant's, hardware
    override's, feature's, mode's or strategy override's ``env``/``extra_env``, the
    ``env`` of a selected strategy file, or a guide ``export``/``VAR=x`` prefix/``docker
    -e``) is one typo away from a variable that NCCL, HIP/ROCr, CUDA, OpenMP, PyTorch or
    Ascend CANN reads (``NCCL_*``, ``HIP_*``/``HSA_*``/``ROCR_*``, ``CUDA_*``, ``OMP_*``,
    ``PYTORCH_*``, ``HCCL_*``/``ASCEND_*``). These libraries ignore names they do not
    read, so the setting silently has no effect. The message names the nearest real
    variable and the vendored list it comes from (``validator/data/vendor_env.json``,
    each list with project, version and URL). A name in no list that is not near one is
    never reported; ``VLLM_*`` names are ``FLAG016``'s.

    Failing::

        model:
          base_env:
            NCCL_SOCKET_IFNAMES: eth0      # NCCL reads NCCL_SOCKET_IFNAME
            CUDA_VISIBLE_DEVICE: "0,1"     # CUDA reads CUDA_VISIBLE_DEVICES

    Passing::

        model:
          base_env:
            NCCL_SOCKET_IFNAME: eth0
            CUDA_VISIBLE_DEVICES: "0,1"
            HCCL_SOCKET_IFNAME: eth0       # not in the CANN list, but near no listed name

    How to fix: rename the variable to the one the message names."""
    data = doc.data
    for pointer, env in env_maps(data):
        where = pointer[1:].replace("/", ".")
        for name in env:
            miss = near_miss(name) if isinstance(name, str) else None
            if miss is not None:
                msg, hint = _message(miss, where)
                yield Hit(join_pointer(pointer, name), msg, hint, on_key=True)
    for i, sname in enumerate(as_list(get(data, "compatible_strategies"))):
        sdoc = ctx.strategy_document(sname) if isinstance(sname, str) else None
        if sdoc is None or not sdoc.ok:
            continue
        for sptr, env in env_maps(sdoc.data):
            for name in as_dict(env):
                miss = near_miss(name) if isinstance(name, str) else None
                if miss is not None:
                    line = sdoc.source_map.key_position(join_pointer(sptr, name))[0]
                    msg, hint = _message(miss, f"{sdoc.path} {sptr[1:].replace('/', '.')}")
                    yield Hit(f"/compatible_strategies/{i}", msg, hint,
                              related=(Related(line, name, sdoc.path),))
    yield from _guide_typos(get(data, "guide"))


def _guide_typos(text: object) -> Iterator[Hit]:
    """Near-typos among the guide's ``export`` lines and ``VAR=x`` command prefixes, once
    per name and line."""
    if not isinstance(text, str) or not text:
        return
    parsed = parsed_guide(text)
    seen: set[tuple[str, int]] = set()
    entries = list(parsed.exports) + [e for cmd in parsed.commands for e in cmd.env]
    for name, _, line in sorted(entries, key=lambda e: e[2]):
        if (name, line) in seen:
            continue
        seen.add((name, line))
        miss = near_miss(name)
        if miss is not None:
            msg, hint = _message(miss, "guide")
            yield Hit("/guide", msg, hint, block_index=line)
