"""``option_hints.close_matches`` is exactly ``difflib.get_close_matches`` (same matches, same
order), over real option and environment variable names and random near-misses."""

from __future__ import annotations

import difflib
import random

from validator.analysis import cli_plan, option_hints
from validator.vllm_cli.data_source import CliRegistries


def test_close_matches_equals_difflib() -> None:
    top = cli_plan.newest(CliRegistries())
    assert top is not None
    rng = random.Random(17)
    for known in (top.long_options,
                  tuple(sorted(v for v in top.env_vars if not v.endswith("*"))),
                  ("a", "", "ab", "abc"), ()):
        words = ["", "-", "--", "VLLM_", "--tensor-parallel-sise", "--max_model_len"]
        words += [k[:rng.randrange(len(k) + 1)] + rng.choice("-_xé") + k[rng.randrange(len(k) + 1):]
                  for k in rng.sample(known, min(12, len(known)))]
        words += ["--" + "".join(rng.choice("-abcdeinoprst_") for _ in range(rng.randrange(30)))
                  for _ in range(12)]
        for word in words:
            for n, cutoff in ((3, 0.6), (1, 0.8), (5, 0.3), (2, 0.0), (3, 1.0)):
                assert option_hints.close_matches(word, known, n, cutoff) == \
                    difflib.get_close_matches(word, known, n=n, cutoff=cutoff), (word, n, cutoff)


def test_close_matches_with_a_character_counted_more_than_255_times() -> None:
    # the prepared counts are bytes up to 255 and a tuple beyond: both must match difflib
    known = ("a" * 300 + "b", "a" * 299, "ab", "b" * 256 + "a")
    for word in ("a" * 300, "a" * 10, "b" * 256, "ab" * 130, ""):
        for n, cutoff in ((3, 0.6), (4, 0.0), (1, 0.9)):
            assert option_hints.close_matches(word, known, n, cutoff) == \
                difflib.get_close_matches(word, known, n=n, cutoff=cutoff), (word, n, cutoff)
