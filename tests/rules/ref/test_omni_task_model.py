"""``REF040``: an ``omni.tasks`` example request (the task's ``curl`` or a hardware
override's) that asks for a model the recipe does not serve."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree
from tests.tiny_recipe import PATH, RECIPE, write_tiny

OMNI = RECIPE.replace("  tasks: [text]\n", "  tasks: [omni]\n") + """omni:
  tasks:
    - id: t2a
      curl: |
        curl http://localhost:8000/v1/audio/speech \\
          -d '{"model": "MODEL", "input": "Hi"}'
      hardware_overrides:
        h100:
          curl: |
            curl http://localhost:8000/v1/audio/speech -F model=FORM
"""


def found(root: Path, model: str, form: str = "org/Tiny-1B", args: str = "[]") -> list[str]:
    write_tiny(root, args, OMNI.replace("MODEL", model).replace("FORM", form))
    return [f.message for f in check_tree(root, PATH) if f.rule == "REF040"]


def test_a_request_for_another_model_is_a_warning(corpus_copy: Path) -> None:
    (message,) = found(corpus_copy, "org/Tiny-3B")
    assert message.startswith("the task's example request asks for model `org/Tiny-3B`, "
                              "which the recipe does not serve")


def test_a_hardware_overrides_request_is_read_too(corpus_copy: Path) -> None:
    assert len(found(corpus_copy, "org/Tiny-1B", form="org/Other")) == 1


@pytest.mark.parametrize(("model", "args"), [
    ("org/Tiny-1B", "[]"),
    ("org/tiny-1b", "[]"),
    ("tiny", '["--served-model-name", "tiny"]'),
    ("$MODEL", "[]"),
], ids=["model-id", "case", "served-model-name", "placeholder"])
def test_the_served_names_pass(corpus_copy: Path, model: str, args: str) -> None:
    assert found(corpus_copy, model, args=args) == []


def test_a_model_id_that_is_a_mapping_is_no_served_name_and_no_crash(corpus_copy: Path) -> None:
    """A malformed ``model_id`` (a mapping: SCHEMA's finding) is not a name the server
    answers to; the rule still judges the request against the names it has."""
    write_tiny(corpus_copy, "[]", OMNI.replace("MODEL", "org/Other").replace("FORM", "org/Other")
               .replace("    - id: t2a\n", "    - id: t2a\n      model_id: {a: 1}\n"))
    findings = check_tree(corpus_copy, PATH)
    assert not [f for f in findings if f.rule == "RC001" or "internal error" in f.message]
    assert len([f for f in findings if f.rule == "REF040"]) == 2
