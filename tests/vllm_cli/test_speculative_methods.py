"""The vendored speculative methods per vLLM release
(``snapshots/vllm-speculative-config.json``): derived from the same artifacts as the CLI
snapshots, and what the derivation reads of a release's source."""

from __future__ import annotations

import textwrap

from scripts.derive_speculative_config import speculative_config
from tests.derived_snapshots import described_artifacts, registers, snapshot_artifacts
from validator.vllm_cli.speculative_methods import (
    PATH,
    accepted_methods,
    lookup_order_methods,
    methods_without_model,
    strict_keys,
)


def test_every_release_with_the_option_is_described_from_its_snapshot_artifact() -> None:
    assert described_artifacts(PATH) == snapshot_artifacts(registers("--speculative-config"))


def test_methods_follow_the_releases_sources() -> None:
    assert accepted_methods("0.9.0") is None  # a standard-library dataclass: any string
    assert "deepseek_mtp" in (accepted_methods("0.9.1") or ())
    assert "qwen3_next_mtp" not in (accepted_methods("0.10.1.1") or ())
    assert "qwen3_next_mtp" in (accepted_methods("0.10.2") or ())
    assert "medusa" in (accepted_methods("0.32.0") or ())
    assert "medusa" not in (accepted_methods("0.33.0") or ())
    assert accepted_methods("0.0.1") is None
    assert strict_keys("0.12.0") is None  # pydantic's default: unknown keys ignored
    assert "moe_backend" not in (strict_keys("0.18.1") or {"moe_backend"})
    assert "moe_backend" in (strict_keys("0.19.0") or ())
    assert "num_speculative_tokens" in (strict_keys("0.9.0") or ())


STDLIB = """
from dataclasses import dataclass
from typing import Literal, Optional
SpeculativeMethod = Literal["ngram", "eagle"]
@config
@dataclass
class SpeculativeConfig:
    method: Optional[SpeculativeMethod] = None
"""

PYDANTIC = """
from dataclasses import dataclass
from pydantic.dataclasses import dataclass
from typing import Literal
MTPModelTypes = Literal["deepseek_mtp", "mtp"]
SpeculativeMethod = Literal["ngram", MTPModelTypes]
@config
@dataclass
class SpeculativeConfig:
    method: SpeculativeMethod | None = None
"""

BY_DECORATOR = """
from typing import Literal
from vllm.config.utils import config
@config
class SpeculativeConfig:
    method: Literal["ngram", "suffix"] | None = None
"""

UTILS = """
from typing import overload
from pydantic.dataclasses import dataclass
@overload
def config(cls): ...
def config(cls=None, *, config=None):
    return dataclass(cls, config=config)
"""


def test_only_a_pydantic_dataclass_checks_the_method() -> None:
    """The last binding of ``dataclass`` before the class decides; the ``config``
    decorator of ``vllm/config/utils.py`` counts when its implementation (after typing
    overloads) makes a pydantic dataclass."""
    assert speculative_config({"vllm/config.py": textwrap.dedent(STDLIB)}) == {
        "source": "vllm/config.py", "validated": False, "methods": None,
        "keys": ["method"], "unknown_keys": "rejected", "without_model": None,
        "lookup_order": []}
    assert speculative_config({"vllm/config.py": textwrap.dedent(PYDANTIC)})["methods"] == [
        "deepseek_mtp", "mtp", "ngram"]
    files = {"vllm/config/speculative.py": textwrap.dedent(BY_DECORATOR),
             "vllm/config/utils.py": textwrap.dedent(UTILS)}
    assert speculative_config(files)["methods"] == ["ngram", "suffix"]
    assert speculative_config(files)["unknown_keys"] == "ignored"
    files["vllm/config/utils.py"] = files["vllm/config/utils.py"].replace(
        "config=config", "config=ConfigDict(extra='forbid')")
    assert speculative_config(files)["unknown_keys"] == "rejected"
    del files["vllm/config/utils.py"]
    assert speculative_config(files)["methods"] is None


POST_INIT = """
from typing import Literal, get_args
MTPModelTypes = Literal["deepseek_mtp", "mtp"]
@config
@dataclass
class SpeculativeConfig:
    method: str | None = None
    def __post_init__(self):
        if self.method in get_args(MTPModelTypes) and self.method != "mtp":
            self.method = "mtp"
        if self.model is None and self.num_speculative_tokens is not None:
            if self.method == "mtp":
                self.model = self.target_model_config.model
            elif self.method in ("ngram", "[ngram]"):
                self.model = "ngram"
            elif self.method == "custom_class":
                if self.model is None:
                    raise ValueError("custom_class needs a model")
            else:
                raise ValueError("num_speculative_tokens without speculative model")
        if self.method in ("ngram", "ngram_gpu"):
            if self.prompt_lookup_min > self.prompt_lookup_max:
                raise ValueError("prompt_lookup_min must be <= prompt_lookup_max")
"""


def test_the_derivation_reads_which_methods_need_a_model_and_the_lookup_order() -> None:
    found = speculative_config({"vllm/config.py": textwrap.dedent(POST_INIT)})
    assert found["without_model"] == ["[ngram]", "deepseek_mtp", "mtp", "ngram"]
    assert found["lookup_order"] == ["ngram", "ngram_gpu"]
    by_type = textwrap.dedent(POST_INIT).replace(
        'if self.method == "mtp":', 'if self.target_model_config.model_type == "x":')
    assert speculative_config({"vllm/config.py": by_type})["without_model"] is None


def test_methods_needing_a_model_follow_the_releases_sources() -> None:
    assert methods_without_model("0.10.2") is None  # the test is of the target's model type
    assert "eagle3" not in (methods_without_model("0.11.0") or {"eagle3"})
    assert "qwen3_next_mtp" in (methods_without_model("0.11.0") or ())
    assert "ngram" in lookup_order_methods("0.33.0")
