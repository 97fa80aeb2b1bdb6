"""A guide code block is checked against the version its section states for it."""

from __future__ import annotations

from pathlib import Path

from tests.checks.test_install_range import of, recipe, run
from tests.conftest import line_of
from validator.checks.guide_sections import section_context

SPEC = "vllm serve example-org/Example-8B --speculative-config '{\"method\": \"eagle3\"}'"


def test_section_stating_its_minimum_is_checked_against_it(corpus_copy: Path) -> None:
    # --speculative-config exists from 0.8.2; the recipe claims 0.6.0
    stated = SPEC + "\n  ```\n\n  EAGLE3 requires vLLM >= 0.9.0.\n\n  ```bash\n  echo done"
    found, _ = run(corpus_copy, recipe(minimum="0.6.0", guide_cmd=stated))
    assert not of(found, "GUIDE004"), found
    failing, _ = run(corpus_copy, recipe(minimum="0.6.0", guide_cmd=SPEC))
    (hit,) = of(failing, "GUIDE004")
    assert "exists only from vLLM 0.8.2" in hit.message


def test_section_on_nightly_image_is_not_judged_by_the_recipe_minimum(
        corpus_copy: Path) -> None:
    cmd = "vllm serve example-org/Example-8B --async-scheduling"  # from 0.10.0
    note = cmd + "\n  ```\n  > This support ships in the nightly TPU image."
    text = recipe(minimum="0.8.5", guide_cmd=note)
    found, _ = run(corpus_copy, text)
    assert not of(found, "GUIDE004"), found
    failing, _ = run(corpus_copy, recipe(minimum="0.8.5", guide_cmd=cmd))
    (hit,) = of(failing, "GUIDE004")
    assert hit.line == line_of(recipe(minimum="0.8.5", guide_cmd=cmd), "--async-scheduling")


def test_statement_belongs_to_the_nearest_block_of_its_section() -> None:
    guide = ("## Deploy\n\nTPU: runs on the nightly image.\n\n```bash\nvllm serve a/b --x\n```\n"
             "\n\n\n\n\n\nAMD:\n\n```bash\nvllm serve a/b --y\n```\n")
    tpu = section_context(guide, 5)
    assert tpu is not None and tpu.unreleased and tpu.minimum is None
    assert section_context(guide, 16) is None


def test_validated_and_pinned_versions_are_read() -> None:
    guide = ("## Old\n\nValidated with vLLM 0.25.0 on 8xH200.\n\n```bash\n"
             "pip install vllm==0.25.0\nvllm serve a/b\n```\n")
    found = section_context(guide, 6)
    assert found is not None and str(found.minimum) == "0.25.0" and str(found.top) == "0.25.0"
    assert not found.unreleased and found.line == 2
