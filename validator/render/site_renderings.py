"""The site renderings :func:`~validator.render.renderer.render_all` shares between the
configurations of one recipe: a configuration's rendering is made once per distinct set
of what it read -- of its hardware (:mod:`validator.render.hardware_reads`: reused on
other hardware where each read gives the same value, with the taxonomy pointers that
name the hardware restamped) and of its mode selection (reused from the configuration
without one where the rendering resolved the selected modes anyway) -- and its processes
and argument tokens are made from the traced result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from validator.render import jsval
from validator.render.args import Arg, Override
from validator.render.configuration import Configuration, Process, Token, new_process
from validator.render.docker import BASE_CUDA
from validator.render.documents import Documents, ptr
from validator.render.hardware_reads import HardwareReads, traced_call
from validator.render.jsval import get
from validator.render.recipe_reads import read_fingerprint
from validator.render.site import site_rendering_traced
from validator.render.synthesis import ENV_SOURCES, MODE_READS, OVERRIDES

Found = tuple[dict[str, Any], tuple[Override, ...], tuple[Process, ...], dict[str, Token]]
"""A site rendering: its JSON, overrides, processes and env sources (kept in the
renderer's memo with the modes it resolved)."""


_NEW_TUPLE = tuple.__new__


def arg_token(arg: Arg) -> Token:
    """The :class:`Token` of an argument (its value as the site prints it)."""
    value, layer, document, pointer = arg
    return _NEW_TUPLE(Token, (value if type(value) is str else jsval.js_str(value), layer,
                              pointer, document))


def shared_site_rendering(data: Any, config: Configuration, strat: Any, tax: Any,
                          docs: Documents, memo: dict[Any, Any]) -> Found:
    """The site's JSON of ``config``, its overrides, processes and env sources: made once
    per distinct set of reads. A rendering of the same configuration on another hardware
    is reused (with this hardware's id) when every read it made of its hardware
    (:class:`HardwareReads`) gives the same value on this one; a configuration with a
    mode selection reuses the rendering of the same configuration without one when that
    rendering resolved each selected feature to the selected mode (or never read it): the
    selection is read only there (:attr:`~validator.render.layers.Composer.mode_reads`).

    The table ``memo["by-reads"]`` may hold the renderings of other texts of the recipe
    (:mod:`validator.render.carry`), kept with what they read of ``variants`` and
    ``strategy_overrides`` (:func:`read_fingerprint`).

    Raises:
        jsval.JsTypeError: where the site's synthesis throws."""
    reads = memo.get(("reads", config.hardware))
    if reads is None:
        reads = memo["reads", config.hardware] = HardwareReads(
            config.hardware, get(tax, "hardware_profiles"))
    by_reads = memo.setdefault("by-reads", {})
    read = read_fingerprint(data, config.variant, config.strategy, memo)
    made = by_reads.setdefault((_sharing_key(config), read), [])
    found = _reused(made, reads, config, docs, None)
    if found is None and config.feature_modes:
        without = by_reads.get((_sharing_key(config, ()), read), ())
        found = _reused(without, reads, config, docs, dict(config.feature_modes))
    if found is not None:
        return found
    (site, traced), trace = traced_call(reads.id, lambda: site_rendering_traced(
        data, config.variant, config.strategy, reads.id, config.nodes, list(config.features),
        strat, tax, dict(config.pd_nodes) if config.pd_nodes else None,
        config.site_kv_offload, docs, dict(config.feature_modes), list(config.advanced_args),
        config.kv_instances, memo.get("docker-forms", True), memo.get("cuda", BASE_CUDA),
        memo.get("command-texts", True)))
    env_sources = {k: arg_token(a) for k, a in traced.get(ENV_SOURCES, {}).items()}
    processes = processes_of(site, traced, memo.setdefault("tokens", {}), env_sources)
    result = site, tuple(traced.get(OVERRIDES, ())), processes, env_sources
    made.append((reads, trace if trace is not None else len(reads.log),
                 (*result, traced.get(MODE_READS, ()))))
    return result


def _reused(made: Any, reads: HardwareReads, config: Configuration, docs: Documents,
            modes: dict[Any, Any] | None) -> Found | None:
    """A rendering of ``made`` whose hardware reads hold on ``reads``' hardware (and, with
    ``modes``, which resolved every feature it read a mode of to the mode ``modes``
    selects, or ``modes`` selects none), for ``config``; else ``None``."""
    for owner, trace, kept in made:
        if modes is not None and not _selects_resolved(modes, kept[4]):
            continue
        if owner is reads or owner.holds_for(reads, trace):
            # (a rendering carried from another revision for the same hardware keeps
            # its pointers: nothing to restamp)
            if owner.hw_id != reads.hw_id and owner.stamped(trace):
                return _restamped(kept[:4], owner.hw_id, reads.hw_id, config.hardware, docs)
            site, overrides, processes, env_sources = kept[:4]
            return {**site, "hardware": config.hardware}, overrides, processes, env_sources
    return None


def _selects_resolved(modes: dict[Any, Any], resolved: tuple[tuple[Any, Any], ...]) -> bool:
    """Whether the selection ``modes`` reads, for each feature of ``resolved``, no mode
    or the mode the rendering resolved without a selection: the site then resolves the
    same mode (a selection is taken only where it is allowed, and the resolved mode is)."""
    for name, key in resolved:
        selected = get(modes, name)
        if selected is not None and not (type(selected) is str and type(key) is str
                                         and selected == key):
            return False
    return True


_BUT_HARDWARE = tuple(f.name for f in fields(Configuration) if f.name != "hardware")
_SAME = object()


def _sharing_key(config: Configuration, modes: Any = _SAME) -> Any:
    """Everything of ``config`` but its hardware (with ``modes`` for its
    ``feature_modes`` when given): the renderings of one key are shared where their
    hardware reads hold. Equal only for equal values of equal types (``1``, ``1.0`` and
    ``True`` render differently): the tuple of the values where each is a string, an
    ``int`` or ``None`` (or a tuple of strings), else their ``repr``."""
    c = config
    if modes is _SAME:
        modes = c.feature_modes
    if type(c.variant) is str and type(c.strategy) is str and type(c.nodes) is int and \
            c.pd_nodes is None and c.kv_instances is None and c.omni_task is None and \
            c.kv_option is None and (c.kv_offload is None or type(c.kv_offload) is str) and \
            not c.advanced_args and _strings(c.features) and type(modes) is tuple \
            and all(_strings(pair) for pair in modes):
        return (c.variant, c.strategy, c.features, c.nodes, modes, c.kv_offload)
    return repr(tuple(modes if name == "feature_modes" else getattr(config, name)
                      for name in _BUT_HARDWARE))


def _strings(values: Any) -> bool:
    """Whether ``values`` is a tuple of strings."""
    return type(values) is tuple and all(type(v) is str for v in values)


def _restamped(found: Found, old: str, new: str, hardware: str, docs: Documents) -> Found:
    """A rendering made for hardware ``old`` with the taxonomy pointers it made of its
    profile (:func:`~validator.render.hardware_reads.profile_pointer`) made for ``new``."""
    site, overrides, processes, env_sources = found
    before, after = ptr("hardware_profiles", old) + "/", ptr("hardware_profiles", new) + "/"
    size = len(before)

    def token(t: Token) -> Token:
        if t.document == docs.taxonomy and t.pointer.startswith(before):
            return t._replace(pointer=after + t.pointer[size:])
        return t

    def arg(a: Arg | None) -> Any:
        if a is not None and a.document == docs.taxonomy and a.pointer.startswith(before):
            return a._replace(pointer=after + a.pointer[size:])
        return a

    def sources(mapping: Mapping[str, Token]) -> dict[str, Token]:
        return {k: token(t) for k, t in mapping.items()}

    shared = sources(env_sources)
    moved = tuple(replace(p, tokens=tuple(map(token, p.tokens)),
                          env_sources=shared if p.env_sources is env_sources
                          else sources(p.env_sources)) for p in processes)
    return ({**site, "hardware": hardware}, tuple(Override(*map(arg, o)) for o in overrides),
            moved, shared)


def processes_of(site: dict[str, Any], traced: dict[str, Any],
                 known: dict[int, tuple[Arg, Token]],
                 shared_sources: dict[str, Token]) -> tuple[Process, ...]:
    """The processes of a rendering; ``known`` holds the token of every argument already
    converted (by identity: most arguments are the same objects in many renderings of a
    recipe; the argument is kept with its token, so its id cannot be reused meanwhile);
    ``shared_sources``: the rendering's env sources (the tokens of ``traced``'s
    :data:`~validator.render.synthesis.ENV_SOURCES`), the object every process but a
    P/D role (which has its own) holds, so a restamp (:func:`_restamped`) makes them once."""
    find = known.get

    def tokens_of(args: list[Arg]) -> tuple[Token, ...]:
        out: list[Token] = []
        append = out.append
        for arg in args:  # (inlined: one call less per argument of every rendering)
            hit = find(id(arg))
            if hit is None or hit[0] is not arg:
                hit = known[id(arg)] = (arg, arg_token(arg))
            append(hit[1])
        return tuple(out)

    def proc(role: str, command: Any, args: Any, dcmd: Any, dargv: Any, env: Any,
             sources: dict[str, Token] | None = None) -> Process:
        listed = isinstance(args, list)
        tokens = tokens_of(args) if listed else ()
        argv = tuple([a.value for a in args]) if listed else ()
        return new_process(role, command, argv, dcmd, tuple(dargv) if dargv else None,
                           env or {}, tokens, shared_sources if sources is None else sources)

    deploy = site.get("deploy_type")
    env = site.get("env") or {}
    if deploy == "multi_node" and "head_command" in site:
        out = [proc("head", site["head_command"], traced["headArgv"],
                    site["head_docker_command"], site["head_docker_argv"], env)]
        for i, args in enumerate(traced["workerArgvs"]):
            out.append(proc(f"worker {i + 1}", site["worker_commands"][i], args,
                            site["worker_docker_commands"][i], site["worker_docker_argvs"][i],
                            env))
        return tuple(out)
    if deploy == "pd_cluster":
        return tuple(proc(r, site[r]["command"], traced[r]["argv"], site[r]["docker_command"],
                          site[r]["docker_argv"], site[r]["env"],
                          {k: arg_token(a) for k, a in traced[r].get(ENV_SOURCES, {}).items()})
                     for r in ("prefill", "decode"))
    if deploy == "kv_store_lb" and "vllm" in traced:
        vllm = traced["vllm"]
        out = [proc("vllm", site["vllm_command"], vllm["argv"], site["vllm_docker_command"],
                    site["vllm_docker_argv"], env)]
        for i, args in enumerate(vllm.get("workerArgvs") or []):
            out.append(proc(f"vllm worker {i + 1}", site["vllm_worker_commands"][i], args,
                            site["vllm_worker_docker_commands"][i],
                            site["vllm_worker_docker_argvs"][i], env))
        return tuple(out)
    if deploy == "kv_store_lb":  # a kv-store deployment as the serving strategy: the
        # site's JSON has no vllm_* commands; the command resolveCommand made is kept
        return (proc("serve", traced.get("command"), traced.get("argv"), None, None, env),)
    return (proc("serve", site["command"], traced["argv"], site["docker_command"],
                 site["docker_argv"], env),)
