"""``recipe-check render PATH|SPEC``: the commands the recipes site shows for a recipe.

PATH is a recipe inside a recipes checkout (the root is found as ``check`` finds it, or
``--root``); SPEC a pinned ``OWNER/REPO@REV:PATH``. Each part of the configuration not given
(``--hardware --variant --strategy --features --nodes``) is defaulted the way the site
defaults it. Text output is what a user pastes: install, ``vllm serve``, ``docker run``
and environment, per process of the deployment; ``--format json`` prints the rendering
with the token provenance; ``--all`` renders every compatible configuration.
``--api-out DIR`` writes the site's static JSON API instead
(:func:`validator.render.api.write_api`).

A configuration the site cannot render, or renders broken (unknown hardware, missing
strategy, a value that cannot be rendered) is reported as ``path:line:col: severity:
message`` on stderr and the exit code is 1. Usage and input errors exit 2, among them a
choice the recipe does not know or the page would not let a user make (an unknown
``--mode``, a mode of a feature that is off or not offered on the variant and hardware).
A configuration the page does not offer (hardware outside the variant's picker, a
strategy or node count it does not offer there) is still rendered, as the site's builder
would render it if forced, with one ``# note:`` line per reason under the text header
and ``"offered": false`` with ``"reasons"`` in JSON; ``--all`` leaves such configurations
out (it lists what the site renders).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from validator.commands.check import collect_targets, positive_int
from validator.commands.options import chosen_format
from validator.commands.output_guard import refuse_api_folder
from validator.commands.render_text import text_block
from validator.context import Context, build_context
from validator.errors import RecipeCheckError, UsageError
from validator.findings import printable
from validator.load import LoadedDocument, load_yaml
from validator.paths import option_path
from validator.render import gates
from validator.render.api_paths import promoted_id, promoted_id_problem
from validator.render.docker import BASE_CUDA, CUDA_BUILDS
from validator.render.jsval import get
from validator.render.offered import (
    Inputs,
    every_offered,
    feature_labels,
    offer_reasons,
    rendering_json,
    renderings_text,
)
from validator.render.omni import is_omni
from validator.render.problems import RenderProblem, selection_problems
from validator.render.renderer import (
    Configuration,
    Rendered,
    document_data,
    render,
    site_strategies,
)
from validator.source.options import add_fetch_arguments
from validator.source.tree import LocalTree, RecipeTree
from validator.sourcemap import join_pointer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``render``."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="recipe file inside a recipes checkout, or OWNER/REPO@REV:PATH")
    parser.add_argument("--root", type=option_path, metavar="DIR",
                        help="recipes root (default: walk up from PATH)")
    parser.add_argument("--hardware", metavar="HW", help="hardware profile id (default: the "
                        "site's landing hardware for the variant)")
    parser.add_argument("--variant", metavar="KEY", help="variant key (default: default)")
    parser.add_argument("--strategy", metavar="NAME",
                        help="strategy or kv-store deployment (default: the site's pick)")
    parser.add_argument("--features", metavar="A,B",
                        help="comma-separated features to enable ('' or 'none': none; "
                        "default: every feature not opt-in)")
    parser.add_argument("--mode", action="append", default=[], metavar="FEATURE=MODE",
                        help="mode of a modal feature (repeatable)")
    parser.add_argument("--task", metavar="ID",
                        help="vLLM-Omni recipes: the omni.tasks entry whose model/args apply")
    parser.add_argument("--nodes", type=_node_count, metavar="N",
                        help="node count, 1 to "
                        f"{gates.RENDER_MAX_NODES} (default: the site's for the strategy; "
                        f"the site's Nodes row stops at {gates.MAX_NODES})")
    parser.add_argument("--cuda", choices=CUDA_BUILDS, default=BASE_CUDA,
                        help="CUDA build of the NVIDIA images, as the recipes site's record "
                             "page lets the reader choose: the cu129 entry of an image given "
                             "as a CUDA map ({cu129: ..., cu130: ...}), else the plain tag "
                             "with -cu129 (:cu129-nightly for an upstream :nightly), and "
                             "nightly wheels of that build; also with --all and --api-out "
                             f"(default: {BASE_CUDA}, the build the site's JSON API shows)")
    parser.add_argument("--all", action="store_true",
                        help="every configuration the site renders (all variants, hardware, "
                        "strategies, and every feature on), and each with every KV offload "
                        "option the site offers beside it")
    parser.add_argument("--format", action="append", choices=("text", "json"), default=[],
                        help="format written to stdout (text: each configuration's commands "
                             "as the site shows them; json: one object per configuration with "
                             "its argv, env, docker form and problems; default: text)")
    parser.add_argument("--api-out", type=option_path, metavar="DIR",
                        help="write the site's static JSON API for the recipes to DIR")
    add_fetch_arguments(parser)


def _node_count(text: str) -> int:
    """argparse type of ``--nodes``: 1 .. ``RENDER_MAX_NODES`` (a usage error otherwise)."""
    value = positive_int(text)
    if value > gates.RENDER_MAX_NODES:
        raise argparse.ArgumentTypeError(
            f"at most {gates.RENDER_MAX_NODES} nodes are rendered (the site's Nodes row "
            f"stops at {gates.MAX_NODES}), got {value}")
    return value


def _features(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return ()
    return tuple(f.strip() for f in text.split(",") if f.strip())


def _modes(items: list[str]) -> tuple[tuple[str, str], ...]:
    out: dict[str, str] = {}
    for item in items:
        feature, sep, mode = item.partition("=")
        if not sep or not feature or not mode:
            raise UsageError(f"--mode {item!r}: expected FEATURE=MODE")
        if feature in out and out[feature] != mode:
            raise UsageError(f"--mode {item}: feature {feature!r} already has mode "
                             f"{out[feature]!r} (a feature renders one mode)")
        out[feature] = mode
    return tuple(out.items())


def run(args: argparse.Namespace) -> int:
    """Render and print; 0 when every configuration renders cleanly, 1 otherwise."""
    args.format = chosen_format(args, "text")
    targets = collect_targets(args)
    if args.api_out is not None:
        return _write_api(args, targets)
    if args.all and (args.hardware or args.variant or args.strategy or args.nodes
                     or args.features is not None or args.mode):
        raise UsageError("--all renders every configuration; it takes no --hardware, "
                         "--variant, --strategy, --features, --mode or --nodes")
    contexts: dict[int, tuple[Context, dict[str, LoadedDocument]]] = {}
    results: list[tuple[Rendered, list[str], list[str]]] = []
    failed = False
    for target in targets:
        if not target.path.startswith("models/"):
            raise UsageError(f"{target.path}: not a recipe (recipes are models/ORG/NAME.yaml)")
        key = id(target.tree)
        try:
            if key not in contexts:
                ctx = build_context(target.tree)
                _refuse_without_taxonomy(ctx, target.tree.label)
                contexts[key] = (ctx, site_strategies(ctx))
            ctx, strategies = contexts[key]
            doc = load_yaml(target.tree.read(target.path), target.path)
        except FileNotFoundError as exc:
            raise UsageError(f"{target.path}: not found in {target.tree.label}") from exc
        if not doc.ok:
            for finding in doc.findings:
                print(f"{printable(finding.path)}:{finding.line}:{finding.column}: "
                      f"{finding.severity.value}: {printable(finding.message)} "
                      f"[{finding.rule}]", file=sys.stderr)
            failed = True
            continue
        if args.all:
            batch = every_offered(doc, ctx.taxonomy, strategies, args.cuda)
        else:
            config = Configuration.defaults(
                doc, ctx.taxonomy, strategies, hardware=args.hardware, variant=args.variant,
                strategy=args.strategy, features=_features(args.features), nodes=args.nodes)
            if args.mode or args.task:
                config = replace(config, feature_modes=_modes(args.mode), omni_task=args.task)
            batch = [render(doc, ctx.taxonomy, strategies, config, cuda=args.cuda)]
            _refuse_unknown_selection(args, doc, ctx, batch[0])
        inputs = Inputs(doc.data, document_data(ctx.taxonomy),
                         {k: document_data(v) for k, v in strategies.items()}, {})
        offers = [(r, offer_reasons(inputs, r)) for r in batch]
        if args.all:  # what the site renders, never what it would not offer
            offers = [(r, reasons) for r, reasons in offers if not reasons]
        failed |= _report_problems([r for r, _ in offers], doc, ctx)
        results += [(r, reasons, feature_labels(inputs, r.config)) for r, reasons in offers]
    _print_renderings(args, results, len(targets))
    return 1 if failed else 0


def _print_renderings(args: argparse.Namespace,
                      results: list[tuple[Rendered, list[str], list[str]]],
                      recipes: int) -> None:
    """Print what ``run`` rendered: JSON, or the text blocks of the clean renderings (with
    a note on stderr when control or invisible characters were escaped)."""
    if args.format == "json":
        sys.stdout.write(renderings_text([rendering_json(r, reasons)
                                          for r, reasons, _ in results]))
        return
    text = "\n\n".join(text_block(r, reasons, labels)
                       for r, reasons, labels in results if r.ok)
    shown = printable(text, keep="\n\t")
    _write_out(shown + "\n")
    if args.all:
        print(f"recipe-check: {sum(1 for r, _, _ in results if r.ok)} configuration(s) "
              f"of {recipes} recipe(s) rendered", file=sys.stderr)
    if shown != text:
        print("recipe-check: note: the commands above hold control or invisible "
              "characters (bidi controls, zero-width spaces ...: YAML010 of `recipe-check "
              "check`; a carriage return or a control key in an unquoted value: its "
              "REF018), printed escaped as \\uXXXX so that none is hidden; copied as "
              "printed they are not what the recipe says (--format json keeps the true "
              "strings)", file=sys.stderr)


def _refuse_without_taxonomy(ctx: Context, label: str) -> None:
    """The site's build reads the hardware profiles from the root's ``taxonomy.yaml`` and
    does not run without it: without one nothing renders as the site would, and the
    recipe is not to blame for an "unknown" hardware.

    Raises:
        UsageError: naming the tree (exit 2).
    """
    if ctx.taxonomy is None:
        raise UsageError(f"{label}: no taxonomy.yaml at the recipes root; the site's build "
                         "reads the hardware profiles from it and renders nothing without "
                         "it (pass --root with the recipes checkout)")


_CHUNK = 8192
"""Characters per write to stdout: one write of megabytes to a pipe whose reader leaves
(``render --all | head -1``) ends as a partial write that Python does not report, so the
run would exit 0 on cut output; written in pieces, the next piece raises
:class:`BrokenPipeError` and the command line exits 141 as every other command does."""


def _write_out(text: str) -> None:
    for start in range(0, len(text), _CHUNK):
        sys.stdout.write(text[start:start + _CHUNK])
    sys.stdout.flush()


def _write_api(args: argparse.Namespace, targets: list[Any]) -> int:
    try:
        from validator.render.api import write_api
    except ImportError as exc:
        raise UsageError(f"--api-out is not available in this build ({exc})") from exc
    trees = {id(t.tree): t.tree for t in targets}
    if len(trees) != 1:
        raise UsageError("--api-out takes recipes of one recipes tree")
    tree, paths = targets[0].tree, [t.path for t in targets]
    refuse_api_folder(args, args.api_out, [tree.root] if isinstance(tree, LocalTree) else [])
    code: int = write_api(args.api_out, tree, paths, args.cuda)
    if code == 2:  # a refused path: say which recipe line holds the id behind it
        for line in _refused_id_lines(tree, paths):
            print(line, file=sys.stderr)
    return code


def _refused_id_lines(tree: RecipeTree, paths: list[str]) -> list[str]:
    """``path:line:col: error: ...`` for every variant ``model_id`` of the recipes the
    API build renders (``paths`` under ``models/``, else every recipe of ``tree``) that
    ``--api-out`` refuses to write (the one predicate of REF017,
    :func:`~validator.render.api_paths.promoted_id_problem`)."""
    chosen = [p for p in paths if p.startswith("models/")] or \
        [p for p in tree.list("models") if p.endswith((".yaml", ".yml"))]
    out: list[str] = []
    for path in chosen:
        try:
            doc = load_yaml(tree.read(path), path)
        except (OSError, RecipeCheckError):
            continue  # the build itself reported what it could not read
        if not doc.ok or is_omni(doc.data):  # the site promotes no omni variant
            continue
        variants = get(doc.data, "variants")
        entries = list(variants.items()) if isinstance(variants, dict) else \
            list(enumerate(variants)) if isinstance(variants, list) else []
        for key, variant in entries:
            model_id = promoted_id(get(variant, "model_id"))
            problem = promoted_id_problem(model_id) if model_id is not None else None
            if model_id is not None and problem is not None:
                pointer = join_pointer(join_pointer("/variants", key), "model_id")
                line, column = doc.source_map.position(pointer)
                out.append(f"{path}:{line}:{column}: error: model_id "
                           f"{printable(model_id)!r} of variant {printable(str(key))!r} "
                           f"{problem}: the site writes the variant's files under it, "
                           "so --api-out refused the build; set it to the checkpoint's "
                           "Hugging Face id <org>/<repo> [REF017]")
    return out


def _document(path: str, ctx: Context, recipe: LoadedDocument) -> LoadedDocument | None:
    if path == recipe.path:
        return recipe
    if ctx.taxonomy is not None and path == ctx.taxonomy.path:
        return ctx.taxonomy
    for doc in [*ctx.strategies.values(), *ctx.kv_stores.values()]:
        if doc.path == path:
            return doc
    return None


_OPTION_OF_PROBLEM = {"unknown-hardware": "hardware", "unknown-variant": "variant",
                      "unknown-strategy": "strategy", "unknown-feature": "features",
                      "unknown-mode": "mode", "unknown-omni-task": "task"}


def _refuse_unknown_selection(args: argparse.Namespace, doc: LoadedDocument, ctx: Context,
                              rendered: Rendered) -> None:
    """A choice given on the command line that the recipe or its revision does not know,
    or that the site's page does not let a user make (a mode of a feature that is off, a
    mode not available here), is a usage error (exit 2) naming the valid choices: one path
    for --hardware, --variant, --strategy, --features, --mode and --task."""
    config, tax = rendered.config, document_data(ctx.taxonomy)
    checked: list[tuple[RenderProblem, str]] = [
        (p, "") for p in rendered.problems if p.code != "unknown-omni-task"]
    for feature, mode in config.feature_modes:  # one --mode item at a time
        one = replace(config, feature_modes=((feature, mode),), omni_task=None)
        checked += [(p, f" {feature}={mode}") for p in selection_problems(doc.data, tax, one,
                                                                           doc.path)]
    checked += [(p, "") for p in selection_problems(doc.data, tax,
                                                    replace(config, feature_modes=()),
                                                    doc.path)]
    for problem, item in checked:
        option = _OPTION_OF_PROBLEM.get(problem.code)
        if option is not None and getattr(args, option) not in (None, "", []):
            raise UsageError(f"--{option}{item}: {doc.path}: {problem.message}")


def _report_problems(batch: list[Rendered], recipe: LoadedDocument, ctx: Context) -> bool:
    failed = False
    seen: set[tuple[str, str, str]] = set()
    for rendered in batch:
        for problem in rendered.problems:
            doc = _document(problem.document, ctx, recipe)
            line, column = doc.source_map.position(problem.pointer) if doc else (1, 1)
            key = (problem.document, problem.pointer, problem.message)
            if key in seen or problem.code == "not-offered":  # a note of the text block
                continue
            seen.add(key)
            print(f"{printable(problem.document)}:{line}:{column}: {problem.severity}: "
                  f"{printable(problem.message)} [render:{problem.code}]", file=sys.stderr)
            failed |= problem.severity == "error"
        failed |= not rendered.ok
    return failed
