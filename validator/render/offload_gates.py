"""The site's gates on a taxonomy ``kv_offload`` option (the KV-offload row of its
picker): which strategies, recipes and hardware brands may offer it. Shared by the
renderer (:mod:`validator.render.offload`, :mod:`validator.render.synthesis`) and ``pr``'s
affected-recipe analysis."""

from __future__ import annotations

from typing import Any

from validator.render import jsval
from validator.render.jsval import get, truthy


def kv_offload_allowed(option: Any, strategy_name: str, strategy: Any) -> bool:
    """KV-offload option gate by strategy (never under pd_cluster / kv_store_lb)."""
    if not truthy(option):
        return False
    if get(strategy, "deploy_type") in ("pd_cluster", "kv_store_lb"):
        return False
    allow = get(option, "strategies")
    return not isinstance(allow, list) or not allow or jsval.in_list(allow, strategy_name)


def kv_offload_supported_for_recipe(option: Any, key: str, recipe: Any) -> bool:
    """Recipe gate: ``kv_offload_support`` opt-out, or opt-in for ``requires_opt_in``."""
    if not truthy(option):
        return False
    support = get(get(recipe, "kv_offload_support"), key)
    if support == "unsupported":
        return False
    return support == "verified" if truthy(get(option, "requires_opt_in")) else True


def kv_offload_brand_supported(option: Any, profile: Any) -> bool:
    """Option ``brands`` allow-list."""
    allow = get(option, "brands")
    if not isinstance(allow, list) or not allow:
        return True
    return jsval.in_list(allow, get(profile, "brand"))
