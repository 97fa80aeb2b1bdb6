"""``REF014``-``REF016``: what the recipes site renders from a recipe, checked as a whole.

Every configuration the site's build renders (each variant on each hardware its picker
shows, the recommended strategy and every alternative, plus every feature switched on) is
rendered with :mod:`validator.render`, exactly as the site renders it; these rules report
where the site cannot render a configuration or renders a broken command, at the YAML node
to blame, with the configurations affected.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from validator.context import Context
from validator.findings import Related, Severity
from validator.load import LoadedDocument
from validator.render.cache import problems_by_node
from validator.render.counts import COUNT_REFUSED, MAX_EXPANDED, context_count_problems
from validator.render.problems import RenderProblem
from validator.render.renderer import Rendered
from validator.rules.api import CONTEXT_FILES, Hit, rule
from validator.sourcemap import pointer_value


def affected(renderings: list[Rendered]) -> str:
    """``on h200 · fp8 · multi_node_tp and 11 more`` (distinct configurations)."""
    labels = list(dict.fromkeys(r.config.label() for r in renderings))
    more = f" and {len(labels) - 1} more" if len(labels) > 1 else ""
    return f"on {labels[0]}{more}"


def fitting_hint(value: Any, message: str, hint: str) -> str:
    """``hint``, unless the kind of the value the site cannot use calls for another fix:
    a mapping, or any other value where the site iterates a list."""
    if isinstance(value, dict):
        return ("write a YAML list, one item per shell word, not a mapping (a key: value "
                "pair is no argument): the site iterates it")
    if "not iterable" in message:
        return "write the value as a YAML list: the site iterates it"
    return hint


def _hits(doc: LoadedDocument, ctx: Context, codes: frozenset[str],
          hint: str) -> Iterator[Hit]:
    for (document, pointer, _), seen in problems_by_node(doc, ctx, codes).items():
        problem: RenderProblem = seen[0][0]
        where = affected([r for _, r in seen])
        if document == doc.path:
            yield Hit(pointer, f"{_first_sentence(problem, seen[0][1])} ({where})",
                      fitting_hint(pointer_value(doc.data, pointer), problem.message, hint))
        else:  # the value sits in a strategy / kv-store / taxonomy file of the revision
            other = next((d for d in ctx.context_documents() if d.path == document), None)
            line = other.source_map.position(pointer)[0] if other else 1
            yield Hit("", f"{_first_sentence(problem, seen[0][1])} ({where})", hint,
                      related=(Related(line, f"the value is in {document}", document),))


def _first_sentence(problem: RenderProblem, rendered: Rendered) -> str:
    """The problem's message without the configuration it names (the finding lists them)."""
    label = rendered.config.label()
    message = problem.message
    for prefix in (f"{label}: ", f"the site cannot render {label}: "):
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message.replace("; its build skips this configuration",
                           "; the site's build skips the configuration")


@rule("REF014", Severity.ERROR, "The recipes site cannot render a configuration",
      reads=CONTEXT_FILES)
def site_cannot_render(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site's renderer throws on a configuration it offers, so its build skips it (a
    warning in its log) and the page shows no command: typically an argument that is not a
    string (the renderer calls ``.startsWith`` on every argument) or a list written as a
    scalar. Reported at the YAML node holding the value, with the configurations affected.

    Failing::

        model:
          base_args: ["--max-model-len", 4096]

    Passing::

        model:
          base_args: ["--max-model-len", "4096"]

    A count a context file gives that the site expands into one entry each (a kv-store
    deployment's ``default_instances``: one ``--backend-url`` per instance; a hardware
    profile's ``gpu_count``: one id per GPU of a PD pool) is reported on that file, at its
    line, past 256 or when it is no number; recipe-check then does not render the
    configurations that expand it (``render`` says why).

    How to fix: quote the value (every argument is a string), or write the list as a list.
    """
    yield from _hits(doc, ctx, frozenset({"synthesis-error"}),
                     "quote the value: every argument of a command is a string")
    yield from (hit for hit in _hits(doc, ctx, frozenset({COUNT_REFUSED}), COUNT_HINT)
                if not hit.related)  # a context file's count: on that file, at its line


COUNT_HINT = (f"write a whole number from 1 to {MAX_EXPANDED}: the site writes one entry "
              "for each")


def context_count_hits(kind: str, data: Any) -> list[Hit]:
    """``REF014`` of the context document ``data`` of ``kind``: each count the site
    expands into one line each that recipe-check refuses to render (past
    :data:`~validator.render.counts.MAX_EXPANDED`, or no number), at its line. The
    recipes rendering with it report nothing of it (their configurations that expand it
    are not rendered: ``render`` says why)."""
    return [Hit(pointer, why, COUNT_HINT)
            for pointer, why in context_count_problems(kind, data)]


@rule("REF015", Severity.ERROR, "A rendered command holds a value that cannot be rendered",
      reads=CONTEXT_FILES)
def rendered_value_broken(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """The site renders the command, but a part of it is not what the author wrote: an env
    value that is empty (``null``) or a mapping/list renders as ``-e KEY=null`` or
    ``-e KEY=[object Object]``; a computed parallel size renders as ``NaN``; with no model id
    the command is ``vllm serve unknown``.

    Failing::

        model:
          base_env:
            VLLM_USE_DEEP_GEMM:

    Passing::

        model:
          base_env:
            VLLM_USE_DEEP_GEMM: "1"

    How to fix: give the env variable a string value, the size flag a number, the recipe a
    ``model.model_id``.
    """
    yield from _hits(doc, ctx, frozenset({"broken-value", "no-model-id"}),
                     "write the value as the string the command should contain")


@rule("REF016", Severity.WARNING, "The site has no Docker image for a hardware profile",
      reads=CONTEXT_FILES)
def no_docker_image(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """For some hardware the site has no default image (Intel CPU with
    ``nightly_required: true``: there is no nightly CPU image), so its ``docker run`` reads
    ``undefined`` and the JSON API has no ``docker_image``.

    Failing::

        model:
          nightly_required: true
        meta:
          hardware:
            xeon6: verified

    Passing::

        model:
          nightly_required: true
          docker_image:
            intel: "vllm/vllm-openai-cpu:nightly-x86_64"

    How to fix: set ``model.docker_image`` for that brand, or drop the hardware.
    """
    yield from _hits(doc, ctx, frozenset({"no-docker-image"}),
                     "set model.docker_image for this hardware's brand")
