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
message`` on stderr and the exit code is 1; usage and input errors exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from validator.commands.check import collect_targets, positive_int
from validator.context import Context, build_context
from validator.errors import UsageError
from validator.findings import printable
from validator.load import LoadedDocument, load_yaml
from validator.render.args import shell_quote
from validator.render.jsval import get, js_str
from validator.render.model import (
    Configuration,
    Process,
    Rendered,
    omni_task,
    render,
    render_all,
    site_strategies,
)
from validator.render.omni import is_omni
from validator.source.options import add_fetch_arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``render``."""
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="recipe file inside a recipes checkout, or OWNER/REPO@REV:PATH")
    parser.add_argument("--root", type=Path, help="recipes root (default: walk up from PATH)")
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
    parser.add_argument("--nodes", type=positive_int, metavar="N",
                        help="node count (default: the site's for the strategy)")
    parser.add_argument("--all", action="store_true",
                        help="every configuration the site renders (all variants, hardware, "
                        "strategies, and every feature on)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--api-out", type=Path, metavar="DIR",
                        help="write the site's static JSON API for the recipes to DIR")
    add_fetch_arguments(parser)


def _features(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    if text.strip().lower() in ("", "none"):
        return ()
    return tuple(f.strip() for f in text.split(",") if f.strip())


def _modes(items: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for item in items:
        feature, sep, mode = item.partition("=")
        if not sep or not feature or not mode:
            raise UsageError(f"--mode {item!r}: expected FEATURE=MODE")
        out.append((feature, mode))
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    """Render and print; 0 when every configuration renders cleanly, 1 otherwise."""
    targets = collect_targets(args)
    if args.api_out is not None:
        return _write_api(args, targets)
    if args.all and (args.hardware or args.variant or args.strategy or args.nodes
                     or args.features is not None or args.mode):
        raise UsageError("--all renders every configuration; it takes no --hardware, "
                         "--variant, --strategy, --features, --mode or --nodes")
    contexts: dict[int, tuple[Context, dict[str, LoadedDocument]]] = {}
    results: list[Rendered] = []
    failed = False
    for target in targets:
        if not target.path.startswith("models/"):
            raise UsageError(f"{target.path}: not a recipe (recipes are models/ORG/NAME.yaml)")
        key = id(target.tree)
        try:
            if key not in contexts:
                ctx = build_context(target.tree)
                contexts[key] = (ctx, site_strategies(ctx))
            ctx, strategies = contexts[key]
            doc = load_yaml(target.tree.read(target.path), target.path)
        except FileNotFoundError as exc:
            raise UsageError(f"{target.path}: not found in {target.tree.label}") from exc
        if not doc.ok:
            for finding in doc.findings:
                print(f"{finding.path}:{finding.line}:{finding.column}: "
                      f"{finding.severity.value}: {printable(finding.message)} "
                      f"[{finding.rule}]", file=sys.stderr)
            failed = True
            continue
        if args.all:
            batch = render_all(doc, ctx.taxonomy, strategies)
        else:
            config = Configuration.defaults(
                doc, ctx.taxonomy, strategies, hardware=args.hardware, variant=args.variant,
                strategy=args.strategy, features=_features(args.features), nodes=args.nodes)
            if args.mode or args.task:
                config = replace(config, feature_modes=_modes(args.mode), omni_task=args.task)
            batch = [render(doc, ctx.taxonomy, strategies, config)]
            _refuse_unknown_selection(args, doc, batch[0])
        failed |= _report_problems(batch, doc, ctx)
        results += batch
    if args.format == "json":
        json.dump([_json(r) for r in results], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        text = "\n\n".join(text_block(r) for r in results if r.ok)
        shown = printable(text, keep="\n\t")
        sys.stdout.write(shown + "\n")
        if shown != text:
            print("recipe-check: note: the commands above hold control or invisible "
                  "characters (bidi controls, zero-width spaces ...: YAML010 of `recipe-check "
                  "check`), printed escaped as \\uXXXX so that none is hidden; copied as "
                  "printed they are not what the recipe says (--format json keeps the true "
                  "strings)", file=sys.stderr)
    return 1 if failed else 0


def _write_api(args: argparse.Namespace, targets: list[Any]) -> int:
    try:
        from validator.render.api import write_api
    except ImportError as exc:
        raise UsageError(f"--api-out is not available in this build ({exc})") from exc
    trees = {id(t.tree): t.tree for t in targets}
    if len(trees) != 1:
        raise UsageError("--api-out takes recipes of one recipes tree")
    code: int = write_api(args.api_out, targets[0].tree, [t.path for t in targets])
    return code


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
                      "unknown-strategy": "strategy", "unknown-feature": "features"}


def _refuse_unknown_selection(args: argparse.Namespace, doc: LoadedDocument,
                              rendered: Rendered) -> None:
    """A name given on the command line that the recipe or its revision does not know is
    a usage error (exit 2), not a rendering the site would never offer."""
    for problem in rendered.problems:
        option = _OPTION_OF_PROBLEM.get(problem.code)
        if option is not None and getattr(args, option) not in (None, ""):
            raise UsageError(f"--{option}: {doc.path}: {problem.message}")
    if args.task is None:
        return
    if not is_omni(doc.data):
        raise UsageError(f"--task: {doc.path} is not a vLLM-Omni recipe (meta.tasks has no "
                         "'omni'); it has no omni.tasks")
    if omni_task(doc.data, args.task)[0] is None:
        tasks = get(get(doc.data, "omni"), "tasks")
        known = [str(t.get("id")) for t in tasks if isinstance(t, dict)] \
            if isinstance(tasks, list) else []
        raise UsageError(f"--task {args.task!r}: {doc.path} has no omni.tasks entry with "
                         f"that id; known: {', '.join(known) or 'none'}")


def _report_problems(batch: list[Rendered], recipe: LoadedDocument, ctx: Context) -> bool:
    failed = False
    seen: set[tuple[str, str, str]] = set()
    for rendered in batch:
        for problem in rendered.problems:
            doc = _document(problem.document, ctx, recipe)
            line, column = doc.source_map.position(problem.pointer) if doc else (1, 1)
            key = (problem.document, problem.pointer, problem.message)
            if key in seen:
                continue
            seen.add(key)
            print(f"{problem.document}:{line}:{column}: {problem.severity}: "
                  f"{printable(problem.message)} [render:{problem.code}]", file=sys.stderr)
            failed |= problem.severity == "error"
        failed |= not rendered.ok
    return failed


def _env_lines(env: Any) -> list[str]:
    return [f"export {k}={shell_quote(js_str(v))}" for k, v in env.items()]


def _process_block(proc: Process, title: str) -> list[str]:
    out = [f"# --- {title}: vllm serve ---"]
    out += _env_lines(proc.env)
    out.append(proc.command)
    if proc.docker_command:
        out += ["", f"# --- {title}: docker ---", proc.docker_command]
    return out


def text_block(r: Rendered) -> str:
    """The commands of one rendering, as a user pastes them (section titles are shell
    comments)."""
    c = r.config
    site = r.site or {}
    modes = dict(c.feature_modes)
    features = ", ".join(f"{f} (mode {modes[f]})" if f in modes else f
                         for f in c.features) or "none"
    if r.deploy_type == "omni":
        head = (f"# {r.recipe_path} · {c.hardware} · {c.variant} · vLLM-Omni"
                f"{f' · task {c.omni_task}' if c.omni_task else ''}")
    else:
        head = (f"# {r.recipe_path} · {c.hardware} · {c.variant} · {c.key}"
                f"{f' (serving {c.strategy})' if c.kv_offload else ''} · "
                f"{r.node_count} node{'s' if r.node_count != 1 else ''}"
                f"{''.join(f' · {role} ×{n}' for role, n in c.pd_nodes or ())}"
                f"{f' · {c.kv_instances} kv instances' if c.kv_instances else ''}"
                f" · features: {features}")
    lines = [head]
    install = r.install or {}
    if "pip" in install:
        lines += ["", "# --- install (pip) ---", str(install["pip"]["command"])]
        if install["pip"].get("note"):
            lines.append(f"# {install['pip']['note']}")
    if "docker" in install:
        lines += ["", "# --- install (docker) ---", _docker_install(r, install["docker"])]
    for extra in install.get("extras") or []:
        if isinstance(extra, dict) and extra.get("command"):
            note = str(extra.get("note") or extra.get("name") or "").splitlines()
            lines += ["", f"# --- dependency{': ' + note[0] if note else ''} ---",
                      str(extra["command"]).rstrip()]
    for comp in site.get("companions") or []:
        lines += ["", f"# --- {comp['label']} (separate terminal) ---", comp["command"]]
    if r.deploy_type == "kv_store_lb":
        lines += ["", "# --- mooncake master ---", str((site.get("master") or {}).get(
            "command", ""))]
        if site.get("store"):
            lines += ["", "# --- mooncake store ---", str(site["store"].get("command", ""))]
    for proc in r.processes:
        lines += ["", *_process_block(proc, proc.role)]
    router = site.get("router")
    if isinstance(router, dict) and router.get("command"):
        lines += ["", "# --- router ---", str(router.get("install", "")), router["command"]]
    return "\n".join(lines)


def _docker_install(r: Rendered, docker: dict[str, Any]) -> str:
    # The JSON API's docker line always pulls the NVIDIA image; the page pulls the image the
    # `docker run` below uses (that of the chosen hardware). A recipe's own install command
    # (not a plain pull) is shown as written.
    command = str(docker.get("command", ""))
    if r.docker_image is not None and command.startswith("docker pull ") and "\n" not in command:
        return f"docker pull {js_str(r.docker_image)}"
    return command


def _json(r: Rendered) -> Any:

    from validator.render.jsval import to_json_value

    return to_json_value({
        "recipe": r.recipe_path, "ok": r.ok, "config": asdict(r.config),
        "hardware": r.hardware, "variant": r.variant, "strategy": r.strategy,
        "node_count": r.node_count, "deploy_type": r.deploy_type, "env": dict(r.env),
        "docker_image": r.docker_image, "command": r.command, "argv": list(r.argv),
        "docker_command": r.docker_command, "docker_argv": list(r.docker_argv),
        "install": r.install, "compatible_hardware": list(r.compatible_hardware),
        "default_hardware": r.default_hardware,
        "processes": [{"role": p.role, "command": p.command, "argv": list(p.argv),
                       "docker_command": p.docker_command,
                       "docker_argv": list(p.docker_argv or ()), "env": dict(p.env),
                       "tokens": [t._asdict() for t in p.tokens]} for p in r.processes],
        "env_sources": {k: t._asdict() for k, t in r.env_sources.items()},
        "site": r.site,
        "problems": [asdict(p) for p in r.problems],
    })
