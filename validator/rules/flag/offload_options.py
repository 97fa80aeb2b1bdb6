"""The ``VLLM_*`` variables a taxonomy KV offload option (``kv_offload.<key>.env``) adds
to the commands of a recipe, judged at that recipe's install range (``FLAG016``).

``check`` renders no KV-offload configuration (:mod:`validator.render.offload`): an
option adds the same ``env`` to every configuration it composes with, so its variables
are judged once per recipe the site offers it to (or that lists it as supported), as a
strategy's environment is, and reported on the recipe line that selects the option (the
``kv_offload_support`` key; the recipe as a whole when the site offers it unlisted). Its
``args`` are judged the same way by the recipe's argument-list model
(:func:`validator.analysis.arg_layers.external_layers`); on the taxonomy itself both are
judged at the newest release (:mod:`validator.rules.flag.context_files`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from validator.analysis.env_verdicts import env_issue
from validator.analysis.install_range import install_range
from validator.analysis.recipe_data import as_dict, get
from validator.findings import Related
from validator.render.offload import offered_to_recipe
from validator.rules.api import Hit
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def option_env_hits(doc: LoadedDocument, ctx: Context, family: str) -> Iterator[Hit]:
    """``FLAG016`` of each ``VLLM_*`` name of the ``env`` of every KV offload option that
    reaches the recipe's commands, judged at the recipe's range for ``family``."""
    tax = ctx.taxonomy
    options = as_dict(get(tax.data if tax is not None and tax.ok else None, "kv_offload"))
    if tax is None or not options:
        return
    listed = as_dict(get(doc.data, "kv_offload_support"))
    reach = [k for k in options if k in listed and listed[k] != "unsupported"]
    reach += [k for k in offered_to_recipe(doc, ctx) if k not in reach]
    plan = install_range(doc, ctx, None, None, family).plan
    for key in reach:
        pointer = join_pointer(join_pointer("/kv_offload", key), "env")
        for name in as_dict(get(options[key], "env")):
            why = env_issue(name, plan) if isinstance(name, str) else None
            if why is not None:
                line = tax.source_map.key_position(join_pointer(pointer, name))[0]
                yield Hit(join_pointer("/kv_offload_support", key) if key in listed else "",
                          f"{tax.path} kv_offload.{key}.env: {why[0]}", why[1],
                          related=(Related(line, name, tax.path),))
