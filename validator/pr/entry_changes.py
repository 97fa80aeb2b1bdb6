"""What a change did to the entries recipes name by id: the taxonomy's sections
(hardware profiles and the brand/generation groups they belong to, tasks, strategies,
KV-offload options) and ``platforms.yaml``'s platforms, each an :class:`EntryChange`
that :mod:`validator.pr.select` turns into the recipes to check again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from validator.context import PLATFORMS, TAXONOMY
from validator.load import load_yaml
from validator.source.tree import RecipeTree, SourceError

SECTION_KINDS = {
    "hardware_profiles": "hardware profile",
    "tasks": "task",
    "strategies": "strategy",
    "kv_offload": "KV offload option",
    "kv_offload_groups": "KV offload group",
}
"""Taxonomy top-level section -> what one of its entries is called in reasons."""

@dataclass(frozen=True)
class EntryChange:
    """A taxonomy/strategy entry that changed or disappeared.

    Attributes:
        kind: ``hardware profile``, ``strategy``, ``task``, ``hardware group`` ...
        name: the id recipes use (``h100``, ``single_node_tp``, ``hopper``).
        change: ``changed``, ``removed`` or ``added`` (added entries select no recipe;
            they are listed to describe the change).
        source: the file it is defined in (``taxonomy.yaml``, ``strategies/x.yaml``).
        fields: for a changed mapping entry, the keys whose values differ.
    """

    kind: str
    name: str
    change: str
    source: str
    fields: tuple[str, ...] = ()

    def describe(self) -> str:
        """``"hardware profile 'h100' (changed in taxonomy.yaml: vram_gb)"``."""
        what = f": {', '.join(self.fields)}" if self.fields else ""
        return f"{self.kind} {self.name!r} ({self.change} in {self.source}{what})"


def load_data(tree: RecipeTree | None, path: str) -> tuple[bool, Any]:
    """``(present, data)``; data is ``None`` when absent or not loadable."""
    if tree is None or not tree.exists(path):
        return False, None
    try:
        doc = load_yaml(tree.read(path), path)
    except (SourceError, FileNotFoundError):
        return True, None
    return True, doc.data if doc.ok else None


def taxonomy_entries(data: Any) -> dict[tuple[str, str], Any]:
    """``(section, id) -> value`` for every entry of a taxonomy's data: keys of mapping
    sections, ``id`` of list items that are mappings, and scalar list items."""
    out: dict[tuple[str, str], Any] = {}
    if not isinstance(data, dict):
        return out
    for section, value in data.items():
        if isinstance(value, dict):
            for key, item in value.items():
                out[(str(section), str(key))] = item
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    out[(str(section), item["id"])] = item
                elif isinstance(item, str | int | float | bool):
                    out[(str(section), str(item))] = True
    return out


def _groups(profile: Any) -> set[str]:
    if not isinstance(profile, dict):
        return set()
    return {v.lower() for k in ("brand", "generation")
            if isinstance(v := profile.get(k), str) and v}


def changed_fields(old: Any, new: Any) -> tuple[str, ...]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return ()
    return tuple(sorted(str(k) for k in old.keys() | new.keys() if old.get(k) != new.get(k)))


def taxonomy_changes(base: RecipeTree, head: RecipeTree) -> list[EntryChange]:
    """Entries of ``taxonomy.yaml`` changed, removed or added from ``base`` to ``head``.

    A hardware profile that is removed or changes brand/generation also changes the
    brand/generation groups it belonged to (recipes key ``hardware_overrides`` by them).
    An unloadable base taxonomy makes every head entry count as changed; an unloadable
    head taxonomy yields nothing (the taxonomy's own findings say why).
    """
    base_present, base_data = load_data(base, TAXONOMY)
    head_present, head_data = load_data(head, TAXONOMY)
    if head_present and head_data is None:
        return []
    old = taxonomy_entries(base_data)
    new = taxonomy_entries(head_data)
    if base_present and base_data is None:
        old = {k: object() for k in new}  # every entry differs
    out: list[EntryChange] = []
    groups: set[str] = set()
    for key in sorted(old):
        section, name = key
        kind = SECTION_KINDS.get(section, f"{section} entry")
        if key not in new:
            out.append(EntryChange(kind, name, "removed", TAXONOMY))
        elif new[key] != old[key]:
            out.append(EntryChange(kind, name, "changed", TAXONOMY,
                                   changed_fields(old[key], new[key])))
        else:
            continue
        if section == "hardware_profiles":
            before, after = _groups(old[key]), _groups(new.get(key))
            if before != after:
                groups |= before | after
    out += [EntryChange("hardware group", g, "changed", TAXONOMY) for g in sorted(groups)]
    out += [EntryChange(SECTION_KINDS.get(section, f"{section} entry"), name, "added", TAXONOMY)
            for section, name in sorted(new.keys() - old.keys())]
    return out


def _platforms(tree: RecipeTree) -> dict[str, Any]:
    """``platforms.yaml``'s entries by ``id`` (empty when absent or unreadable)."""
    _present, data = load_data(tree, PLATFORMS)
    listed = data.get("platforms") if isinstance(data, dict) else None
    return {e["id"]: e for e in listed if isinstance(e, dict) and isinstance(e.get("id"), str)
            } if isinstance(listed, list) else {}


def platform_changes(base: RecipeTree, head: RecipeTree) -> list[EntryChange]:
    """The platforms of ``platforms.yaml`` a change removed (renamed), changed or added,
    by ``id``: a recipe's ``meta.platforms`` names them (``REF026``)."""
    old, new = _platforms(base), _platforms(head)
    out = [EntryChange("platform", pid, "removed", PLATFORMS) for pid in old if pid not in new]
    out += [EntryChange("platform", pid, "changed", PLATFORMS,
                        changed_fields(old[pid], new[pid]))
            for pid in old if pid in new and old[pid] != new[pid]]
    return out + [EntryChange("platform", pid, "added", PLATFORMS)
                  for pid in new if pid not in old]
