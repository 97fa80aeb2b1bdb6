#!/usr/bin/env python3
"""Benchmark recipe-check on the real recipes history (the corpus bundle), as ratios.

Every goal (issues 17 and 29) is a ratio of two CPU times measured in the same run, so that the
verdict holds on a loaded 2-core machine: each case runs as a child process and its CPU
time is the user + system time ``os.wait4`` reports for it (the child and every
descendant it waited for); each case runs ``--runs`` times and the minimum is kept. Peak
RSS is the largest ``ru_maxrss`` seen. The code measured is a frozen copy (edits made
while the bench runs do not change what it measures): the working tree ("after") and,
unless ``--no-baseline``, a git revision ("before", default ``main``), measured
alternately in the same run.

Cases (goals in brackets):

* ``recipe-check models/`` on corpus ``main`` (every recipe, every rule) vs the site's own
  build ``node scripts/build-recipes-api.mjs`` (a copy of ``../shared/corpus/site`` after
  ``npm ci``, on ``/dev/shm`` when it exists) [<= 0.5x] and vs the libyaml floor: one
  process that reads the same files and ``yaml.compose``-s them with ``CSafeLoader``
  [<= 15x]; cold means ``--no-cache --jobs 1`` where the code has a result cache;
* the same check warm (unchanged tree, the cache filled by one run) vs the site build
  [<= 0.05x], and cold on every core, its wall time vs one job's;
* one file, interpreter start to exit, vs a process that only imports what that check
  needs (the check command, every rule family and the text reporter) [<= 1.3x], and
  which heavy modules the one-file run imports (jsonschema must not be among them);
* the models tree 8 times (copies under distinct org names) vs once [<= 8.5x];
* ``publish`` of the 173 records of a snapshot store vs ``check`` of the same pinned
  files from that store [<= 1.5x], and a warm publish (same inputs, same output folder)
  [<= 0.3x of the cold one];
* ``history --all-refs`` cold (fresh cache) and warm [cold <= 60 s, warm <= 2 s CPU];
* peak RSS of ``recipe-check models/`` [< 80 MB];
* every rendered configuration rendered (``validator.render.render_all`` over every
  recipe), when the code measured has ``validator/render``.

Usage::

    python benchmarks/bench.py [--quick] [--runs N] [--baseline REV | --no-baseline]
        [--bundle ../shared/corpus/vllm-recipes.bundle] [--skip-history] [--skip-site]
        [--history-only]

``--history-only`` measures the two history rows alone (the other cases take about as
long again); with ``--quick`` or ``--no-baseline`` for the code under test only: one cold
and one warm ``history --all-refs`` of the 2,915 commits.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "corpus"
CODE_DIRS = ("validator", "schemas", "snapshots")
HEAVY = ("git", "requests", "jsonschema", "jsonschema_rs", "pydantic", "ruamel", "urllib3",
         "packaging", "filelock", "yaml", "referencing")
ONE_FILE = "models/zai-org/GLM-5.2.yaml"
NEEDED = "import validator.cli, validator.commands.check, validator.analysis, validator.report.text"
"""What checking one file needs imported: the command, every rule family (a full check
runs them all) and the text reporter; plus the compiled schema check's library where the
code has one (:func:`needed_imports`)."""

FLOOR = """
import sys, yaml
from pathlib import Path
for p in sorted(Path(sys.argv[1]).rglob("*.yaml")):
    yaml.compose(p.read_text("utf-8"), Loader=yaml.CSafeLoader)
"""

RENDER_ALL = """
import sys
from pathlib import Path
from validator.context import Settings, build_context
from validator.load import load_yaml
from validator.render.renderer import render_all, site_strategies
from validator.source.tree import LocalTree
tree = LocalTree(Path(sys.argv[1]))
ctx = build_context(tree, Settings(offline=True))
strategies = site_strategies(ctx)
rendered = 0
for path in sorted(ctx.recipe_paths):
    doc = load_yaml(tree.read(path), path)
    if doc.ok:
        rendered += len(render_all(doc, ctx.taxonomy, strategies))
print(rendered)
"""
"""Every configuration the site renders, plus the feature sets, of every recipe."""


@dataclass
class Sample:
    """One case's best run: minimum CPU and wall time, largest peak RSS, last exit code."""

    cpu: float
    wall: float
    maxrss_kb: int
    rc: int
    err: str = ""


