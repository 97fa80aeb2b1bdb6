"""``render --api-out DIR``: the recipes site's static JSON API, built from a recipes tree.

Reimplements the behaviour of the site's build step (``scripts/build-recipes-api.mjs``):
the same files, each field equal to the site's. For every recipe ``models/<org>/<repo>.yaml``
(hf id ``<org>/<repo>``) and every variant promoted to its own hf id (its ``model_id``):

- ``<hf_id>.json``: the recipe as published (``model.install`` synthesised, synthesis-only
  keys dropped) with ``recommended_command``, the rendering on its default hardware plus
  ``alternatives`` and ``by_hardware`` links;
- ``<hf_id>/hw/<hw>.json``: the recommended rendering on each compatible hardware;
- ``<hf_id>/strategies/<s>.json`` (default hardware) and
  ``<hf_id>/hw/<hw>/strategies/<s>.json``: every other strategy's rendering;

and the index files ``models.json``, ``taxonomy.json``, ``platforms.json``,
``strategies.json`` + ``strategies/<s>.json``, ``kv_store.json`` + ``kv_store/<s>.json``,
``quickstart/<hw>.json``. The per-configuration renderings come from
:mod:`validator.render.site`; this module lays them out.

Where the site's build stops with an error (invalid YAML, a feature-mode cross-reference
it rejects, a recipe without ``meta``) we stop too and write nothing; where it skips a
configuration with a warning, we skip it and keep the warning.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.paths import site_hf_id
from validator.render import site
from validator.render.api_inputs import ApiBuildError, read_inputs, read_yaml
from validator.render.api_ledger import ApiLedger, Owner, variant_owner
from validator.render.api_out import ApiOutputError, StagedApiFolder, json_bytes
from validator.render.api_paths import (
    QUICKSTART,
    QUICKSTART_FOLDER_PROBLEM,
    promoted_id,
    quickstart_folder_entries,
    quickstart_missing_problem,
    quickstart_profile,
    quickstart_profile_problem,
    quickstart_value_problem,
)
from validator.render.api_recipe import (
    feature_mode_errors,
    head_ordered,
    js_spread_object,
    promoted_recipe,
    publish_recipe,
)
from validator.render.docker import BASE_CUDA, synthesize_install
from validator.render.gates import list_compatible_hardware, pick_default_hardware
from validator.render.jsval import (
    JsTypeError,
    entries,
    get,
    has_key,
    includes,
    js_str,
    keys,
    or_,
    truthy,
)
from validator.source.tree import LocalTree, RecipeTree
from validator.unit_pool import run_units

_SYNTHESIS_ONLY = ("strategy_overrides", "compatible_strategies", "default_strategy")
"""Recipe keys the site drops from the published recipe (their effect is in the renderings)."""


class ApiInternalError(Exception):
    """Our renderer failed where the site's does not (a bug of ours, not of the recipe)."""


@dataclass
class ApiSummary:
    """What one build wrote.

    Attributes:
        recipes: parent recipe documents written.
        promoted: promoted-variant documents written.
        with_command: recipe documents (parent or promoted) with a ``recommended_command``.
        warnings: configurations the site's build skips, variant promotions it refuses.
        files: files in the written API.
        seconds: wall time of the build and write.
    """

    recipes: int = 0
    promoted: int = 0
    with_command: int = 0
    warnings: list[str] = field(default_factory=list)
    files: int = 0
    seconds: float = 0.0


def _is_omni(recipe: dict[str, Any], path: str) -> bool:
    tasks = or_(get(get(recipe, "meta"), "tasks"), [])
    try:
        return includes(tasks, "omni", "meta.tasks")
    except JsTypeError as exc:
        raise ApiBuildError(path, f"{exc} (meta.tasks must be a list)") from None


def _js_in(key: Any, container: Any, what: str, path: str) -> bool:
    """``key in container`` (throws on a non-object, as in JavaScript)."""
    if isinstance(container, dict):
        return js_str(key) in container
    if isinstance(container, list):
        text = js_str(key)
        return text.isdigit() and int(text) < len(container)
    raise ApiBuildError(path, f"{what} is not a mapping (the site's build stops on it)")


