"""``REF040``: an ``omni.tasks`` example request that asks for another model than the
recipe serves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.arg_layers import collect_layers
from validator.analysis.recipe_data import as_dict, as_list, get
from validator.findings import Severity
from validator.rules.api import RECIPE_ONLY, Hit, rule

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

#: The model a request names: a JSON body's ``"model": "..."`` or a form field
#: ``-F model=...`` / ``-F 'model=...'``.
REQUESTED = re.compile(r"\"model\"\s*:\s*\"([^\"]*)\"|-F\s+['\"]?model=([^'\"\s]+)")
#: What a reader fills in, not a model name.
PLACEHOLDER = re.compile(r"[$<>{}]")


def served_names(data: object) -> dict[str, str]:
    """The names the recipe's server answers to (lower-cased -> as written):
    ``model.model_id``, each
    variant's and omni task's ``model_id``, and every ``--served-model-name`` value of an
    argument list."""
    names: list[object] = [get(data, "model", "model_id")]
    names += [get(v, "model_id") for v in as_dict(get(data, "variants")).values()]
    names += [get(t, "model_id") for t in as_list(get(data, "omni", "tasks"))]
    for layer in collect_layers(data):
        tokens = layer.tokens
        for at, token in enumerate(tokens):
            if not isinstance(token, str):
                continue  # a malformed item: SCHEMA's
            option, eq, inline = token.partition("=")
            if option == "--served-model-name":
                names += inline.split() if eq else tokens[at + 1:at + 2]
    return {n.lower(): n for n in names if isinstance(n, str)}


def task_requests(data: object) -> Iterator[tuple[str, str]]:
    """``(pointer, curl text)`` of each ``omni.tasks`` example request, the task's own and
    each hardware override's."""
    for i, task in enumerate(as_list(get(data, "omni", "tasks"))):
        curl = get(task, "curl")
        if isinstance(curl, str):
            yield f"/omni/tasks/{i}/curl", curl
        for hw, block in as_dict(get(task, "hardware_overrides")).items():
            curl = get(block, "curl")
            if isinstance(curl, str):
                yield f"/omni/tasks/{i}/hardware_overrides/{hw}/curl", curl


@rule("REF040", Severity.WARNING, "An omni task's example request asks for another model",
      reads=RECIPE_ONLY)
def task_request_other_model(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The example request of an ``omni.tasks`` entry (its ``curl``, or a hardware
    override's), which the page shows for the task, names a ``model`` the recipe's server
    does not answer to: neither ``model.model_id``, a variant's or a task's ``model_id``,
    nor a ``--served-model-name`` of its arguments. vLLM answers such a request with 404
    ("The model ... does not exist"). Names are compared case-insensitively; a value a
    reader fills in (``$MODEL``, ``<model>``) is not judged. A guide command serving
    another model is ``GUIDE009``.

    Failing::

        meta:
          tasks: [omni]
        omni:
          tasks:
            - id: t2a
              curl: |
                curl http://localhost:8000/v1/audio/speech \\
                  -d '{"model": "other-org/Other-TTS", "input": "Hi"}'

    Passing::

        meta:
          tasks: [omni]
        omni:
          tasks:
            - id: t2a
              curl: |
                curl http://localhost:8000/v1/audio/speech \\
                  -d '{"model": "example-org/Example-Chat-8B", "input": "Hi"}'

    How to fix: name the model the recipe serves (or its ``--served-model-name``)."""
    names = None
    for pointer, curl in task_requests(doc.data):
        for match in REQUESTED.finditer(curl):
            model = match.group(1) if match.group(1) is not None else match.group(2)
            if not model or PLACEHOLDER.search(model):
                continue
            names = served_names(doc.data) if names is None else names
            if model.lower() not in names:
                yield Hit(pointer, f"the task's example request asks for model `{model}`, "
                          "which the recipe does not serve: vLLM answers it with 404 (\"The "
                          "model does not exist\")", "name the model the recipe serves: "
                          + ", ".join(f"`{n}`" for n in sorted(names.values())))