def run_once(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Sample:
    """Run ``cmd`` as a child; its CPU time (user + sys, descendants included) and peak
    RSS come from ``os.wait4``."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()  # drained before waiting: a full pipe would block the child
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    return Sample(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, proc.returncode,
                  err.decode("utf-8", "replace")[-400:])


def best(cmd: Sequence[str], cwd: Path, env: dict[str, str], runs: int,
         before_each: Callable[[], None] | None = None) -> Sample:
    """Minimum CPU (and wall) time of ``runs`` runs, maximum peak RSS."""
    samples = []
    for _ in range(max(1, runs)):
        if before_each:
            before_each()
        samples.append(run_once(cmd, cwd, env))
    return Sample(min(s.cpu for s in samples), min(s.wall for s in samples),
                  max(s.maxrss_kb for s in samples), samples[-1].rc, samples[-1].err)


def freeze_worktree(dest: Path) -> Path:
    """Copy the code and data the tool reads from the working tree."""
    for name in CODE_DIRS:
        if (PROJECT / name).exists():
            shutil.copytree(PROJECT / name, dest / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def freeze_revision(rev: str, dest: Path) -> Path:
    """Extract the code and data of git revision ``rev``."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(PROJECT), "archive", rev, *CODE_DIRS],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def git(*args: str) -> str:
    """Output of a git command (failures raise)."""
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def clone(bundle: Path, dest: Path) -> Path:
    """Clone the bundle (main) and fetch every ``refs/pull/*`` head."""
    git("clone", "-q", str(bundle), str(dest))
    git("-C", str(dest), "fetch", "-q", str(bundle), "refs/pull/*:refs/pull/*")
    return dest


def _moved_org(org: str, match: re.Match[str]) -> str:
    """The ``model_id:`` prefix ``match`` found, followed by ``org/``."""
    return f"{match.group(1)}{org}/"


def scaled_tree(repo: Path, dest: Path, copies: int) -> Path:
    """A recipes tree whose ``models/`` holds ``copies`` copies of ``repo``'s, each copy
    ``i > 0`` under org names suffixed ``-c<i>`` (``model.model_id`` rewritten to match),
    with the same taxonomy, strategies and kv-store files."""
    dest.mkdir()
    for name in ("taxonomy.yaml", "platforms.yaml"):
        if (repo / name).exists():
            shutil.copy2(repo / name, dest / name)
    for name in ("strategies", "kv_store"):
        if (repo / name).is_dir():
            shutil.copytree(repo / name, dest / name)
    for i in range(copies):
        for org in sorted(p for p in (repo / "models").iterdir() if p.is_dir()):
            new_org = org.name if i == 0 else f"{org.name}-c{i}"
            (dest / "models" / new_org).mkdir(parents=True)
            pattern = re.compile(rf"^(\s*model_id:\s*[\"']?){re.escape(org.name)}/", re.M)
            for f in org.iterdir():
                text = f.read_text("utf-8")
                if i:
                    text = pattern.sub(functools.partial(_moved_org, new_org), text, count=1)
                (dest / "models" / new_org / f.name).write_text(text, "utf-8")
    return dest


def prepare_site(root: Path, repo: Path) -> tuple[Path | None, str]:
    """A copy of the site after ``npm ci`` with ``repo``'s data files, on tmpfs when
    ``/dev/shm`` exists; ``(None, reason)`` when node or npm is missing or fails."""
    site = SHARED / "site"
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return None, "node/npm not found on PATH: the site build was NOT measured"
    if not site.is_dir():
        return None, f"no site at {site}: the site build was NOT measured"
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="rc-bench-site-", dir=shm if shm.is_dir() else root))
    dest = base / "site"
    shutil.copytree(site, dest)
    for name in ("models", "taxonomy.yaml", "strategies", "kv_store", "platforms.yaml"):
        src = repo / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        elif src.exists():
            shutil.copy2(src, dest / name)
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=dest,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode:
        return None, f"npm ci failed ({proc.stderr.strip()[-200:]}): site build NOT measured"
    where = "tmpfs" if str(dest).startswith("/dev/shm") else "disk"
    return dest, f"node {git_version(node)}, output on {where} ({dest})"


