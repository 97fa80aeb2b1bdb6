"""``FLAG``: every ``vllm serve`` argument a recipe declares, against the real vLLM CLI.

The structured argument lists of a recipe (``model.base_args``, feature and mode
``args``, variant ``extra_args``, hardware and strategy overrides, PD role ``vllm_args``,
kv-offload options) are parsed with the model of vLLM's parser in
:mod:`validator.vllm_cli.argv`, against the vendored CLI registry
(:mod:`validator.vllm_cli.registry`, built from each release's own ``make_arg_parser``) of
the recipe's *effective minimum* vLLM version (errors) and of the newest vendored release
(warnings about what has been removed since).

``facts.py`` holds the shared model the rules read (built once per document:
:data:`~validator.rules.flag.facts.ISSUE_RULE` maps every issue code of the engine to its
rule); every other module holds one rule or a tight group of rules, with its fix. The
rules that combine lists are in ``combined_lists.py``, the ``VLLM_*`` variables in
``environment_variables.py``; the context files' own lists are
judged by ``context_files.py``. The domain code the family shares with ``GUIDE`` and
``REF`` is in :mod:`validator.analysis` (``arg_layers``: which lists exist, which CLI
serves each; ``cli_plan``: which registry a list is checked against; ``flag_engine``:
one list against one registry).
"""
