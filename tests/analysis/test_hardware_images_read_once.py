"""The install channel of each (variant, hardware) a recipe's configurations ask about
reads the recipe's image strings from one reading per document content, held by the
run's context: many pairs, one reading; another content (even at the same path) has its
own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from validator.analysis import stated_versions
from validator.analysis.install_channel import hardware_statement
from validator.analysis.stated_versions import ImageSite
from validator.context import local_context
from validator.load import LoadedDocument, load_yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recipes"


def recipe(tag: str) -> LoadedDocument:
    """A recipe whose variants run H100 in vLLM's own image ``tag``."""
    return load_yaml((
        "variants:\n"
        "  default:\n"
        "    hardware_overrides:\n"
        f"      h100: {{docker_image: 'vllm/vllm-openai:{tag}'}}\n"
        "  fp8:\n"
        "    hardware_overrides:\n"
        f"      h100: {{docker_image: 'vllm/vllm-openai:{tag}'}}\n").encode(),
        "models/example-org/Images.yaml")


def test_image_strings_are_read_once_per_document_content(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = local_context(EXAMPLES)
    read: list[str] = []

    def counted(doc: LoadedDocument) -> Iterator[ImageSite]:
        read.append(doc.sha256)
        return stated_versions.image_sites(doc)

    monkeypatch.setattr("validator.analysis.install_channel.image_sites", counted)
    old, new = recipe("v0.25.0"), recipe("v0.26.0")
    for variant in ("default", "fp8", None):
        for hardware in ("h100", "b200", "mi300x", "nvidia"):
            hardware_statement(old, ctx, variant, hardware)
    assert read == [old.sha256]
    stated = hardware_statement(old, ctx, "fp8", "h100")
    assert stated is not None and str(stated.minimum) == "0.25.0"
    # the same path with other bytes: its own images, not those read for the first text
    stated = hardware_statement(new, ctx, "fp8", "h100")
    assert stated is not None and str(stated.minimum) == "0.26.0"
    assert read == [old.sha256, new.sha256]
