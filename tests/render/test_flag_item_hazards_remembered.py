"""The flag-item hazards of a process (the ``# warning`` lines of ``render`` and of a
record page's blocks) are judged once per token text: the configurations of a recipe,
and their cu129 renderings, hold the same tokens again and again. The second process
with the same tokens gets the same hazards without judging them again."""

from __future__ import annotations

from validator.analysis import shell_hazards
from validator.analysis.shell_hazards import flag_item_hazards
from validator.render.configuration import Process, Token


def _process(texts: list[str], document: str) -> Process:
    tokens = tuple(Token(t, "model.base_args", f"/model/base_args/{i}", document)
                   for i, t in enumerate(texts))
    return Process("serve", " ".join(texts), tuple(texts), None, None, {}, tokens)


def test_same_token_texts_give_the_same_hazards_judged_once() -> None:
    texts = ["vllm", "serve", "org/model", "--flag*", "--ok"]
    first = flag_item_hazards(_process(texts, "models/a.yaml"))
    before = shell_hazards._flag_item_hazard.cache_info()
    second = flag_item_hazards(_process(texts, "models/b.yaml"))
    after = shell_hazards._flag_item_hazard.cache_info()
    assert second == first
    assert first  # at least one item bash changes
    assert after.misses == before.misses
    assert after.hits - before.hits == len(texts)
