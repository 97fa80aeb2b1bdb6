"""Typed rendering API: :class:`Configuration` in, :class:`Rendered` out, never an exception.

``render(recipe, taxonomy, strategies, config)`` renders one configuration exactly as the
recipes site does; ``render_all`` renders every configuration the site's build renders for
every variant and compatible hardware, plus every feature switched on. Where the site
errors or produces something odd, the rendering matches it and carries
:class:`RenderProblem` values (with the YAML node to blame) for rules to report.

``strategies`` maps names as the site keys them (the ``name`` field, kv-store deployments
included): build it with :func:`site_strategies`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from validator.context import by_claimed_name
from validator.load import LoadedDocument
from validator.render import gates, jsval
from validator.render.carry import Table, carried_table
from validator.render.configuration import (
    Configuration,
    Process,
    Rendered,
    Token,
    document_data,
    new_rendered,
    variant_configurations,
)
from validator.render.counts import COUNT_REFUSED, CountRefused
from validator.render.docker import BASE_CUDA, synthesize_install
from validator.render.documents import Documents
from validator.render.jsval import get, or_
from validator.render.omni import is_omni, resolve_omni_traced
from validator.render.problems import (
    RenderProblem,
    configuration_problems,
    configuration_problems_once,
    output_problems,
)
from validator.render.site_renderings import arg_token, shared_site_rendering

__all__ = ["Configuration", "Process", "RenderProblem", "Rendered", "Token", "document_data",
           "render", "render_all", "render_each", "site_strategies"]


def site_strategies(context: Any) -> dict[str, LoadedDocument]:
    """Strategies and kv-store deployments of a :class:`~validator.context.Context`, keyed
    by their ``name`` field as the site's build keys them (a later file with the same name
    replaces an earlier one; files in byte order, strategies before kv stores)."""
    return {**by_claimed_name(context.strategies.values()),
            **by_claimed_name(context.kv_stores.values())}


def _documents(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
               strategies: Mapping[str, LoadedDocument]) -> Documents:
    return Documents(recipe.path, taxonomy.path if taxonomy else "taxonomy.yaml",
                     {k: v.path for k, v in strategies.items()})


def render(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
           strategies: Mapping[str, LoadedDocument], config: Configuration, *,
           memo: dict[Any, Any] | None = None, cuda: str = BASE_CUDA) -> Rendered:
    """Render ``config`` of ``recipe`` as the site does (never raises); ``cuda``: the CUDA
    build the site's record page picks a CUDA-keyed NVIDIA image's tag for (its
    ``dockerCudaVariant`` toggle; :data:`BASE_CUDA` is the site's JSON API's).

    ``memo``: a dict shared by calls for the same recipe, taxonomy and strategies (as
    :func:`render_all` does) to compute the per-variant/per-hardware facts once; its
    owner empties it with :func:`_release` after the last call. Without one, the call
    makes its own and releases it."""
    if memo is not None:
        return _render(recipe, taxonomy, strategies, config, memo)
    with shared_memo(cuda) as own:
        return _render(recipe, taxonomy, strategies, config, own)


@contextmanager
def shared_memo(cuda: str = BASE_CUDA) -> Iterator[dict[Any, Any]]:
    """The memo :func:`render` calls for one recipe share (``memo=``), for NVIDIA images
    of CUDA build ``cuda``; what they shared is released when the block ends
    (:func:`_release`), their renderings stay whole."""
    memo: dict[Any, Any] = {} if cuda == BASE_CUDA else {"cuda": cuda}
    try:
        yield memo
    finally:
        _release(memo)


def render_each(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
                strategies: Mapping[str, LoadedDocument], configs: list[Configuration], *,
                cuda: str = BASE_CUDA) -> list[Rendered]:
    """:func:`render` of each of ``configs`` (build ``cuda``) sharing one memo, as
    :func:`render_all` does: each the same as rendered alone."""
    with shared_memo(cuda) as memo:
        return [render(recipe, taxonomy, strategies, c, memo=memo) for c in configs]


def _render(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
            strategies: Mapping[str, LoadedDocument], config: Configuration,
            memo: dict[Any, Any]) -> Rendered:
    data = recipe.data if recipe.ok else None
    if data is None:
        problem = RenderProblem("unloadable", "error", "the recipe could not be loaded",
                                recipe.path, "")
        return Rendered(config, recipe.path, False, problems=(problem,))
    if "inputs" not in memo:  # the same for every configuration of one render_all
        memo["inputs"] = (document_data(taxonomy),
                          {k: document_data(v) for k, v in strategies.items()},
                          _documents(recipe, taxonomy, strategies))
    tax, strat, docs = memo["inputs"]
    omni = memo.get("omni")
    if omni is None:
        omni = memo["omni"] = is_omni(data)
    if omni:
        return _render_omni(recipe, data, tax, config, docs, memo)
    problems = list(configuration_problems_once(data, tax, strat, config, docs, memo))
    compatible, default_hw, picker_problem = _picker(recipe, data, tax, config, memo)
    if picker_problem is not None:
        problems.append(picker_problem)
    try:
        if "install" not in memo:
            memo["install"] = synthesize_install(data, memo.get("cuda", BASE_CUDA))
        install = memo["install"]
        site, overrides, processes, env_sources = shared_site_rendering(data, config, strat, tax,
                                                                  docs, memo)
    except CountRefused as exc:
        problems.append(RenderProblem(
            COUNT_REFUSED, "error", f"recipe-check does not render {config.label()}: {exc}",
            exc.document or recipe.path, exc.pointer))
        return Rendered(config, recipe.path, False, problems=tuple(problems))
    except jsval.JsTypeError as exc:
        problems.append(RenderProblem(
            "synthesis-error", "error",
            f"the site cannot render {config.label()}: {exc}; its build skips this "
            "configuration", exc.document or recipe.path, exc.pointer))
        return Rendered(config, recipe.path, False, problems=tuple(problems))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError,
            RecursionError) as exc:  # a gap in the port: reported, never a traceback
        problems.append(RenderProblem(
            "internal-error", "error",
            f"recipe-check cannot render {config.label()} ({type(exc).__name__}: {exc}); "
            "please report this", recipe.path, ""))
        return Rendered(config, recipe.path, False, problems=tuple(problems))
    first = processes[0] if processes else None
    problems += output_problems(site, processes, docs, config, env_sources,
                                memo.setdefault("faults", {}))
    return new_rendered(
        config, recipe.path, True, site.get("node_count"), site.get("deploy_type"),
        site.get("env") or {}, site.get("docker_image"),
        first.command if first else None, first.argv if first else (),
        first.docker_command if first else None,
        (first.docker_argv or ()) if first else (), first.tokens if first else (),
        processes, env_sources, install, compatible, default_hw, site, tuple(problems),
        overrides)


def omni_task(data: Any, task_id: str | None) -> tuple[Any, str]:
    """The task object ``{modelId, extraArgs}`` of ``omni.tasks`` entry ``task_id`` and its
    pointer (``(None, "")`` for no task or an unknown id)."""
    if task_id is None:
        return None, ""
    for index, entry in enumerate(jsval.spread(or_(get(get(data, "omni"), "tasks"), []),
                                               "omni.tasks", "/omni/tasks")):
        if isinstance(entry, dict) and entry.get("id") == task_id:
            return ({"modelId": entry.get("model_id"), "extraArgs": entry.get("extra_args")},
                    f"/omni/tasks/{index}")
    return None, ""


def _picker(recipe: LoadedDocument, data: Any, tax: Any, config: Configuration,
            memo: dict[Any, Any]) -> tuple[tuple[str, ...], str | None, RenderProblem | None]:
    """The picker's hardware list and landing hardware of ``config.variant``, or the
    problem that keeps the page from showing its picker (the command still renders)."""
    if ("hardware", config.variant) not in memo:
        profiles = or_(get(tax, "hardware_profiles"), {})
        variant = or_(get(get(data, "variants"), config.variant),
                      get(get(data, "variants"), "default"), {})
        try:
            memo["hardware", config.variant] = (
                tuple(gates.picker_hardware(profiles, variant, data)),
                gates.pick_default_hardware(profiles, variant, data), None)
        except (jsval.JsTypeError, OverflowError) as exc:  # the page cannot show its picker
            memo["hardware", config.variant] = ((), None, RenderProblem(
                "synthesis-error", "error",
                f"the site cannot list the hardware of variant {config.variant}: {exc}",
                getattr(exc, "document", None) or recipe.path,
                getattr(exc, "pointer", None) or "/meta/hardware"))
    picked: tuple[tuple[str, ...], str | None, RenderProblem | None] = memo[
        "hardware", config.variant]
    return picked


def _render_omni(recipe: LoadedDocument, data: Any, tax: Any, config: Configuration,
                 docs: Documents, memo: dict[Any, Any]) -> Rendered:
    profiles = or_(get(tax, "hardware_profiles"), {})
    problems = [p for p in configuration_problems(data, tax, {config.strategy: {}}, config,
                                                  docs) if p.code != "not-offered"]
    try:
        task, task_ptr = omni_task(data, config.omni_task)
        if config.omni_task is not None and task is None:
            problems.append(RenderProblem(
                "unknown-omni-task", "warning", f"omni task {config.omni_task!r} is not an "
                "entry of omni.tasks; rendered without a task", recipe.path, "/omni/tasks"))
        traced = resolve_omni_traced(data, config.variant, task, get(profiles, config.hardware)
                                     or {}, config.hardware, docs, task_ptr)
    except CountRefused as exc:
        problems.append(RenderProblem(
            COUNT_REFUSED, "error", f"recipe-check does not render {config.label()}: {exc}",
            exc.document or recipe.path, exc.pointer))
        return Rendered(config, recipe.path, False, problems=tuple(problems))
    except jsval.JsTypeError as exc:
        problems.append(RenderProblem(
            "synthesis-error", "error", f"the site cannot render {config.label()}: {exc}",
            exc.document or recipe.path, exc.pointer))
        return Rendered(config, recipe.path, False, problems=tuple(problems))
    compatible, default_hw, picker_problem = _picker(recipe, data, tax, config, memo)
    if picker_problem is not None:
        problems.append(picker_problem)
    tokens = tuple(arg_token(a) for a in traced["argv"])
    argv = tuple(a.value for a in traced["argv"])
    env_sources = {k: arg_token(a) for k, a in traced["envSources"].items()}
    proc = Process("serve", traced["command"], argv, None, None, traced["env"], tokens,
                   env_sources)
    problems += output_problems({"docker_image": ""}, (proc,), docs, config, env_sources)
    return Rendered(config, recipe.path, True, 1, "omni", traced["env"], None,
                    traced["command"], argv, None, (), tokens, (proc,), env_sources,
                    synthesize_install(data), compatible, default_hw, None, tuple(problems),
                    tuple(traced["overrides"]))


MAX_CONFIGURATIONS = 10_000
"""At most this many configurations of one recipe are rendered (corpus ``main``: at most
~740 per recipe); a recipe with more gets one :data:`CONFIGURATION_LIMIT` problem instead
of a run that grows with variants × hardware × strategies × feature modes."""
CONFIGURATION_LIMIT = "too-many-configurations"


def render_all(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
               strategies: Mapping[str, LoadedDocument], *, feature_sets: bool = True,
               carried: Table | None = None, docker_forms: bool = True,
               cuda: str = BASE_CUDA, command_texts: bool = True) -> list[Rendered]:
    """Every configuration the site's build renders for every variant on every picker
    hardware (recommended strategy and alternatives), and -- with ``feature_sets`` -- the
    same with every feature switched on, each modal feature in each of its modes; at most
    :data:`MAX_CONFIGURATIONS`, then a rendering holding the :data:`CONFIGURATION_LIMIT`
    problem.

    Not rendered: the site's KV-offload row (each taxonomy ``kv_offload`` option its gates
    allow beside a configuration). Measured on corpus ``main``: 21,379 more renderings
    took ``check models/`` from 46.5 s to 105.7 s and changed no finding but the "and N
    more" counts, because an option's arguments and environment are judged on the
    taxonomy itself (:mod:`validator.rules.flag.context_files`) and a recipe keeps only what
    its own release range adds.

    ``carried``: the site renderings of earlier calls for the same recipe bytes whose
    inputs other than the hardware profiles were the same (:mod:`validator.render.carry`);
    they are reused where their hardware reads hold, and this call's are added (all of
    one ``docker_forms`` and ``command_texts`` choice).

    ``docker_forms=False``: the renderings hold no ``docker run`` command or argv (see
    :func:`~validator.render.site.site_rendering_traced`); everything else is the same.
    ``command_texts=False`` (with ``docker_forms=False``): nor any ``vllm serve`` command
    text (``None`` in the renderings, their processes and their site JSON: formatting
    them was 4-5 % of ``render_all``); the argvs and tokens are the same.
    ``cuda``: the CUDA build of the NVIDIA images (as :func:`render`'s).

    The cyclic garbage collector is paused meanwhile (:func:`collector_paused`)."""
    with collector_paused():
        return _render_all(recipe, taxonomy, strategies, feature_sets, carried,
                           {"docker-forms": docker_forms, "command-texts": command_texts}, cuda)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The block runs with Python's cyclic garbage collector off (unless it was off
    already), then it is on again. A ``render_all`` allocates some hundred thousand
    objects that live until its end (the memo, the composers, the renderings it returns):
    with the collector on, each of its young-generation passes walked them again, 9-12 %
    of the CPU ``render_all`` took over the corpus. Reference counting still frees what the
    block drops; the cycles it leaves wait for the collector's next pass after it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _render_all(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
                strategies: Mapping[str, LoadedDocument], feature_sets: bool,
                carried: Table | None, forms: dict[str, bool], cuda: str) -> list[Rendered]:
    """:func:`render_all` (the collector paused); ``forms``: its ``docker_forms`` and
    ``command_texts`` as the memo keeps them."""
    if not recipe.ok:
        return [render(recipe, taxonomy, strategies, Configuration("h200"))]
    data = recipe.data
    tax = document_data(taxonomy)
    strat = {k: document_data(v) for k, v in strategies.items()}
    profiles = or_(get(tax, "hardware_profiles"), {})
    seen: set[Configuration] = set()
    out: list[Rendered] = []
    memo: dict[Any, Any] = dict(forms)
    if cuda != BASE_CUDA:
        memo["cuda"] = cuda
    if carried is not None:
        memo["by-reads"] = carried_table(carried)
    if is_omni(data):
        return _render_all_omni(recipe, taxonomy, strategies, data, profiles)
    try:
        for variant_key in jsval.keys(or_(get(data, "variants"), {})):
            try:
                configs = variant_configurations(data, variant_key, profiles, strat, tax,
                                                  feature_sets, memo)
            except jsval.JsTypeError as exc:
                out.append(_unplanned_variant(recipe, variant_key, exc))
                continue
            for config in configs:
                count = len(seen)
                seen.add(config)
                if len(seen) > count:  # a configuration not seen before (hashed once)
                    if len(seen) > MAX_CONFIGURATIONS:  # not counted further: bounded time
                        out.append(_over_the_limit(recipe))
                        return out
                    out.append(render(recipe, taxonomy, strategies, config, memo=memo))
    finally:
        _release(memo)
    return out


def _unplanned_variant(recipe: LoadedDocument, variant_key: str,
                       exc: jsval.JsTypeError) -> Rendered:
    """The rendering standing for a variant the site's build cannot plan (its error)."""
    return Rendered(Configuration("", variant_key), recipe.path, False,
                    problems=(RenderProblem(
                        "synthesis-error", "error",
                        f"the site cannot plan variant {variant_key}: {exc}",
                        exc.document or recipe.path,
                        exc.pointer or f"/variants/{variant_key}"),))


def _release(memo: dict[Any, Any]) -> None:
    """Drop what the renderings of one recipe shared. The composers kept in
    :attr:`Documents.cache` point back at those :class:`Documents` (a reference cycle):
    emptied here, their argument layers are freed when the last rendering goes, not at the
    next full garbage collection, which may come several recipes later."""
    inputs = memo.get("inputs")
    if inputs is not None:
        inputs[2].cache.clear()
    memo.clear()


def _over_the_limit(recipe: LoadedDocument) -> Rendered:
    return Rendered(Configuration(""), recipe.path, False, problems=(RenderProblem(
        CONFIGURATION_LIMIT, "error",
        f"the site renders more than {MAX_CONFIGURATIONS} configurations of this recipe "
        "(variants × hardware × strategies × feature modes): recipe-check renders and "
        f"judges the first {MAX_CONFIGURATIONS} only",
        recipe.path, ""),))


def _render_all_omni(recipe: LoadedDocument, taxonomy: LoadedDocument | None,
                     strategies: Mapping[str, LoadedDocument], data: Any,
                     profiles: Any) -> list[Rendered]:
    """Omni recipes: every variant on every picker hardware, with no task and with each
    task that names its own model or arguments."""
    tasks: list[str | None] = [None]
    listed = get(get(data, "omni"), "tasks")
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and (
                entry.get("model_id") or entry.get("extra_args")) and entry["id"] not in tasks:
            tasks.append(entry["id"])  # entries sharing an id render as the first of them
    out: list[Rendered] = []
    with shared_memo() as memo:
        for variant_key in jsval.keys(or_(get(data, "variants"), {})):
            variant = get(get(data, "variants"), variant_key)
            try:
                hw_ids = list(dict.fromkeys([
                    gates.pick_default_hardware(profiles, variant, data),
                    *gates.picker_hardware(profiles, variant, data)]))
            except jsval.JsTypeError:
                hw_ids = []
            for hw in hw_ids:
                for task in tasks:
                    config = Configuration(hw, variant_key, "omni", omni_task=task)
                    out.append(render(recipe, taxonomy, strategies, config, memo=memo))
    return out
