"""``printed_values`` reads each distinct argument list, environment and image once (most
configurations of a recipe print the same ones) and still names every configuration that
prints a value, in rendering order: the same as reading every rendering on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.ref.test_ref_shell_code import CHAT, _edit
from validator.context import local_context
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.renderer import Process, render_all
from validator.rules.ref.shell_code import (
    Printed,
    _argv_values,
    _env_key,
    _env_values,
    _image,
    _omni_binary,
    printed_values,
)


def _one_by_one(doc, ctx, renderings) -> dict[Printed, list[str]]:  # type: ignore[no-untyped-def]
    from validator.analysis.arg_layers import collect_layers

    flag_items = frozenset((doc.path, f"{layer.pointer}/{i}")
                           for layer in collect_layers(doc.data)
                           for i, item in enumerate(layer.tokens) if item.startswith("-"))
    out: dict[Printed, list[str]] = {}
    for rendered in renderings:
        if not rendered.ok:
            continue
        found = list(_image(doc, ctx, rendered))
        for proc in rendered.processes:
            found += [*_omni_binary(doc, proc), *_argv_values(proc, flag_items),
                      *_env_values(proc)]
        for printed in found:
            if printed.judged():
                out.setdefault(printed, []).append(rendered.config.label())
    return out


def test_shared_lists_are_read_once_and_every_configuration_that_prints_a_value_is_named(
        examples_tree: Path) -> None:
    _edit(examples_tree, "  base_env: {}",
          '  base_env:\n    HOOK: "$(touch pwned)"\n    FLAG: true\n    COUNT: 1')
    ctx = local_context(examples_tree)
    doc = load_yaml((examples_tree / CHAT).read_bytes(), CHAT)
    renderings = render_all(doc, ctx.taxonomy, context_strategies(ctx))
    assert len(renderings) >= 3
    found = printed_values(doc, ctx, renderings)
    assert found == _one_by_one(doc, ctx, renderings)
    hook = [labels for printed, labels in found.items() if printed.text == "$(touch pwned)"]
    assert hook and set(hook[0]) == {r.config.label() for r in renderings if r.ok}


def test_a_processes_tuple_of_several_configurations_is_read_once(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _edit(examples_tree, "  base_env: {}", '  base_env:\n    HOOK: "$(touch pwned)"')
    ctx = local_context(examples_tree)
    doc = load_yaml((examples_tree / CHAT).read_bytes(), CHAT)
    renderings = [r for r in render_all(doc, ctx.taxonomy, context_strategies(ctx)) if r.ok]
    twice = renderings + renderings  # each configuration's processes met again
    keyed: list[object] = []

    def counted(proc: Process) -> object:
        keyed.append(proc)
        return _env_key(proc)

    monkeypatch.setattr("validator.rules.ref.shell_code._env_key", counted)
    found = printed_values(doc, ctx, twice)
    assert len(keyed) == sum(len(p) for p in {id(r.processes): r.processes
                                               for r in renderings}.values())
    assert found == _one_by_one(doc, ctx, twice)