@dataclass
class RecipeOutput:
    """What one recipe adds to the API, in the order the site's build does it: ``ops``
    are ``("write", path, bytes, owner)`` and ``("remove", path, b"", owner)`` (a
    variant's subtree is cleared before it is written), ``owner`` the input the path is
    derived from (the recipe, or a promoted variant's ``model_id``)."""

    ops: list[tuple[str, str, bytes, Owner]] = field(default_factory=list)
    index: list[dict[str, Any]] = field(default_factory=list)
    promoted_index: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    recipes: int = 0
    promoted: int = 0
    with_command: int = 0
    missing_meta: str | None = None

    def write_json(self, rel: str, data: Any, owner: Owner) -> None:
        """Serialise now (later changes to ``data`` must not reach the file)."""
        self.ops.append(("write", rel, json_bytes(data), owner))

    def remove(self, rel: str, owner: Owner) -> None:
        """Clear ``rel`` (file or folder) when replayed."""
        self.ops.append(("remove", rel, b"", owner))


_PARALLEL_MIN_RECIPES = 16
"""Below this many recipes a build renders in one process (start-up would dominate)."""


class _Build:
    """One build into a staged folder; mirrors the site's order of writes and removals.

    Recipes are independent of each other until their files are written, so on a
    multi-core machine they are rendered in worker processes (forked; for trees on disk)
    and their files replayed here in the build's order. Every path is claimed for its
    input first (:class:`~validator.render.api_ledger.ApiLedger`): two inputs on one path
    stop the build before anything is put in place."""

    def __init__(self, tree: RecipeTree, out: StagedApiFolder, only: set[str] | None,
                 cuda: str = BASE_CUDA) -> None:
        self.tree = tree
        self.out = out
        self.only = only
        self.cuda = cuda
        self.summary = ApiSummary()
        self.ledger = ApiLedger()

    def write(self, rel: str, data: Any, owner: Owner) -> None:
        """Claim ``rel`` for ``owner`` and write ``data`` (JSON data, or its bytes)."""
        self.ledger.claim_file(rel, owner)
        self.out.write_bytes(rel, data if isinstance(data, bytes) else json_bytes(data))

    def run(self) -> ApiSummary:
        inputs = read_inputs(self.tree)
        self.write("taxonomy.json", inputs.taxonomy,
                   Owner("taxonomy.yaml", None, "the taxonomy", "taxonomy"))
        if inputs.platforms is not None:
            self.write("platforms.json", inputs.platforms,
                       Owner("platforms.yaml", None, "the platforms", "platforms"))
        strategies: dict[str, Any] = {}
        for path, spec in inputs.serving:
            name = js_str(spec["name"]) if "name" in spec else "undefined"
            strategies[name] = spec
            self.write(f"strategies/{name}.json", spec, Owner(path, None, f"strategy {name}", name))
        self.write("strategies.json", strategies,
                   Owner("strategies/", None, "the index of strategies", "strategies"))
        kv_store: dict[str, Any] = {}
        for path, spec in inputs.kv_store:
            name = js_str(spec["name"]) if "name" in spec else "undefined"
            kv_store[name] = strategies[name] = spec
            self.write(f"kv_store/{name}.json", spec, Owner(path, None, f"kv store {name}", name))
        self.write("kv_store.json", kv_store,
                   Owner("kv_store/", None, "the index of kv stores", "kv_store"))
        all_ids = {f"{o}/{r}" for o, r in filter(None, map(site_hf_id, inputs.recipe_paths))}
        renderer = _RecipeRenderer(self.tree, strategies, inputs.taxonomy, all_ids, self.cuda)
        paths = [p for p in inputs.recipe_paths if self.only is None or p in self.only]
        index: list[dict[str, Any]] = []
        promoted_index: list[dict[str, Any]] = []
        missing_meta: list[str] = []
        for output in self._outputs(renderer, paths):
            for op, rel, data, owner in output.ops:
                if op == "remove":
                    self.ledger.claim_removal(rel, owner)
                    self.out.remove(rel)
                else:
                    self.write(rel, data, owner)
            index += output.index
            promoted_index += output.promoted_index
            self.summary.warnings += output.warnings
            self.summary.recipes += output.recipes
            self.summary.promoted += output.promoted
            self.summary.with_command += output.with_command
            missing_meta += filter(None, [output.missing_meta])
        if missing_meta:
            raise ApiBuildError(missing_meta[0], "no `meta`: the site's build stops when it "
                                "lists the recipe in models.json")
        self.write("models.json", index + promoted_index,
                   Owner("models/", None, "the index of recipes", "models"))
        for entry in quickstart_folder_entries(self.tree.list(QUICKSTART)):
            raise ApiOutputError(f"{entry}: REF028: {QUICKSTART_FOLDER_PROBLEM}; refused")
        for path, quick in inputs.quickstart:
            hardware = quickstart_profile(quick)
            missing = quickstart_missing_problem(quick)
            if missing is not None or hardware is None:
                raise ApiOutputError(f"{path}: REF028: {missing}; refused")
            problem = quickstart_value_problem(quick) or quickstart_profile_problem(hardware)
            if problem is not None:
                raise ApiOutputError(f"{path}: REF028: hardware_profile {hardware!r} {problem}"
                                     "; refused")
            self.write(f"quickstart/{hardware}.json", quick,
                       Owner(path, None, f"the quickstart of {hardware}", hardware))
        return self.summary

    def _outputs(self, renderer: _RecipeRenderer, paths: list[str]) -> Iterator[RecipeOutput]:
        """Each recipe's output in the build's order; stops at the first that fails."""
        import multiprocessing  # here: a check of one file never loads it (start-up time)

        jobs = min(os.cpu_count() or 1, 4)
        if (jobs < 2 or len(paths) < _PARALLEL_MIN_RECIPES
                or not isinstance(self.tree, LocalTree)
                or "fork" not in multiprocessing.get_all_start_methods()):
            yield from map(renderer.render, paths)
            return
        # forked workers inherit the renderer (no state of this module is set for them)
        for output in run_units(renderer.render_or_error, paths, jobs):
            if isinstance(output, BaseException):
                raise output
            yield output