def child_env(code: Path, cache: Path) -> dict[str, str]:
    """The environment of the runs of the code at ``code``: it first on ``PYTHONPATH``,
    its own cache folder, and bytecode written (``PYTHONDONTWRITEBYTECODE`` dropped), so
    that the warm-up run writes the ``.pyc`` files of the frozen copy, as an installed
    tool has them; with it set, every run compiles every module it imports, which adds
    the same compile time (about 0.25 s) to the one-file check and to its imports and
    shrinks their ratio (measured: 2.53x with the ``.pyc`` files, 1.74x without)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(code), "XDG_CACHE_HOME": str(cache)}


def needed_imports(code: Path) -> str:
    """:data:`NEEDED`, with ``jsonschema_rs`` when the code's schema stage uses it."""
    schema = code / "validator" / "schema.py"
    uses_rs = schema.is_file() and "jsonschema_rs" in schema.read_text("utf-8")
    return NEEDED + (", jsonschema_rs" if uses_rs else "")


def git_version(node: str) -> str:
    """``node --version``."""
    return subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()


def heavy_imports(env: dict[str, str], cwd: Path, target: str,
                  flags: Sequence[str] = ()) -> list[str]:
    """Top-level packages among ``HEAVY`` that checking one file imports (``flags``:
    :func:`cold_flags`, so that the check runs instead of coming from the cache)."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-m", "validator", *flags,
                          target],
                         env=env, cwd=cwd, capture_output=True, text=True).stderr
    seen = set()
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line:
            top = line.rsplit("|", 1)[1].strip().split(".")[0]
            if top in HEAVY:
                seen.add(top)
    return sorted(seen)


class Table:
    """Rows of ``case | before | after | goal | verdict``, printed as they come."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)
        head = "".join(f"{x:>12}" for x in self.labels)
        print(f"\n{'case':<62}{head}  goal")

    def row(self, case: str, values: Sequence[str], goal: str = "", ok: bool | None = None,
            ) -> None:
        """One line; the verdict is about the last column (the code under test)."""
        verdict = "" if ok is None else ("ok" if ok else "MISSED")
        cells = "".join(f"{v:>12}" for v in values)
        print(f"{case:<62}{cells}  {goal:<10} {verdict}", flush=True)


