"""Parts of a rendering :func:`render_all` makes once and shares, so that each rendering
costs less: the ``docker run`` form of each distinct command (with its environment, image,
GPU flags and port), the problems of each distinct configuration, the renderings and
processes built with their fields set at once, the composer keyed by its values. Every
rendering stays what rendering its configuration alone gives (``test_render_sharing``)."""

from __future__ import annotations

import dataclasses
import gc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from validator.context import Context
from validator.load import load_yaml
from validator.render import docker, site
from validator.render.configuration import (
    Configuration,
    Process,
    Rendered,
    document_data,
    new_process,
    new_rendered,
)
from validator.render.documents import Documents
from validator.render.problems import configuration_problems, configuration_problems_once
from validator.render.renderer import render, render_all, site_strategies
from validator.render.synthesis import _composer_key

PATH = "models/acme/Tiny-1B.yaml"


def test_render_all_wraps_each_distinct_command_in_docker_run_once(
        tree: Path, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Renderings on other hardware (of one brand) whose command, environment and image
    are the same share one ``docker run`` text: made once per distinct text, each the
    same as the configuration rendered alone."""
    doc = load_yaml((tree / PATH).read_bytes(), PATH)
    strategies = site_strategies(ctx)
    calls: Counter[str] = Counter()
    real = docker.build_docker_run

    def counting(command: str, *args: Any) -> str:
        made = real(command, *args)
        calls[made] += 1
        return made

    monkeypatch.setattr(site, "build_docker_run", counting)
    batch = render_all(doc, ctx.taxonomy, strategies)
    texts = {p.docker_command for r in batch for p in r.processes}
    assert len(batch) >= 10 and len(texts) >= 2
    assert set(calls) == texts and set(calls.values()) == {1}, calls
    monkeypatch.undo()
    for rendered in batch:
        alone = render(doc, ctx.taxonomy, strategies, rendered.config)
        assert [p.docker_command for p in alone.processes] == \
            [p.docker_command for p in rendered.processes]


def test_the_problems_of_a_configuration_are_joined_once(tree: Path, ctx: Context) -> None:
    """A configuration met again (another feature set of it) gets the problems found the
    first time, the same tuple, without joining its parts again; they are those it gets
    alone."""
    data = load_yaml((tree / PATH).read_bytes(), PATH).data
    tax = document_data(ctx.taxonomy)
    strat = {k: document_data(v) for k, v in site_strategies(ctx).items()}
    docs = Documents(PATH, "taxonomy.yaml", {})
    memo: dict[Any, Any] = {}
    config = Configuration("nope", "nope", "nope", ("nope",), kv_offload="nope")
    first = configuration_problems_once(data, tax, strat, config, docs, memo)
    again = configuration_problems_once(data, tax, strat, config, docs, memo)
    assert again is first
    assert first == tuple(configuration_problems(data, tax, strat, config, docs))
    assert len({p.code for p in first}) >= 3


def test_a_rendering_made_whole_is_the_one_its_constructor_makes() -> None:
    """:func:`new_rendered` / :func:`new_process` (a value per field, in order) make the
    object ``Rendered(...)`` / ``Process(...)`` make: equal, same fields in the same order,
    still frozen; a value missing or too many is refused."""
    values = [f"v{i}" for i in range(len(dataclasses.fields(Rendered)))]
    made, init = new_rendered(*values), Rendered(*values)  # type: ignore[arg-type]
    assert made == init and hash(made.config) == hash(init.config)
    assert list(vars(made).items()) == list(vars(init).items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.ok = False  # type: ignore[misc]
    parts = [f"p{i}" for i in range(len(dataclasses.fields(Process)))]
    assert list(vars(new_process(*parts)).items()) == list(
        vars(Process(*parts)).items())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        new_process(*parts[:-1])
    with pytest.raises(TypeError):
        new_rendered(*values, "one more")


@pytest.mark.parametrize("node_count", [1, 1.0, True, "1"])
def test_composer_keys_tell_values_of_other_types_apart(node_count: Any) -> None:
    """The composer memo's key is the values themselves for string ids and ``int`` counts
    (no ``repr``), and a ``repr`` otherwise: ``1``, ``1.0``, ``True`` and ``"1"``, which
    render differently, never share a composer; advanced arguments always count."""
    keys = {repr(v): _composer_key("v", "s", "hx8", (), v, None, None, None)
            for v in (1, 1.0, True, "1")}
    assert len(set(keys.values())) == 4
    assert keys["1"] == ("composer", "v", "s", "hx8", 1, None, None)
    mine = _composer_key("v", "s", "hx8", (), node_count, None, None, None)
    assert mine == keys[repr(node_count)]
    assert _composer_key("v", "s", "hx8", ["--x"], 1, None, None, None) != keys["1"]
    assert _composer_key("v", "s", "hx8", [], 1, {"prefill": 1}, None, None) != keys["1"]


def test_render_all_renders_with_the_cyclic_collector_paused(
        tree: Path, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector is off while ``render_all`` renders (its young passes walked every
    object the rendering keeps until its end), on again after it, and left off where
    the caller had turned it off; the renderings are the same either way."""
    doc = load_yaml((tree / PATH).read_bytes(), PATH)
    strategies = site_strategies(ctx)
    seen: list[bool] = []
    real = docker.build_docker_run

    def watching(*args: Any) -> str:
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(site, "build_docker_run", watching)
    assert gc.isenabled()
    first = render_all(doc, ctx.taxonomy, strategies)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        again = render_all(doc, ctx.taxonomy, strategies)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert again == first
