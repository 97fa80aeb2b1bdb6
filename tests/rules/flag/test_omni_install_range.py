"""vLLM-Omni recipes are judged over their install range, as vLLM's are: a flag every
stable vLLM-Omni release from some point on rejects is ``FLAG023``/``GUIDE017`` (an error:
``uv pip install vllm-omni`` and its git main pull them), not a ``FLAG003``/``GUIDE005``
warning; and no hint writes the rejected flag (an abbreviation of it gets no ``FLAG014``
"write it in full"). Faults injected into a real recipe of the corpus at ``main`` (a
throw-away copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from tests.rules.flag.test_flag_pre_release import serve_released_omni_in_guide

pytestmark = pytest.mark.corpus

AUDIO = "models/stabilityai/stable-audio-open-1.0.yaml"  # tasks: omni, min 0.22.0
# vLLM-Omni: `--stage-configs-path` is in 0.20.0..0.26.0, absent from 0.27.0rc1 on (stable
# 0.28.0 and 0.30.0 among them)
GONE = "--stage-configs-path"


def _rules(root: Path) -> list[tuple[str, int, str, str | None]]:
    return [(f.rule, f.line, f.message, f.hint) for f in check_tree(root, AUDIO)
            if f.rule in ("FLAG003", "FLAG014", "FLAG023", "GUIDE005", "GUIDE014", "GUIDE017")]


@pytest.mark.parametrize("written", [GONE, "--stage-config"])
def test_an_omni_flag_stable_releases_reject_is_an_error(corpus_copy: Path,
                                                         written: str) -> None:
    text = replace_once(corpus_copy / AUDIO, '    - "--enforce-eager"\n',
                        f'    - "--enforce-eager"\n    - "{written}"\n    - "stages.yaml"\n')
    [(rule, line, message, hint)] = _rules(corpus_copy)
    assert (rule, line) == ("FLAG023", line_of(text, f'"{written}"'))
    assert f"`{GONE}` is rejected by vLLM-Omni 0.28.0–0.30.0" in message
    assert hint is not None and f"`{GONE}`" not in hint


def test_an_omni_guide_flag_stable_releases_reject_is_an_error(corpus_copy: Path) -> None:
    # installed from the index, as the trial's recipe did
    serve_released_omni_in_guide(corpus_copy, f"{GONE} stages.yaml")
    [(rule, _, message, _)] = _rules(corpus_copy)
    assert rule == "GUIDE017" and "inside the install range vLLM-Omni" in message