def secs(s: Sample) -> str:
    """CPU seconds, with a mark when the run failed."""
    return f"{s.cpu:.3f} s" + ("" if s.rc in (0, 1) else f" rc{s.rc}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description="recipe-check benchmark")
    parser.add_argument("--bundle", type=Path, default=SHARED / "vllm-recipes.bundle")
    parser.add_argument("--runs", type=int, default=None,
                        help="runs per case, minimum kept (default 5, 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="one run per case, 2x instead of 8x, no warm-up run of the "
                        "models/ check (the one-file warm-up writes the .pyc files), history "
                        "for the code under test only; every goal row is still printed")
    parser.add_argument("--baseline", default="main", metavar="REV",
                        help="git revision measured as 'before' (default main)")
    parser.add_argument("--no-baseline", action="store_true", help="measure the worktree only")
    parser.add_argument("--skip-history", action="store_true")
    parser.add_argument("--history-only", action="store_true",
                        help="measure only history --all-refs cold and warm (with --quick or "
                        "--no-baseline: the code under test only)")
    parser.add_argument("--skip-site", action="store_true", help="do not run the node build")
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 5)
    copies = 2 if args.quick else 8
    if not args.bundle.is_file():
        print(f"bench: no bundle at {args.bundle}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rc-bench-") as tmp:
        root = Path(tmp)
        codes: dict[str, Path] = {}
        if not args.no_baseline:
            codes[f"before({args.baseline[:10]})"] = freeze_revision(args.baseline,
                                                                     root / "before")
        codes["after(tree)"] = freeze_worktree(root / "after")
        repo = clone(args.bundle, root / "recipes")
        recipes = sorted(str(p.relative_to(repo)) for p in (repo / "models").rglob("*.yaml"))
        commits = len(git("-C", str(repo), "rev-list", "--all").split())
        envs = {label: child_env(code, root / f"xdg-{i}")
                for i, (label, code) in enumerate(codes.items())}
        py = sys.executable
        if args.history_only:
            print(f"history only: {commits} commits with PR heads; {os.cpu_count()} CPUs; "
                  "CPU time = user+sys of the child and its workers (os.wait4)")
            history_cases(codes, functools.partial(_tool, envs, repo), Table(list(codes)),
                          commits, root, args.quick)
            return 0
        big = scaled_tree(repo, root / f"recipes-x{copies}", copies)
        print(f"corpus main: {len(recipes)} recipes, {commits} commits with PR heads; "
              f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}; "
              f"CPU time = user+sys of the child (os.wait4), min of {runs} run(s)")
        site, site_note = (None, "--skip-site: site build NOT measured") if args.skip_site \
            else prepare_site(root, repo)
        print(f"site build: {site_note}")

        def tool(label: str, *cmd: str, cwd: Path = repo, n: int = runs,
                 before_each: Callable[[], None] | None = None) -> Sample:
            return _tool(envs, cwd, label, *cmd, n=n, before_each=before_each)

        for label in codes:  # warm the page cache and write the .pyc files
            if not args.quick:  # --quick: the one-file run imports every module already
                tool(label, "models/", n=1)
            tool(label, ONE_FILE, n=1)
        floor = best([py, "-c", FLOOR, "models"], repo, dict(os.environ), runs)
        site_cpu: Sample | None = None
        if site is not None:
            site_dir = site

            def clean_public() -> None:
                shutil.rmtree(site_dir / "public", ignore_errors=True)

            site_cpu = best(["node", "scripts/build-recipes-api.mjs"], site, dict(os.environ),
                            runs, clean_public)
        needed = {lb: best([py, "-c", needed_imports(codes[lb])], repo, envs[lb], runs)
                  for lb in codes}
        cold = {lb: cold_flags(codes[lb]) for lb in codes}
        full = {lb: tool(lb, *cold[lb], "models/") for lb in codes}
        one = {lb: tool(lb, *cold[lb], ONE_FILE) for lb in codes}
        scaled = {lb: tool(lb, *cold[lb], "models/", cwd=big) for lb in codes}

        table = Table(list(codes))
        table.row("libyaml floor (compose 173 files, one process)", [secs(floor)] * len(codes))
        if site_cpu is not None:
            table.row("site build (node build-recipes-api.mjs)", [secs(site_cpu)] * len(codes))
            if site_cpu.rc:
                print(f"  site build exit {site_cpu.rc}: {site_cpu.err}")
        else:
            table.row("site build (node build-recipes-api.mjs)", ["absent"] * len(codes))
        table.row(f"recipe-check models/ ({len(recipes)} files), cold, one job",
                  [secs(full[lb]) for lb in codes])
        last = list(codes)[-1]
        if site_cpu is not None:
            table.row("  ratio: cold check / site build",
                      [f"{full[lb].cpu / site_cpu.cpu:.2f}x" for lb in codes], "<= 0.5x",
                      full[last].cpu / site_cpu.cpu <= 0.5)
        else:
            print("  ratio: check / site build: NOT MEASURED (node absent)")
        table.row("  ratio: cold check / libyaml floor",
                  [f"{full[lb].cpu / floor.cpu:.1f}x" for lb in codes], "<= 15x",
                  full[last].cpu / floor.cpu <= 15)
        engine_cases(codes, tool, table, full, site_cpu)
        table.row("  peak RSS of recipe-check models/",
                  [f"{full[lb].maxrss_kb / 1024:.0f} MB" for lb in codes], "< 80 MB",
                  full[last].maxrss_kb < 80 * 1024)
        table.row(f"one file ({ONE_FILE.rsplit('/', 1)[1]}), start to exit",
                  [secs(one[lb]) for lb in codes])
        table.row("  imports it needs (command, families, reporter, schema lib)",
                  [secs(needed[lb]) for lb in codes])
        table.row("  ratio: one file / its imports",
                  [f"{one[lb].cpu / needed[lb].cpu:.2f}x" for lb in codes], "<= 1.3x",
                  one[last].cpu / needed[last].cpu <= 1.3)
        for lb in codes:
            heavy = heavy_imports(envs[lb], repo, ONE_FILE, cold[lb])
            verdict = "ok" if "jsonschema" not in heavy else "MISSED (jsonschema imported)"
            print(f"  {lb}: heavy modules imported for one file: {', '.join(heavy)}"
                  + (f"  {verdict}" if lb == last else ""))
        table.row(f"recipe-check models/ x{copies} ({copies * len(recipes)} files)",
                  [secs(scaled[lb]) for lb in codes])
        limit = 8.5 * copies / 8
        table.row(f"  ratio: x{copies} / x1",
                  [f"{scaled[lb].cpu / full[lb].cpu:.2f}x" for lb in codes], f"<= {limit:g}x",
                  scaled[last].cpu / full[last].cpu <= limit)
        publish_cases(codes, envs, repo, root, runs, tool, table)
        if "render" in {p.name for p in (codes[last] / "validator").iterdir()}:
            rendered = {lb: best([py, "-c", RENDER_ALL, str(repo)], repo, envs[lb], runs)
                        if (codes[lb] / "validator" / "render").is_dir()
                        else Sample(0, 0, 0, -1, "no validator/render") for lb in codes}
            table.row("every rendered configuration rendered (render_all)",
                      [secs(rendered[lb]) if rendered[lb].rc >= 0 else "n/a" for lb in codes])
            if rendered[last].rc not in (0,):
                print(f"  render_all exit {rendered[last].rc}: {rendered[last].err}")
            elif site_cpu is not None:  # rendering alone must fit the budget of checking
                table.row("  ratio: render_all / site build",
                          [f"{rendered[lb].cpu / site_cpu.cpu:.2f}x" if rendered[lb].rc == 0
                           else "n/a" for lb in codes], "<= 0.35x",
                          rendered[last].cpu / site_cpu.cpu <= 0.35)
        if not args.skip_history:
            history_cases(codes, tool, table, commits, root, args.quick)
        if site is not None:
            shutil.rmtree(site.parent, ignore_errors=True)
    return 0


