"""``REF039``: ``meta.tasks`` names task ids of ``taxonomy.yaml``."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import elements, get
from validator.context import Context
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import nearest_hint


def taxonomy_task_ids(ctx: Context) -> frozenset[str] | None:
    """The ``id`` of every entry of the taxonomy's ``tasks`` list, or ``None`` when the
    revision has no taxonomy or its taxonomy defines no task list (nothing to judge by)."""
    data = ctx.taxonomy.data if ctx.taxonomy is not None and ctx.taxonomy.ok else None
    tasks = get(data, "tasks")
    if not isinstance(tasks, list):
        return None
    return frozenset(t["id"] for t in tasks if isinstance(t, dict) and isinstance(t.get("id"), str))


@rule("REF039", Severity.ERROR, "meta.tasks names a task missing from the taxonomy",
      reads=frozenset({Reads.TAXONOMY}), needs_root=True)
def meta_tasks_in_taxonomy(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Each entry of ``meta.tasks`` is the ``id`` of a ``tasks`` entry of the taxonomy of
    the same revision: the taxonomy is the vocabulary recipes may use ("every task
    referenced in recipes must be defined here"), and the site's task filter lists only
    the taxonomy's tasks, so a recipe under another name is found under none. The schema
    checks only that each entry is a string, so a pull request that adds a task to the
    taxonomy may use it at once, and one that removes a task is told which recipes still
    name it. A revision whose taxonomy has no ``tasks`` list is not judged.

    Failing::

        meta:
          tasks: [chat]

    Passing::

        meta:
          tasks: [text]

    How to fix: use a task id of ``taxonomy.yaml`` (the hint names the nearest), or add
    the task to the taxonomy in the same change."""
    known = taxonomy_task_ids(ctx)
    if known is None:
        return
    for _, task, pointer in elements(get(doc.data, "meta", "tasks"), "/meta/tasks"):
        if isinstance(task, str) and task not in known:
            yield Hit(pointer, f"task {task!r} is not a task id in taxonomy.yaml "
                               f"(it defines: {', '.join(sorted(known)) or 'none'})",
                      nearest_hint(task, known))
