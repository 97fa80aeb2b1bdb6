"""``GUIDE``: the ``vllm serve`` commands written in the markdown ``guide``.

``facts.py`` holds the shared model the rules read (the guide's commands, found and
checked once per document): the continuation and fence rules read the parse alone; the
flag rules read the issues :data:`~validator.rules.guide.facts.ISSUE_RULE` maps to them;
``GUIDE008``-``GUIDE012`` keep their own logic in their modules. Every finding points at
the guide line (``Hit(block_index=...)`` -> ``SourceMap.block_line``). ``line_edits.py``
holds what the family's fixes share.
"""