def _tool(envs: dict[str, dict[str, str]], cwd: Path, label: str, *cmd: str, n: int = 1,
          before_each: Callable[[], None] | None = None) -> Sample:
    """``python -m validator CMD`` of the code ``label`` in ``cwd``: best of ``n`` runs."""
    return best([sys.executable, "-m", "validator", *cmd], cwd, envs[label], n, before_each)


def history_cases(codes: dict[str, Path], tool: Callable[..., Sample], table: Table,
                  commits: int, root: Path, quick: bool) -> None:
    """``history --all-refs`` of the whole bundle, cold (a fresh cache folder) then warm
    (the same folder), one run each, on every core: CPU of all its processes, and wall.
    ``quick``: the code under test only (the slowest case)."""
    last = list(codes)[-1]
    cold: dict[str, Sample] = {}
    warm: dict[str, Sample] = {}
    for lb in [last] if quick else list(codes):
        cmd = ("history", "--all-refs", "--cache-dir", str(root / f"history-{lb}"))
        cold[lb] = tool(lb, *cmd, n=1)
        warm[lb] = tool(lb, *cmd, n=1)
        for s in (cold[lb], warm[lb]):
            if s.rc not in (0, 1):
                print(f"  history exit {s.rc} [{lb}]: {s.err}")
    for name, found, goal in (("cold", cold, 60), ("warm", warm, 2)):
        table.row(f"history --all-refs ({commits} commits), {name}",
                  [secs(found[lb]) if lb in found else "(--quick)" for lb in codes],
                  f"<= {goal} s", found[last].cpu <= goal)
        table.row(f"  its wall time ({os.cpu_count()} CPUs)",
                  [f"{found[lb].wall:.3f} s" if lb in found else "(--quick)" for lb in codes])


def cold_flags(code: Path) -> tuple[str, ...]:
    """Options that make ``check`` of ``code`` a cold run on one process: no result cache
    and one job (none for code that has neither)."""
    command = code / "validator" / "commands" / "check.py"
    text = command.read_text("utf-8") if command.is_file() else ""
    return ("--no-cache", "--jobs", "1") if '"--no-cache"' in text else ()


