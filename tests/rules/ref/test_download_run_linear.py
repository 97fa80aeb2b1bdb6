"""Reading a shown command for downloads it runs is linear in its size: a block of
backquotes, substitutions, pipes or downloads is read with each character tokenized a
bounded number of times (counted; the trial's 1.9 MB line of backquotes took 75 s, one
shlex reading per backquote pair, twice). The count, not the time, is the measure, so
64 KiB inputs (thousands of pipe stages, substitutions and saved downloads, more than the
512 entries of the reader's caches) tell linear from quadratic as well as the 2 MiB a
recipe may hold: a reading per pair or per stage of the rest of the text would count
thousands of times the text's size."""

from __future__ import annotations

import pytest

from validator.rules.ref import download_run, download_words

SIZE = 64 * 1024
INPUTS = {
    "backquotes": "echo " + "`" * (SIZE - 8),
    "empty substitutions": "echo " + "$()" * (SIZE // 3 - 4),
    "downloads in backquotes": "echo " + "`curl`" * (SIZE // 6 - 2),
    "downloading substitutions": "echo " + "$(curl x)" * (SIZE // 9 - 2),
    "a long pipe": "curl x | " * (SIZE // 9 - 2) + "sh",
    "many saved downloads": "curl -o f http://x/f\n" * (SIZE // 21 - 2) + "sh f",
    "unclosed quote": "curl '" + "a\n" * (SIZE // 2 - 8),
}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_each_character_is_tokenized_a_bounded_number_of_times(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = INPUTS[name]
    assert SIZE - 64 <= len(text.encode()) <= SIZE
    tokenized = 0
    real = download_words.words

    def counting(part: str) -> list[str]:
        nonlocal tokenized
        tokenized += len(part)
        return real(part)

    monkeypatch.setattr(download_run, "words", counting)
    download_run._download_runs.cache_clear()
    download_run._fetched.cache_clear()
    download_run.download_runs(text)
    assert tokenized <= 3 * len(text)
