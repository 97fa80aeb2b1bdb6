"""A guide code block is checked against the version its section states for it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.checks.test_install_range import of, recipe, run
from tests.conftest import line_of
from validator.analysis.guide_sections import SectionSearch, section_context, section_headings

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


def naive_section_headings(guide: str, line: int) -> tuple[list[str], list[str]]:
    """The heading chain above ``line`` and the prose of its innermost section, walking
    back over every heading (outside fences) for each line."""
    lines = guide.splitlines()
    fenced: set[int] = set()
    opened: int | None = None
    for i, text in enumerate(lines):
        if text.strip().startswith("```"):
            if opened is None:
                opened = i
            else:
                fenced.update(range(opened, i + 1))
                opened = None
    if opened is not None:
        fenced.update(range(opened, len(lines)))
    heads = [i for i in range(line) if i not in fenced and re.match(r"^\s{0,3}#{1,6}\s+\S",
                                                                    lines[i])]
    chain: list[str] = []
    level = 7
    for h in reversed(heads):
        depth = len(lines[h].lstrip()) - len(lines[h].lstrip().lstrip("#"))
        if depth < level:
            chain.insert(0, lines[h].strip())
            level = depth
    return chain, lines[heads[-1] + 1 if heads else 0:line]


WORDS = ("H200", "AMD", "MI300X", "single node tp", "single_node-tp", "x", "text", "b200")


def random_guide(rng: random.Random) -> str:
    out: list[str] = []
    for _ in range(rng.randint(0, 30)):
        kind = rng.random()
        if kind < 0.25:
            out.append("#" * rng.randint(1, 4) + " " + " ".join(rng.sample(WORDS, 2)))
        elif kind < 0.45:
            out += ["```bash", f"vllm serve a/b --{rng.choice(WORDS)}", "```"]
        else:
            out.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3))))
    return "\n".join(out) + "\n"


def test_a_section_search_finds_what_a_search_of_each_prefix_finds() -> None:
    rng = random.Random("section-search")
    patterns = [re.compile(rf"(?<![\w-]){p}(?![\w-])", re.IGNORECASE)
                for p in ("h200", "amd", "mi300x", "single[ _-]node[ _-]tp", "x", "b200 h200")]
    compared = hits = 0
    for _ in range(150):
        guide = random_guide(rng)
        search = SectionSearch(guide)
        for line in range(len(guide.splitlines()) + 1):
            headings, prose = naive_section_headings(guide, line)
            assert section_headings(guide, line) == (headings, prose), (guide, line)
            for pattern in patterns:
                want = bool(pattern.search(" ".join(headings + prose)))
                assert search.says(pattern, line) is want, (guide, line, pattern)
                titles = bool(pattern.search(" ".join(headings)))
                assert search.says(pattern, line, headings_only=True) is titles
                compared += 1
                hits += want
    assert compared > 1000 and hits > 100, (compared, hits)


# --- the wordings of a section's own version ---------------------------------------------

METRICS = "vllm serve example-org/Example-8B --enable-per-request-metrics"  # from 0.25.0


def with_section(note: str, cmd: str = METRICS, heading: str = "## Metrics") -> str:
    """The test recipe (minimum 0.22.0) with a second section: ``heading``, ``note`` and a
    block of ``cmd``."""
    return recipe(minimum="0.22.0", guide_cmd=f"echo ready\n  ```\n\n  {heading}\n\n  {note}"
                  f"\n\n  ```bash\n  {cmd}")


@pytest.mark.parametrize("note", [
    "This path requires vLLM 0.25.0: the option landed there.",
    "Starting with vLLM 0.25.0 and later, per-request metrics are on offer:",
    "Since vLLM 0.25.0, per-request metrics can be enabled.",
    "Needs vLLM v0.25 or newer.",
    "Works with vLLM 0.25.0 and up.",
    "Requires at least vLLM 0.25.0.",
])
def test_section_lower_bound_wordings_are_honoured(corpus_copy: Path, note: str) -> None:
    found, _ = run(corpus_copy, with_section(note))
    assert not of(found, "GUIDE004"), found


def test_section_heading_states_the_version(corpus_copy: Path) -> None:
    found, _ = run(corpus_copy, with_section(
        "Per-request metrics:", heading="## Per-request metrics (vLLM 0.25.0 and newer)"))
    assert not of(found, "GUIDE004"), found


def test_section_choice_checked_against_the_stated_version(corpus_copy: Path) -> None:
    cmd = "vllm serve example-org/Example-8B --all2all-backend deepep_v2"  # from 0.24.0
    found, _ = run(corpus_copy, with_section("This path requires vLLM 0.24.0.", cmd))
    assert not of(found, "GUIDE006"), found
    failing, _ = run(corpus_copy, with_section("See the backend docs.", cmd))
    (hit,) = of(failing, "GUIDE006")
    assert hit.message.endswith("but the recipe's minimum is 0.22.0")


@pytest.mark.parametrize("note", [
    "Up to vLLM 0.25.0 this was experimental.",
    "Before vLLM 0.25.0 the option did not exist.",
    "vLLM 0.25.0 or earlier printed no metrics.",
    "Fixed in vLLM 0.25.0.",  # a fact about one release, not the section's minimum
    "This does not require vLLM 0.25.0.",
])
def test_upper_bounds_and_mentions_do_not_raise_the_floor(corpus_copy: Path, note: str) -> None:
    found, _ = run(corpus_copy, with_section(note))
    (hit,) = of(found, "GUIDE004")
    assert "exists only from vLLM 0.25.0, but the recipe's minimum is 0.22.0" in hit.message
    assert "section" not in hit.message


def test_message_says_the_sections_version_was_taken_into_account(corpus_copy: Path) -> None:
    text = with_section("This path requires vLLM 0.24.0.")
    found, _ = run(corpus_copy, text)
    (hit,) = of(found, "GUIDE004")
    assert hit.message.endswith("exists only from vLLM 0.25.0, but the minimum its section "
                                "states is 0.24.0 (the recipe's min_vllm_version is "
                                "0.22.0)"), hit.message
    assert hit.hint == ("raise the version the section states (and min_vllm_version if every "
                        "path needs it) to 0.25.0 or drop the flag")
    assert [r.line for r in hit.related] == [line_of(text, "This path requires vLLM 0.24.0")]
    lower, _ = run(corpus_copy, with_section("Tested since vLLM 0.20.0, and still fine."))
    (hit,) = of(lower, "GUIDE004")
    assert hit.message.endswith("but the recipe's minimum is 0.22.0 (its section states "
                                "vLLM 0.20.0, not above it)"), hit.message
    assert hit.hint == "raise min_vllm_version to 0.25.0 or drop the flag"
