"""``FLAG036``: an argument list selects a generative runner for a recipe whose
``meta.tasks`` is only ``embedding``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.arg_layers import collect_layers
from validator.analysis.recipe_data import as_list, get
from validator.findings import Severity
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

GENERATIVE: dict[str, frozenset[str]] = {
    "--runner": frozenset({"generate", "draft"}),
    "--task": frozenset({"generate", "transcription", "draft"}),
}
"""The options that choose how vLLM runs a model -> their values that run it as a text
generator (``--runner`` from vLLM 0.10.1; ``--task``, its predecessor, up to 0.12.x). Under
them the server offers no pooling API (``/v1/embeddings``, ``/score``, ``/rerank``,
``/classify``): those need ``--runner pooling`` (``--task embed``/``score``/...)."""


def runner_choices(tokens: tuple[str, ...]) -> Iterator[tuple[int, str, str]]:
    """``(item index of the value, option, value)`` for each ``--runner``/``--task`` of
    an argument list: ``--runner generate`` as two items, ``--runner=generate``, or
    ``"--runner generate"`` in one item."""
    for at, token in enumerate(tokens):
        head, _, rest = token.strip().partition(" ")
        option, eq, inline = head.partition("=")
        if option not in GENERATIVE:
            continue
        if eq:
            yield at, option, inline
        elif rest.strip():
            yield at, option, rest.strip()
        elif at + 1 < len(tokens):
            yield at + 1, option, tokens[at + 1].strip()


@rule("FLAG036", Severity.ERROR, "A generative runner for an embedding-only recipe",
      reads=RECIPE_ONLY)
def generative_runner_for_embedding(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A recipe whose ``meta.tasks`` is only ``embedding`` (the taxonomy's "embedding,
    reranker, classifier, scoring models") states that its model is served through vLLM's
    pooling API. An argument list of the recipe that selects a generative runner --
    ``--runner generate`` or ``draft``, or the older ``--task generate``,
    ``transcription`` or ``draft`` -- contradicts it: vLLM serves one runner per server,
    and under a generative one it offers no ``/v1/embeddings``, ``/score`` or
    ``/rerank``; an encoder-only checkpoint (BERT, XLM-RoBERTa) has no generation head
    and does not start. A model that does both is served by two recipes' worth of tasks
    (``text`` and ``embedding``), which this rule does not judge.

    Failing::

        meta:
          tasks: [embedding]
        model:
          base_args: ["--runner", "generate"]

    Passing::

        meta:
          tasks: [embedding]
        model:
          base_args: ["--runner", "pooling", "--convert", "embed"]

    How to fix: write ``--runner pooling`` (with ``--convert embed`` for a decoder model
    served for embeddings), or drop the flag (``auto`` picks the pooling runner of an
    embedding architecture); if the model is served for generation, list that task in
    ``meta.tasks``."""
    tasks = as_list(get(doc.data, "meta", "tasks"))
    if not tasks or any(t != "embedding" for t in tasks):
        return
    for layer in collect_layers(doc.data):
        for at, option, value in runner_choices(layer.tokens):
            if value in GENERATIVE[option]:
                yield Hit(join_pointer(layer.pointer, at),
                          f"`{option} {value}` in {layer.label} runs the model as a "
                          "generator, but meta.tasks lists only `embedding`: that server "
                          "offers no embedding, score or rerank API",
                          "write `--runner pooling` (with `--convert embed` for a decoder "
                          "model), or drop the flag")
