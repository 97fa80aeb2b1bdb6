"""``printed_values`` reads each distinct argument list, environment and image once (most
configurations of a recipe print the same ones) and still names every configuration that
prints a value, in rendering order: the same as reading every rendering on its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.rules.ref.test_ref_shell_code import CHAT, _edit
from validator.analysis.shell_words import printed_raw
from validator.context import local_context
from validator.load import load_yaml
from validator.render.cache import context_strategies
from validator.render.renderer import Process, render_all
from validator.rules.ref.printed import Printed
from validator.rules.ref.printed_images import rendered_images as _image
from validator.rules.ref.shell_code import (
    _argv_values,
    _env_key,
    _env_values,
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


def test_the_texts_of_an_argument_list_are_read_once(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _edit(examples_tree, '    - "32768"\n', '    - "32768"\n    - "--x=$(id)"\n')
    ctx = local_context(examples_tree)
    doc = load_yaml((examples_tree / CHAT).read_bytes(), CHAT)
    renderings = [r for r in render_all(doc, ctx.taxonomy, context_strategies(ctx)) if r.ok]
    # each configuration's processes again, as new objects with the same tokens
    copies = [dataclasses.replace(r, processes=tuple(
        dataclasses.replace(p, tokens=tuple(t._replace(pointer=t.pointer + "/") for t in
                                            p.tokens)) for p in r.processes))
        for r in renderings]
    read: list[tuple[str, ...]] = []

    def counted(args: Sequence[str]) -> list[bool]:
        read.append(tuple(args))
        return printed_raw(args)

    monkeypatch.setattr("validator.rules.ref.shell_code.printed_raw", counted)
    found = printed_values(doc, ctx, renderings + copies)
    assert read and len(read) == len(set(read)), read
    monkeypatch.undo()
    assert found == _one_by_one(doc, ctx, renderings + copies)
    assert "--x=$(id)" in {p.text for p in found}
