"""What a change to a recipe changes for its users: rendered commands per configuration,
docker images and install commands, and the facts a reader of the recipe page relies on
(minimum vLLM version, variants, hardware claims, features on by default).

Each side is a loaded recipe with the taxonomy and strategies of its own revision; the
commands are rendered as the recipes site renders them (:mod:`validator.render.renderer`).
A configuration is matched across the two sides by hardware, variant, strategy, node count
and feature set (the site's default set, or the named set), so a change of one flag shows
as ``h200 · default · single_node_tp: + --max-num-seqs 32``. Configurations whose change
is the same are listed together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.analysis.recipe_data import as_dict, get
from validator.evidence.facts import default_features, default_variant_name
from validator.load import LoadedDocument, load_yaml
from validator.render.args import shell_quote
from validator.render.renderer import CONFIGURATION_LIMIT, Rendered, render_all

ConfigKey = tuple[str, str, str, int, str]
"""(hardware, variant, strategy or kv-store id, nodes, feature set)."""


@dataclass(frozen=True)
class Side:
    """One side of a diff: the recipe and the context of its revision."""

    label: str
    recipe: LoadedDocument
    taxonomy: LoadedDocument | None
    strategies: Mapping[str, LoadedDocument]
    absent: bool = False
    """The revision has no recipe at the path: :attr:`recipe` is an empty one."""


def absent_side(label: str, path: str, taxonomy: LoadedDocument | None,
                strategies: Mapping[str, LoadedDocument]) -> Side:
    """The side of a revision that has no recipe at ``path`` (added or deleted there):
    an empty recipe, so every fact and configuration of the other side shows as new or
    gone."""
    return Side(f"{label} (absent)", load_yaml(b"{}", path), taxonomy, strategies,
                absent=True)


@dataclass(frozen=True)
class FactChange:
    """A fact that differs: ``what`` (``"minimum vLLM"``), old and new text (``None``:
    absent on that side)."""

    what: str
    old: str | None
    new: str | None

    def text(self) -> str:
        """``minimum vLLM: 0.10.0 → 0.11.0`` (``+``/``-`` for one-sided)."""
        if self.old is None:
            return f"{self.what}: + {self.new}"
        if self.new is None:
            return f"{self.what}: - {self.old}"
        return f"{self.what}: {self.old} → {self.new}"


@dataclass
class RecipeDiff:
    """The difference between two sides (empty lists: nothing changes for users)."""

    old: str
    new: str
    facts: list[FactChange] = field(default_factory=list)
    configs: dict[str, list[str]] = field(default_factory=dict)
    """configuration label -> change lines (``+ --flag v``, ``- --flag``, ``added``...)."""
    compared: int = 0
    problems: list[str] = field(default_factory=list)
    added: bool = False
    """The old side has no recipe at the path (:func:`absent_side`): a new recipe."""

    @property
    def changed(self) -> bool:
        """Whether anything differs."""
        return bool(self.facts or self.configs or self.problems)

    def grouped(self) -> list[tuple[list[str], list[str]]]:
        """``(labels, change lines)`` with configurations of equal changes together, in
        the order of their first configuration."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for label, lines in self.configs.items():
            groups.setdefault(tuple(lines), []).append(label)
        return [(labels, list(lines)) for lines, labels in groups.items()]

    def lines(self, max_labels: int = 2) -> list[str]:
        """The diff as text lines: facts, then one line per group of configurations
        (``h200 · default · single_node_tp: + --max-num-seqs 32``; a group of more than
        ``max_labels`` starts with its size)."""
        out = [f.text() for f in self.facts] + list(self.problems)
        for labels, changes in self.grouped():
            shown = ", ".join(labels[:max_labels])
            if len(labels) > max_labels:
                shown = (f"{len(labels)} configurations ({shown} and "
                         f"{len(labels) - max_labels} more)")
            out.append(f"{shown}: {'; '.join(changes)}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``old``, ``new``, ``facts`` (what/old/new), ``configurations``
        (label -> change lines), ``compared`` (configurations on both sides)."""
        return {"old": self.old, "new": self.new,
                "facts": [{"what": f.what, "old": f.old, "new": f.new} for f in self.facts],
                "configurations": self.configs, "compared": self.compared,
                "problems": self.problems}


def facts(doc: LoadedDocument) -> dict[str, str]:
    """The facts compared, as text per name (absent facts left out)."""
    data = doc.data if doc.ok else {}
    out: dict[str, str] = {}
    if get(data, "model", "min_vllm_version") is not None:
        out["minimum vLLM"] = str(get(data, "model", "min_vllm_version"))
    variants = as_dict(get(data, "variants"))
    for name, variant in variants.items():
        v = as_dict(variant)
        if v.get("min_vllm_version") is not None:
            out[f"minimum vLLM of variant {name}"] = str(v["min_vllm_version"])
        for key in ("precision", "vram_minimum_gb", "model_id"):
            if v.get(key) is not None:
                out[f"variant {name} {key}"] = str(v[key])
    out["variants"] = ", ".join(map(str, variants)) or "(none)"
    for hw, status in as_dict(get(data, "meta", "hardware")).items():
        out[f"hardware claim {hw}"] = str(status)
    on, _ = default_features(data, default_variant_name(data))
    out["features on by default"] = ", ".join(on) or "(none)"
    return out


def diff_facts(old: Mapping[str, str], new: Mapping[str, str]) -> list[FactChange]:
    """Facts that differ, in the new side's order, then those only the old side has."""
    out = [FactChange(k, old.get(k), v) for k, v in new.items() if old.get(k) != v]
    return out + [FactChange(k, v, None) for k, v in old.items() if k not in new]


def options(argv: Sequence[Any]) -> list[str]:
    """``argv`` as option groups: each ``--flag`` with the values after it; the leading
    words (``vllm serve MODEL``) as one group. Each word is printed as the site and
    ``render`` print it: only the value right after a flag is shell-quoted (the site's
    ``shellQuote``); a flag, the model id and any other item are printed as written."""
    words = [str(a) for a in argv]
    groups: list[list[str]] = [[]]
    for word in words:
        if word.startswith("-") and len(word) > 1 and groups[-1]:
            groups.append([word])
        else:
            groups[-1].append(word)
    return [" ".join(str(shell_quote(w)) if i == 1 and g[0].startswith("-") else w
                     for i, w in enumerate(g)) for g in groups if g]


def _set_key(r: Rendered, default: bool) -> ConfigKey:
    c = r.config
    kind = "default" if default else "features: " + ", ".join(
        list(c.features) + [f"{f}={m}" for f, m in c.feature_modes])
    return (c.hardware, c.variant, c.key, c.nodes, kind)


def _label(key: ConfigKey) -> str:
    hardware, variant, strategy, nodes, kind = key
    label = " · ".join([hardware, variant, strategy + (f" ×{nodes}" if nodes != 1 else "")])
    return label if kind == "default" else f"{label} ({kind})"


def by_configuration(rendered: Iterable[Rendered]) -> dict[ConfigKey, Rendered]:
    """Renderings keyed by :data:`ConfigKey`; the first of each (hardware, variant,
    strategy, nodes) is the site's default feature set."""
    out: dict[ConfigKey, Rendered] = {}
    seen: set[tuple[str, str, str, int]] = set()
    for r in rendered:
        base = (r.config.hardware, r.config.variant, r.config.key, r.config.nodes)
        key = _set_key(r, base not in seen)
        seen.add(base)
        out.setdefault(key, r)
    return out


def _parts(r: Rendered) -> Counter[str]:
    """What a user sees of one rendering, as comparable items."""
    items: Counter[str] = Counter()
    if not r.ok:
        items["(the site cannot render this configuration)"] += 1
        return items
    multi = len(r.processes) > 1
    for p in r.processes:
        role = f"{p.role}: " if multi else ""
        items.update(role + o for o in options(p.argv))
        items.update(f"{role}env {k}={v}" for k, v in p.env.items())
    items[f"image {r.docker_image}"] += 1
    items[f"nodes {r.node_count}"] += 1
    return items


def diff_renderings(old: Mapping[ConfigKey, Rendered], new: Mapping[ConfigKey, Rendered]
                    ) -> dict[str, list[str]]:
    """Change lines per configuration label (``added``/``removed`` for one-sided)."""
    out: dict[str, list[str]] = {}
    for key, r in new.items():
        if key not in old:
            out[_label(key)] = ["added"]
            continue
        before, after = _parts(old[key]), _parts(r)
        lines = [f"- {item}" for item in (before - after).elements()]
        lines += [f"+ {item}" for item in (after - before).elements()]
        if lines:
            out[_label(key)] = lines
    for key in old:
        if key not in new:
            out[_label(key)] = ["removed"]
    return out


def install_facts(rendered: Iterable[Rendered]) -> dict[str, str]:
    """The install commands (pip and docker) of the recipe, from its first rendering."""
    for r in rendered:
        if r.install:
            return {f"install ({kind})": " && ".join(str(get(v, "command")).splitlines())
                    for kind, v in r.install.items() if isinstance(v, dict)}
    return {}


def diff_recipes(old: Side, new: Side, *, feature_sets: bool = True) -> RecipeDiff:
    """What changes for users from ``old`` to ``new`` (see the module docstring)."""
    result = RecipeDiff(old.label, new.label, added=old.absent)
    broken = [side for side in (old, new) if not side.recipe.ok]
    for side in broken:
        first = side.recipe.findings[0] if side.recipe.findings else None
        why = (f" ({first.rule} at line {first.line}: {first.message})" if first else "")
        problem = f"{side.label} cannot be loaded{why}; nothing is compared"
        if problem not in result.problems:  # `diff A A`: said once
            result.problems.append(problem)
    if broken:
        return result
    before = render_all(old.recipe, old.taxonomy, old.strategies, feature_sets=feature_sets)
    after = render_all(new.recipe, new.taxonomy, new.strategies, feature_sets=feature_sets)
    for side, rendered in ((old, before), (new, after)):
        limit = [p for p in (rendered[-1].problems if rendered else ())
                 if p.code == CONFIGURATION_LIMIT]  # render_all's last: a marker, no config
        if limit:
            rendered.pop()
            result.problems.append(f"{side.label}: {limit[0].message}; the configurations "
                                   "past those are not compared")
    result.facts = diff_facts({**facts(old.recipe), **install_facts(before)},
                              {**facts(new.recipe), **install_facts(after)})
    old_keys, new_keys = by_configuration(before), by_configuration(after)
    result.compared = len(set(old_keys) & set(new_keys))
    result.configs = diff_renderings(old_keys, new_keys)
    return result
