"""An NPU whose recipe pins vLLM-Ascend's release image (``quay.io/ascend/vllm-ascend:v0.11.0``)
runs its commands in that release: flags and ``--additional-config`` keys it has are not
errors judged at the newest vendored vLLM-Ascend release, and its environment variables
are judged at it, not called a build no vendored release describes (trial 13 #1).

The recipes are small ones of our own, written into a copy of the real recipes tree and
run through the full pipeline with the real vendored vLLM-Ascend data
(``snapshots/vllm-cli/vllm-ascend/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.analysis.test_install_range import PATH, recipe, run
from tests.cli_in_process import run_cli
from validator.context import Settings

ASCEND = "/variants/default/hardware_overrides/ascend_950pr"


def on_ascend(image: str | None, extra: str, minimum: str = "0.10.0", guide: str = "") -> str:
    """:func:`recipe` at ``minimum``, verified on Ascend 950PR, whose default variant runs
    it in ``image`` (``None``: none of its own) with ``extra`` (YAML lines of the
    override) and ``guide`` (a guide section's lines) added."""
    text = recipe(minimum=minimum).replace(
        "    h100: verified\n", "    h100: verified\n    ascend_950pr: verified\n")
    text = text.replace('    description: "Full precision BF16"\n',
                        '    description: "Full precision BF16"\n    hardware_overrides:\n'
                        '      ascend_950pr:\n'
                        + (f'        docker_image: "{image}"\n' if image else "") + extra)
    return text + guide


SCHEDULER = ('        extra_args:\n          - "--additional-config"\n'
             "          - '{\"ascend_scheduler_config\":{\"enabled\":true}}'\n")
"""vLLM-Ascend 0.7.3 to 0.11.0's scheduler switch; 0.27 on refuses the key."""

ROPE = ('        extra_args:\n          - "--rope-scaling"\n'
        "          - '{\"rope_type\":\"yarn\",\"factor\":4.0}'\n")
"""A flag vLLM-Ascend has up to 0.11.0 (removed in 0.12.0rc1)."""

GUIDE = """
  ## Ascend 950PR

  ```bash
  docker run --rm quay.io/ascend/vllm-ascend:v0.11.0 \\
    vllm serve example-org/Example-8B \\
    --additional-config '{"ascend_scheduler_config":{"enabled":true}}'
  ```
"""


@pytest.mark.parametrize("rendered", [False, True])
def test_a_key_the_pinned_ascend_release_reads_is_no_error(corpus_copy: Path,
                                                           rendered: bool) -> None:
    """``ascend_scheduler_config`` is read by the pinned 0.11.0: no FLAG022 error judged
    at 0.30.0rc2 (which refuses it), in the YAML or in the guide section naming the NPU;
    the newest release's refusal of it is the recipe's own upgrade's business."""
    text = on_ascend("quay.io/ascend/vllm-ascend:v0.11.0", SCHEDULER, guide=GUIDE)
    found, _ = run(corpus_copy, text, Settings(rendered=rendered))
    assert [(f.rule, f.message) for f in found if f.severity.value == "error"
            and f.rule.startswith(("FLAG", "GUIDE"))] == []
    assert [f.rule for f in found if "ascend_scheduler_config" in f.message] == []


@pytest.mark.parametrize("rendered", [False, True])
def test_a_flag_of_the_pinned_ascend_release_is_at_most_a_removal_warning(
        corpus_copy: Path, rendered: bool) -> None:
    """``--rope-scaling`` exists in the pinned 0.11.0: the warning that a later release
    removed it, no FLAG001 error and no note of another release checked."""
    text = on_ascend("quay.io/ascend/vllm-ascend:v0.11.0", ROPE)
    found, _ = run(corpus_copy, text, Settings(rendered=rendered))
    at = [(f.rule, f.severity.value) for f in found if f.pointer.startswith(ASCEND)]
    assert at == [("FLAG003", "warning")], at
    (hit,) = [f for f in found if f.rule == "FLAG003"]
    assert "removed in vLLM-Ascend 0.12.0rc1" in hit.message


def test_a_misspelt_variable_in_the_pinned_ascend_release_is_judged_at_it(
        corpus_copy: Path) -> None:
    """A variable no vLLM-Ascend release reads, in the pinned release image: FLAG016's
    warning with a hint, not FLAG024's info calling the vendored release a build no
    vendored release describes."""
    env = '        extra_env:\n          VLLM_ASCEND_ENABLE_FLASHCOM: "1"\n'
    found, _ = run(corpus_copy, on_ascend("quay.io/ascend/vllm-ascend:v0.11.0", env))
    (hit,) = [f for f in found if f.pointer.startswith(ASCEND)]
    assert (hit.rule, hit.severity.value) == ("FLAG016", "warning")
    assert "VLLM_ASCEND_ENABLE_FLASHCOMM1" in (hit.hint or "")


def test_the_note_on_a_rendered_ascend_list_does_not_say_it_is_rendered_nowhere(
        corpus_copy: Path) -> None:
    """No vLLM-Ascend release is built on vLLM 0.10.0: FLAG019 notes the release the NPU's
    list is checked at; the site renders that list on ascend_950pr, so the note (as the
    command line prints it) does not say "in no command the site renders"."""
    extra = '        extra_args:\n          - "--enforce-eager"\n'
    target = corpus_copy / PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(on_ascend(None, extra), "utf-8")
    out = run_cli("--offline", "--no-cache", PATH, cwd=corpus_copy)
    (line,) = [t for t in out.stdout.splitlines() if "FLAG019" in t and "ascend_950pr" in t]
    assert "checked against vLLM-Ascend 0.9.1" in line
    assert "in no command the site renders" not in line
