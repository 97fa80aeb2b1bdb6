"""The edit distance the rules use to call one name a typo of another."""

from __future__ import annotations


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance from ``a`` to ``b``: the fewest single-character
    inserts, deletes, substitutions and swaps of two neighbours (Levenshtein plus
    adjacent transpositions; no substring is edited twice)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]
