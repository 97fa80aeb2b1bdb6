"""FLAG003 / GUIDE005 when the only releases without a flag are pre-releases (a plugin's
``rc`` builds newer than its last stable release that has the flag): the message says
so instead of "was removed in"; and the "did you mean" of a removed flag names only a
close match (a rename), not a flag that merely shares words.

Faults injected into real recipes of the corpus at ``main`` (a throw-away copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of, replace_once
from validator.analysis import cli_plan, option_hints
from validator.vllm_cli.data_source import CliRegistries

CLI = CliRegistries()

pytestmark = pytest.mark.corpus

AUDIO = "models/stabilityai/stable-audio-open-1.0.yaml"  # tasks: omni, min 0.22.0
QWEN38 = "models/Qwen/Qwen3.8-27B.yaml"  # ascend_w8a8 variant (vllm-ascend 0.17.0rc1)
# vLLM-Omni: `--auxiliary-text-encoder` is in every vendored release 0.22.0..0.31.0rc1 and
# absent from 0.32.0rc1 only (the newest vendored, a pre-release; 0.30.0 is stable)
OMNI_FLAG = "--auxiliary-text-encoder"


def _removed(root: Path, path: str, rule: str) -> list[tuple[int, str, str | None]]:
    return [(f.line, f.message, f.hint) for f in check_tree(root, path) if f.rule == rule]


def test_omni_flag_absent_from_a_pre_release_only_says_so(corpus_copy: Path) -> None:
    text = replace_once(corpus_copy / AUDIO, '    - "--enforce-eager"\n',
                        f'    - "--enforce-eager"\n    - "{OMNI_FLAG}"\n    - "org/encoder"\n')
    [(line, message, hint)] = _removed(corpus_copy, AUDIO, "FLAG003")
    assert line == line_of(text, OMNI_FLAG)
    assert "is absent from vLLM-Omni 0.32.0rc1, a pre-release (not yet removed in a stable " \
           "release; stable 0.30.0 has it)" in message
    assert "was removed" not in message
    # the 0.61-alike `--text-encoder-tp-size` is no replacement: not offered
    assert hint is not None and "did you mean" not in hint


def serve_released_omni_in_guide(root: Path, args: str) -> None:
    """:data:`AUDIO` installed from the package index (the recipe installs vLLM-Omni from
    git, which no release bounds) and a guide section serving it with ``args`` added."""
    recipe = root / AUDIO
    recipe.write_text(recipe.read_text("utf-8").replace(
        "git+https://github.com/vllm-project/vllm-omni.git", "vllm-omni"), "utf-8")
    replace_once(recipe, "  ## Overview\n",
                 "\n  ## Serving (our own fixture)\n\n  ```bash\n"
                 "  vllm serve stabilityai/stable-audio-open-1.0 --omni \\\n"
                 f"      --port 8091 {args}\n  ```\n\n  ## Overview\n")


def test_omni_guide_flag_absent_from_a_pre_release_only_says_so(corpus_copy: Path) -> None:
    serve_released_omni_in_guide(corpus_copy, f"{OMNI_FLAG} org/encoder")
    [(_, message, hint)] = _removed(corpus_copy, AUDIO, "GUIDE005")
    assert "is absent from vLLM-Omni 0.32.0rc1, a pre-release" in message
    assert hint is not None and "--text-encoder-tp-size" not in hint


def test_ascend_flag_absent_from_pre_releases_only_says_so(corpus_copy: Path) -> None:
    # --calculate-kv-scales: in vllm-ascend 0.23.0.post1 (stable) and 0.24.0rc1..0.27.1rc1,
    # absent from 0.28.0rc1 on: every release without it is a pre-release
    text = replace_once(corpus_copy / QWEN38, '      - "16384"\n',
                        '      - "16384"\n      - "--calculate-kv-scales"\n')
    found = [(ln, m) for ln, m, _ in _removed(corpus_copy, QWEN38, "FLAG003")]
    assert found == [(line_of(text, '"--calculate-kv-scales"'), found[0][1])], found
    assert "is absent from vLLM-Ascend 0.28.0rc1–0.30.0rc2, pre-releases (not yet removed " \
           "in a stable release; stable 0.23.0.post1 has it)" in found[0][1]


def test_pre_release_removal_facts() -> None:
    assert cli_plan.pre_release_removal(CLI, "option", OMNI_FLAG, "0.22.0", "vllm-omni") == (
        ["0.32.0rc1"], "0.30.0")
    # present in the newest release: not removed at all
    assert cli_plan.pre_release_removal(CLI, "option", "--enforce-eager", "0.22.0",
                                        "vllm-omni") is None
    # vLLM: a stable release (0.28.0) lacks it, the "was removed in" wording stays
    assert cli_plan.pre_release_removal(CLI, "option", "--calculate-kv-scales", "0.12.0") is None


def test_replacement_hint_keeps_renames_and_drops_loose_matches() -> None:
    newest = str(cli_plan.versions(CLI)[-1])
    hint = option_hints.replacement_hint(CLI, "--disable-log-requests", newest)
    assert hint is not None and "`--enable-log-requests`" in hint
    assert option_hints.replacement_hint(CLI, OMNI_FLAG, "0.32.0rc1", "vllm-omni") is None
    # the typo search of unknown flags keeps its own, looser cutoff
    assert option_hints.option_hint(CLI, OMNI_FLAG, "0.32.0rc1", "vllm-omni") is not None
