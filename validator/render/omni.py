"""``resolve_omni_command``: the ``vllm serve MODEL ... --omni`` command of a vLLM-Omni
recipe (``meta.tasks`` contains ``omni``), as the site's ``resolveOmniCommand`` renders it.

No strategy, no nodes: ``model.base_args``, the variant's ``extra_args`` (not for the
``default`` variant), the task's extra args, generation / brand hardware overrides of the
recipe and the variant, the variant's exact-hardware override, ``--port`` from
``omni.port``, and ``--omni`` last. The site's build writes no API file for these recipes.
"""

from __future__ import annotations

from typing import Any

from validator.render import gates, jsval
from validator.render.args import LEAD, Arg, command_of, final_args_traced, push_layer
from validator.render.documents import Documents, ptr
from validator.render.envs import Env
from validator.render.jsval import get, or_, truthy


def is_omni(recipe: Any) -> bool:
    """Whether the site renders the recipe with its omni command."""
    tasks = or_(get(get(recipe, "meta"), "tasks"), [])
    return isinstance(tasks, list) and jsval.in_list(tasks, "omni")


def resolve_omni_command(recipe: Any, variant_key: str, task: Any, profile: Any,
                         hw_id: str | None = None) -> dict[str, Any]:
    """``{command, env, modelId}`` as the site's ``resolveOmniCommand`` returns it; ``task``
    is ``{modelId?, extraArgs?}`` (or ``None``)."""
    traced = resolve_omni_traced(recipe, variant_key, task, profile, hw_id)
    return {"command": traced["command"], "env": traced["env"], "modelId": traced["modelId"]}


def resolve_omni_traced(recipe: Any, variant_key: str, task: Any, profile: Any,
                        hw_id: str | None = None, docs: Documents | None = None,
                        task_pointer: str = "") -> dict[str, Any]:
    """:func:`resolve_omni_command` plus ``argv`` (``Arg`` tokens: the binary's words, the
    model, the de-duplicated arguments), ``envSources`` and ``overrides`` (what the
    last-wins de-duplication drops, :class:`~validator.render.args.Override`)."""
    docs = docs or Documents()
    doc = docs.recipe
    variant, vptr = _omni_variant(recipe, variant_key)
    model_id: Any = or_(get(task, "modelId"), get(variant, "model_id"),
                        get(get(recipe, "model"), "model_id"), "unknown")
    model_ptr = (f"{task_pointer}/model_id" if truthy(get(task, "modelId")) else
                 f"{vptr}/model_id" if truthy(get(variant, "model_id")) else "/model/model_id")
    overrides_on = _hardware_overrides(recipe, variant, vptr, profile, hw_id)
    not_default = variant_key != "default"
    env = _omni_env(recipe, variant, vptr, not_default, overrides_on, doc)
    args = _omni_args(recipe, variant, vptr, not_default, overrides_on, task, task_pointer, doc)
    binary = or_(get(get(recipe, "omni"), "serve_binary"), "vllm serve")
    final, overrides = final_args_traced(args)
    binary_text = jsval.js_str(binary)
    words = [Arg(w, "omni.serve_binary" if binary_text != "vllm serve" else "vllm", doc if
                 binary_text != "vllm serve" else "", "/omni/serve_binary" if binary_text !=
                 "vllm serve" else "") for w in binary_text.split()]
    model = Arg(model_id, model_ptr.lstrip("/").replace("/", "."), doc, model_ptr)
    return {"command": command_of(final, model_id, binary_text), "env": env.ordered(),
            "modelId": model_id,
            "argv": [*(words if binary_text != "vllm serve" else LEAD), model, *final],
            "envSources": env.sources, "overrides": overrides}


def _omni_variant(recipe: Any, variant_key: str) -> tuple[Any, str]:
    """(variant, its pointer): ``variant_key``'s, else the default one, else ``{}``."""
    variants = get(recipe, "variants")
    variant, vptr = get(variants, variant_key), ptr("variants", variant_key)
    if not truthy(variant):
        variant, vptr = get(variants, "default"), "/variants/default"
        if not truthy(variant):
            variant, vptr = {}, ""
    return variant, vptr


def _hardware_overrides(recipe: Any, variant: Any, vptr: str, profile: Any,
                        hw_id: str | None) -> list[tuple[Any, str]]:
    """The hardware override blocks that apply, with their pointers, in the order they
    layer: the recipe's and the variant's for the profile's generation (else
    ``nvidia`` on NVIDIA hardware), then the variant's for exactly ``hw_id``."""
    gen = gates.profile_generation(profile)
    nvidia = get(profile, "brand") == "NVIDIA"

    def gen_block(mapping: Any, pointer: str) -> tuple[Any, str]:
        value = get(mapping, gen)
        if truthy(value):
            return value, ptr(*pointer.lstrip("/").split("/"), jsval.js_str(gen))
        return (get(mapping, "nvidia"), f"{pointer}/nvidia") if nvidia else (None, pointer)

    exact = get(get(variant, "hardware_overrides"), hw_id) if truthy(hw_id) else None
    return [gen_block(get(recipe, "hardware_overrides"), "/hardware_overrides"),
            gen_block(get(variant, "hardware_overrides"), f"{vptr}/hardware_overrides"),
            (exact, f"{vptr}/hardware_overrides/{jsval.js_str(hw_id)}")]


def _omni_env(recipe: Any, variant: Any, vptr: str, not_default: bool,
              overrides_on: list[tuple[Any, str]], doc: str) -> Env:
    """The environment: the model's base, the variant's extra, each override's extra."""
    env = Env()
    layers_env = [(or_(get(get(recipe, "model"), "base_env"), {}), "/model/base_env")]
    if not_default and truthy(get(variant, "extra_env")):
        layers_env.append((get(variant, "extra_env"), f"{vptr}/extra_env"))
    layers_env += [(get(block, "extra_env"), f"{pointer}/extra_env")
                   for block, pointer in overrides_on]
    for source, pointer in layers_env:
        if truthy(source):
            env.assign(source, pointer.lstrip("/").replace("/", "."), doc, pointer)
    return env


def _omni_args(recipe: Any, variant: Any, vptr: str, not_default: bool,
               overrides_on: list[tuple[Any, str]], task: Any, task_pointer: str,
               doc: str) -> list[Arg]:
    """The arguments before de-duplication: the model's base, the variant's and the task's
    extra, each override's extra, the port and ``--omni``."""
    args: list[Arg] = []

    def layer(value: Any, pointer: str) -> None:
        push_layer(args, value, pointer.lstrip("/").replace("/", "."), doc, pointer)

    layer(get(get(recipe, "model"), "base_args"), "/model/base_args")
    if not_default:
        layer(get(variant, "extra_args"), f"{vptr}/extra_args")
    extra = get(task, "extraArgs")
    if truthy(get(extra, "length")):
        layer(extra, f"{task_pointer}/extra_args")
    for block, pointer in overrides_on:
        layer(get(block, "extra_args"), f"{pointer}/extra_args")
    port = get(get(recipe, "omni"), "port")
    if truthy(port):
        args += [Arg("--port", "omni.port", doc, "/omni/port"),
                 Arg(jsval.js_str(port), "omni.port", doc, "/omni/port")]
    args.append(Arg("--omni", "omni", "", ""))
    return args
