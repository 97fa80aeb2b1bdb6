"""A rendering's argument lists are finalized and formatted by their values alone: lists
of equal string values from other documents, layers or pointers (the same ``vllm_args``
of two kv-store deployments, a GPU count read from two hardware profiles) share one
de-duplication plan and one command per recipe, and each keeps its own provenance."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from validator.render import synthesis
from validator.render.args import LEAD, Arg, dedupe_traced, final_args, format_command
from validator.render.jsval import JsTypeError
from validator.render.synthesis import _CommandWriter

MODEL = Arg("org/Model", "model.model_id", "models/org/Model.yaml", "/model/model_id")


def _args(store: str, tp: Any = "4") -> list[Arg]:
    doc, layer = f"kv_store/{store}.yaml", f"kv_store:{store}"
    values = ["--kv-transfer-config", '{"kv_role":"kv_both"}', "--tp", "2", "", "--tp", tp,
              "--enforce-eager"]
    return [Arg(v, layer, doc, f"/vllm/vllm_args/{i}") for i, v in enumerate(values)]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Calls of the formatting and the planning the writer makes (each still runs)."""
    counted: Counter[str] = Counter()
    for name in ("command_of", "final_plan"):
        real = getattr(synthesis, name, None)
        if real is None:  # (code without that step)
            continue

        def counting(*args: Any, _real: Any = real, _name: str = name) -> Any:
            counted[_name] += 1
            return _real(*args)

        monkeypatch.setattr(synthesis, name, counting)
    return counted


def test_lists_of_equal_values_share_one_plan_and_one_command(calls: Counter[str]) -> None:
    shared: dict[Any, Any] = {}
    one, two = _args("centralized"), _args("distributed")
    first, second = (_CommandWriter(MODEL, MODEL.value, shared) for _ in range(2))
    assert first.command(one) == second.command(two) == format_command(two, MODEL.value)
    assert second.argv(two) == [*LEAD, MODEL, *final_args(two)]  # its own pointers
    assert first.argv(one) == [*LEAD, MODEL, *final_args(one)]
    assert second.overrides == dedupe_traced([a for a in two if a.value])[1]
    assert second.overrides[0].dropped.document == "kv_store/distributed.yaml"
    assert calls == {"command_of": 1, "final_plan": 1}


def test_a_list_with_a_value_of_another_type_is_judged_with_its_own_provenance(
        calls: Counter[str]) -> None:
    """``4`` and ``"4"`` are not one key (``1``, ``1.0`` and ``True`` are equal in
    Python), and the site throws on a value that is no string: such a list is finalized
    and formatted each time, and the error names the node of that list."""
    shared: dict[Any, Any] = {}
    for store in ("centralized", "distributed"):
        numeric = _args(store, 4)
        writer = _CommandWriter(MODEL, MODEL.value, shared)
        assert writer.argv(numeric) == [*LEAD, MODEL, *final_args(numeric)]
        with pytest.raises(JsTypeError) as raised:
            writer.command(numeric)
        assert (raised.value.document, raised.value.pointer) == (
            f"kv_store/{store}.yaml", "/vllm/vllm_args/6")
    assert calls == {"command_of": 2}