class _RecipeRenderer:
    """Renders one recipe's files (see :class:`RecipeOutput`)."""

    def __init__(self, tree: RecipeTree, strategies: dict[str, Any], taxonomy: Any,
                 all_ids: set[str], cuda: str = BASE_CUDA) -> None:
        self.tree = tree
        self.cuda = cuda
        self.strategies = strategies
        self.taxonomy = taxonomy
        self.all_ids = all_ids
        self.out = RecipeOutput()

    def render(self, path: str) -> RecipeOutput:
        """The output of the recipe at ``path``.

        Raises:
            ApiBuildError: the site's build stops on this recipe.
            ApiInternalError: our renderer failed on it (a bug).
        """
        self.out = RecipeOutput()
        try:
            self.recipe(path)
        except (ApiBuildError, ApiOutputError, OSError):
            raise
        except Exception as exc:  # a bug of ours: say where, never a traceback
            raise ApiInternalError(f"{path}: internal error while rendering it "
                                   f"({type(exc).__name__}: {exc}); this is a bug "
                                   "of recipe-check, please report it") from exc
        return self.out

    def render_or_error(self, path: str) -> RecipeOutput | Exception:
        """:meth:`render`, with what it raises returned (a worker's result travels back)."""
        try:
            return self.render(path)
        except Exception as exc:
            return exc

    def recipe(self, path: str) -> None:
        recipe, source_map = read_yaml(self.tree, path)
        problems = feature_mode_errors(recipe)
        if problems:
            pointer, _ = problems[0]
            line = source_map.key_position(pointer)[0]
            raise ApiBuildError(path, "the site's build rejects its feature modes: "
                                + "; ".join(m for _, m in problems), line)
        ident = site_hf_id(path)
        org, repo = ident or ("", "")
        if ident:
            recipe["hf_id"] = f"{org}/{repo}"
        publish_recipe(recipe, synthesize_install(recipe, self.cuda))
        parent_id = f"{org}/{repo}"
        parent = Owner(path, None, f"the recipe {parent_id}", parent_id)
        default = self.variant(recipe, "default", parent_id, path, parent)
        if default is not None:
            recipe["recommended_command"] = default
        promoted: list[tuple[str, str, dict[str, Any], Owner]] = []
        for key, config in entries(or_(recipe.get("variants"), {})):
            model_id = promoted_id(get(config, "model_id"))
            if model_id is None:
                continue
            owner = variant_owner(path, key, model_id, source_map)
            if model_id in self.all_ids:
                self.out.warnings.append(
                    f"{path}: variant {key} is not promoted to {model_id}: a recipe of that "
                    "id exists")
                continue
            rendering = self.variant(recipe, key, model_id, path, owner)
            if rendering is not None:
                promoted.append((key, model_id, rendering, owner))
        variants = recipe.get("variants")
        if truthy(variants):
            for key, model_id, _, _ in promoted:
                slot: Any = int(key) if isinstance(variants, list) else key
                variants[slot] = {**js_spread_object(variants[slot]),
                                  "json": f"/{model_id}.json"}
        for key in _SYNTHESIS_ONLY:
            recipe.pop(key, None)
        document = head_ordered(recipe)
        self.out.write_json(f"{parent_id}.json", document, parent)
        self.out.recipes += 1
        self.out.with_command += "recommended_command" in document
        meta = recipe.get("meta")
        if meta is None:  # the site fails on it when it writes models.json, after the loop
            self.out.missing_meta = path
        entry = {"hf_id": recipe.get("hf_id"), **_defined(meta, "title", "provider"),
                 "url": f"/{js_str(recipe.get('hf_id', 'undefined'))}",
                 "json": f"/{js_str(recipe.get('hf_id', 'undefined'))}.json"}
        self.out.index.append(entry if ident else {k: v for k, v in entry.items() if k != "hf_id"})
        for key, model_id, rendering, owner in promoted:
            doc = promoted_recipe(recipe, key, model_id, parent_id, rendering)
            self.out.write_json(f"{model_id}.json", doc, owner)
            self.out.promoted_index.append({
                "hf_id": model_id, **_defined(doc["meta"], "title", "provider"),
                "url": f"/{parent_id}", "json": f"/{model_id}.json", "derived_from": parent_id})
            self.out.promoted += 1
            self.out.with_command += 1

    def variant(self, recipe: dict[str, Any], variant_key: str, base: str,
                path: str, owner: Owner) -> dict[str, Any] | None:
        """Write one variant's hardware x strategy files under ``base`` for ``owner``;
        return the ``recommended_command`` of its recipe document (``None``: not
        renderable)."""
        variant = get(get(recipe, "variants"), variant_key)
        if not truthy(variant) or _is_omni(recipe, path):
            return None
        # the site clears the subtree so that targets dropped since an earlier build go
        self.out.remove(base, owner)
        profiles = or_(get(self.taxonomy, "hardware_profiles"), {})
        try:
            default_hw = pick_default_hardware(profiles, variant, recipe)
            compatible = list_compatible_hardware(profiles, variant, recipe)
        except JsTypeError as exc:
            raise ApiBuildError(path, f"{exc} (the site's build stops here)") from None
        declared = or_(get(get(recipe, "meta"), "hardware"), {})
        hw_ids = list(dict.fromkeys([default_hw, *(
            hw for hw in compatible
            if not truthy(get(get(profiles, hw), "restricted"))
            or _js_in(hw, declared, "meta.hardware", path))]))
        rendered: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        for hw in hw_ids:
            built = self.rendering(recipe, variant_key, hw, path)
            if built is not None:
                rendered[js_str(hw)] = built
        if js_str(default_hw) not in rendered:
            return None
        by_hardware: dict[str, str] = {}
        for hw in keys(rendered):
            recommended, alternatives = rendered[hw]
            folder = f"{base}/strategies" if hw == js_str(default_hw) \
                else f"{base}/hw/{hw}/strategies"
            links: dict[str, str] = {}
            for strategy in keys(alternatives):
                self.out.write_json(f"{folder}/{strategy}.json", alternatives[strategy],
                                    owner)
                links[strategy] = f"/{folder}/{strategy}.json"
            if links:
                recommended["alternatives"] = links
            self.out.write_json(f"{base}/hw/{hw}.json", recommended, owner)
            by_hardware[hw] = f"/{base}/hw/{hw}.json"
        return {**rendered[js_str(default_hw)][0], "by_hardware": by_hardware}

    def rendering(self, recipe: dict[str, Any], variant_key: str, hw: Any,
                  path: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The recommended rendering (with the strategy and hardware specs it used) and
        the alternatives of one (variant, hardware); ``None`` when the site renders none."""
        try:
            plan = site.plan_variant(recipe, variant_key, hw, self.strategies, self.taxonomy)
        except JsTypeError as exc:
            raise ApiBuildError(path, f"{exc} (the site's build stops here)") from None
        if plan is None:
            return None
        recommended: dict[str, Any] | None = None
        alternatives: dict[str, Any] = {}
        for planned in plan.configurations:
            out = site.site_rendering(recipe, plan.variant, planned.strategy, hw, planned.nodes,
                                      list(planned.features), self.strategies, self.taxonomy,
                                      planned.pd_nodes, planned.kv_offload, cuda=self.cuda)
            if out is not None:
                out = _json_rendering(out)
            if out is None:
                self.out.warnings.append(
                    f"{path}: the site's command synthesis fails for {plan.variant} / "
                    f"{planned.strategy} on {js_str(hw)}; that configuration is not written")
                if planned.recommended:
                    return None
                continue
            if planned.recommended:
                if has_key(self.strategies, planned.strategy):
                    out["strategy_spec"] = self.strategies[planned.strategy]
                out["hardware_profile"] = or_(get(get(self.taxonomy, "hardware_profiles"), hw),
                                              {})
                recommended = out
            else:
                alternatives[planned.key] = out
        return (recommended, alternatives) if recommended is not None else None


_UNDEFINED_AS_NONE = ("docker_image", "vllm_docker_command", "vllm_docker_argv")
"""Rendering keys where :func:`validator.render.site.site_rendering` gives ``None`` for a
JavaScript ``undefined``, a key ``JSON.stringify`` leaves out."""


def _json_rendering(out: dict[str, Any]) -> dict[str, Any]:
    for key in _UNDEFINED_AS_NONE:
        if key in out and out[key] is None:
            del out[key]
    return out


def _defined(obj: Any, *names: str) -> dict[str, Any]:
    """``{name: obj.name}`` for the names ``obj`` has (JSON drops undefined properties)."""
    return {name: obj[name] for name in names if has_key(obj, name)}


def build_api(tree: RecipeTree, out_dir: Path, recipe_paths: list[str] | None = None,
              cuda: str = BASE_CUDA) -> ApiSummary:
    """Build the API of ``tree`` into ``out_dir`` (replaced whole; see
    :mod:`validator.render.api_out`). ``recipe_paths``: only the recipes among these paths
    (``models/...``; when none is a recipe, as for the tree's root: every recipe). The
    index files are always written; ``models.json`` then lists the recipes written.
    ``cuda``: the CUDA build of the NVIDIA images (the site's build writes
    :data:`~validator.render.docker.BASE_CUDA`; ``cu129`` writes what its record page shows
    with that build picked).

    Raises:
        ApiBuildError: the site's build would fail on this tree; nothing is written.
        ApiOutputError: ``out_dir`` cannot be replaced or written; nothing is written.
    """
    start = time.perf_counter()
    recipes = {p for p in recipe_paths or () if p.startswith("models/")}
    with StagedApiFolder(out_dir) as out:
        summary = _Build(tree, out, recipes or None, cuda).run()
        summary.files = out.file_count()
        out.commit()
    summary.seconds = time.perf_counter() - start
    return summary


def write_api(out_dir: Path, tree: RecipeTree, recipe_paths: list[str],
              cuda: str = BASE_CUDA) -> int:
    """The ``--api-out DIR`` step of ``recipe-check render``: build, print a summary (or
    the problem) on stderr, return the exit code (0 written, 1 the site's build would
    fail on this tree, 2 the folder cannot be written or our renderer failed)."""
    try:
        summary = build_api(tree, out_dir, recipe_paths, cuda)
    except ApiBuildError as exc:
        print(f"recipe-check: render --api-out: {exc}; nothing written to {out_dir}",
              file=sys.stderr)
        return 1
    except (ApiOutputError, ApiInternalError, OSError) as exc:
        print(f"recipe-check: render --api-out: {exc}; nothing written to {out_dir}",
              file=sys.stderr)
        return 2
    for warning in summary.warnings:
        print(f"recipe-check: warning: {warning}", file=sys.stderr)
    print(f"API written to {out_dir}: {summary.files} files, {summary.recipes} recipes, "
          f"{summary.promoted} promoted variants, {summary.with_command} with a "
          f"recommended command ({summary.seconds:.1f} s)", file=sys.stderr)
    return 0