def engine_cases(codes: dict[str, Path], tool: Callable[..., Sample], table: Table,
                 full: dict[str, Sample], site_cpu: Sample | None) -> None:
    """The result cache and the worker processes: ``check models/`` warm (the same tree
    again, after one run filled the cache) against the site's build, and on every core
    (no cache) against one job, wall and CPU."""
    last = list(codes)[-1]
    warm: dict[str, Sample] = {}
    cores: dict[str, Sample] = {}
    for lb in codes:
        if not cold_flags(codes[lb]):
            continue
        tool(lb, "models/", n=1)  # fills the cache
        warm[lb] = tool(lb, "models/")
        cores[lb] = tool(lb, "--no-cache", "models/")
    if last not in warm:
        return
    table.row("recipe-check models/, warm (unchanged tree, cache)",
              [secs(warm[lb]) if lb in warm else "n/a" for lb in codes])
    if site_cpu is not None:
        table.row("  ratio: warm check / site build",
                  [f"{warm[lb].cpu / site_cpu.cpu:.3f}x" if lb in warm else "n/a"
                   for lb in codes], "<= 0.05x", warm[last].cpu / site_cpu.cpu <= 0.05)
    table.row(f"recipe-check models/, cold, {os.cpu_count()} jobs: wall",
              [f"{cores[lb].wall:.3f} s" if lb in cores else "n/a" for lb in codes])
    table.row("  its CPU (all processes)",
              [secs(cores[lb]) if lb in cores else "n/a" for lb in codes])
    table.row("  ratio: wall, every core / one job",
              [f"{cores[lb].wall / full[lb].wall:.2f}x" if lb in cores else "n/a"
               for lb in codes])


def publish_cases(codes: dict[str, Path], envs: dict[str, dict[str, str]], repo: Path,
                  root: Path, runs: int, tool: Callable[..., Sample], table: Table) -> None:
    """``publish`` (cold and warm) vs ``check`` of the same pinned files of a snapshot
    store filled by ``fetch`` from the corpus clone."""
    commit = git("-C", str(repo), "rev-parse", "main").strip()
    spec = f"vllm-project/recipes@{commit}:models/"
    cold: dict[str, Sample] = {}
    warm: dict[str, Sample] = {}
    check: dict[str, Sample] = {}
    for i, lb in enumerate(codes):
        store = root / f"store-{i}"
        fetched = tool(lb, "fetch", "--git-url", str(repo), "--cache-dir",
                       str(root / f"fetch-cache-{i}"), "--snapshot-dir", str(store), spec, n=1)
        if fetched.rc:
            print(f"  fetch for publish failed [{lb}]: {fetched.err}")
            continue
        lock = str(store / "recipes.lock.json")
        out = root / f"published-{i}"

        def fresh(out: Path = out) -> None:
            shutil.rmtree(out, ignore_errors=True)

        pub = ("publish", "--lock", lock, "--out-dir", str(out), "--checked-on", "2026-01-01")
        cold[lb] = tool(lb, *pub, before_each=fresh)
        warm[lb] = tool(lb, *pub)
        check[lb] = tool(lb, *cold_flags(codes[lb]), "--offline", "--snapshot-dir",
                         str(store), spec)
    labels = [lb for lb in codes if lb in cold]
    if not labels:
        return
    last = labels[-1]
    table.row("check of the pinned files (offline, snapshot store)",
              [secs(check[lb]) for lb in labels])
    table.row("publish of the same 173 records, cold", [secs(cold[lb]) for lb in labels])
    table.row("  ratio: publish / check", [f"{cold[lb].cpu / check[lb].cpu:.2f}x"
                                           for lb in labels], "<= 1.5x",
              cold[last].cpu / check[last].cpu <= 1.5)
    table.row("publish warm (unchanged inputs)", [secs(warm[lb]) for lb in labels])
    table.row("  ratio: warm / cold publish", [f"{warm[lb].cpu / cold[lb].cpu:.2f}x"
                                               for lb in labels], "<= 0.3x",
              warm[last].cpu / cold[last].cpu <= 0.3)
    for lb in labels:
        for name, s in (("publish", cold[lb]), ("check", check[lb])):
            if s.rc not in (0, 1):
                print(f"  {name} exit {s.rc} [{lb}]: {s.err}")


if __name__ == "__main__":
    raise SystemExit(main())
