"""How each vLLM release reads a ``--lora-modules`` value (``LoRAParserAction`` in
``vllm/entrypoints/openai/cli_args.py``; ``entrypoints/launchers/cli_args.py`` in 0.29.0 to
0.32.0, ``entrypoints/common/cli_args.py`` from 0.33.0), read in each release's sdist:

- up to 0.6.1.post2: ``name, path = item.split('=')``: exactly one ``=``, anything else
  raises at argument parsing;
- from 0.6.2: an item with a ``=`` and no ``,`` is ``name=path`` as before; any other item
  is a JSON object of ``LoRAModulePath``'s fields (``name``, ``path``, optionally
  ``base_model_name``), else "Invalid JSON format for --lora-modules" / "Invalid fields";
- from 0.30.0 ``name=path`` splits at the first ``=`` only (a path may hold ``=``).

:func:`lora_module_issues` gives a ``value_type`` issue (``FLAG006`` / ``GUIDE006``) for
each value the plan's minimum refuses, with the first release that reads it when one does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.version import Version

from validator.analysis.cli_plan import VersionPlan, required_vllm, versions
from validator.analysis.flag_values import FlagIssue, value_at
from validator.vllm_cli.parsed_args import ParsedOption, parse_json

JSON_FROM = Version("0.6.2")
"""The first release that reads a JSON object (and skips an empty item)."""
SPLIT_ONCE_FROM = Version("0.30.0")
"""The first release that splits ``name=path`` at the first ``=`` only."""
_FILLED_IN = re.compile(r"[$`<>]")
FIELDS = frozenset({"name", "path", "base_model_name"})
"""``LoRAModulePath``'s fields (``name`` and ``path`` required)."""


def refusal(value: str, version: Version) -> str | None:
    """Why release ``version`` refuses ``--lora-modules`` value ``value`` (``None``: it
    reads it)."""
    if version >= JSON_FROM and value == "":
        return None
    if version < JSON_FROM or ("=" in value and "," not in value):
        parts = value.count("=") + 1
        if parts == 2 or (version >= SPLIT_ONCE_FROM and parts > 2):
            return None
        return ("it is not `name=path` (one `=` between the adapter's name and its path)"
                if parts < 3 else "it holds more than one `=`, which the release cannot "
                "split into a name and a path")
    try:
        found = parse_json(value)
    except ValueError:
        return ("it is neither `name=path` nor a JSON object (\"Invalid JSON format for "
                "--lora-modules\")")
    if not isinstance(found, dict) or not {"name", "path"} <= found.keys() \
            or not found.keys() <= FIELDS:
        return ("its JSON is not an object of `name`, `path` and optionally "
                "`base_model_name` (\"Invalid fields for --lora-modules\")")
    return None


def lora_module_issues(opt: ParsedOption, plan: VersionPlan,
                       literal: tuple[bool, ...] = ()) -> Iterator[FlagIssue]:
    """A ``value_type`` issue for each value of a ``--lora-modules`` option ``opt`` that the
    minimum of ``plan`` refuses. A value someone fills in (``$NAME``, ``<path>``) is not
    judged, unless ``literal`` says it reaches vLLM as written (a ``$`` the site quotes);
    braces are a JSON object's here, not a placeholder's."""
    low = plan.minimum
    if low is None:
        return
    here = Version(low.version)
    name = opt.option or opt.normalised
    for j, (at, value) in enumerate(zip(value_at(opt), opt.values, strict=True)):
        if _FILLED_IN.search(value) and literal[j:j + 1] != (True,):
            continue
        why = refusal(value, here)
        if why is None:
            continue
        later = next((v for v in versions(plan.cli, plan.family) if v > here
                      and refusal(value, v) is None), None)
        if later is None:
            yield FlagIssue("value_type", at, f"`{name} {value}`: vLLM {low.version} refuses "
                            f"it: {why}", "write `name=path` (the adapter's name, `=`, its "
                            "Hugging Face id or local folder)", on_value=True)
            continue
        yield FlagIssue("value_type", at, f"`{name} {value}`: vLLM reads this form only "
                        f"from {later}, but {plan.short_of()} ({why})",
                        f"{plan.raise_to(required_vllm(plan.cli, str(later)))}, or write "
                        "`name=path`", on_value=True, floor=True)
