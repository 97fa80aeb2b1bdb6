"""Reading a shown command for downloads it runs is linear in its size: a guide block of
up to 2 MiB of backquotes, substitutions, pipes or downloads is read with each character
tokenized a bounded number of times (counted; the trial's 1.9 MB line of backquotes took
75 s, one shlex reading per backquote pair, twice)."""

from __future__ import annotations

import pytest

from validator.rules.ref import download_run, download_words

MIB = 1024 * 1024
INPUTS = {
    "backquotes": "echo " + "`" * (2 * MIB - 8),
    "empty substitutions": "echo " + "$()" * (2 * MIB // 3 - 4),
    "downloads in backquotes": "echo " + "`curl`" * (2 * MIB // 6 - 2),
    "downloading substitutions": "echo " + "$(curl x)" * (2 * MIB // 9 - 2),
    "a long pipe": "curl x | " * (2 * MIB // 9 - 2) + "sh",
    "many saved downloads": "curl -o f http://x/f\n" * (2 * MIB // 21 - 2) + "sh f",
    "unclosed quote": "curl '" + "a\n" * (MIB - 8),
}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_each_character_is_tokenized_a_bounded_number_of_times(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = INPUTS[name]
    assert len(text.encode()) <= 2 * MIB
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
