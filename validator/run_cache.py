"""A whole ``check`` run answered from one cache entry when nothing it reads has changed.

Before the command module (and every rule) is imported, :func:`plan_run` reads the
command line. A run that only writes its report to standard output, checks local paths
and uses the cache gets a *run key*: the SHA-256 of

* the tool: the version, the Python that runs it, and the digest of every file of the
  package, its schemas and its vendored data (:func:`tool_stamp`; the digest of their
  bytes is kept in the cache under the digest of their ``stat`` results, so an unchanged
  install is not read again);
* the command line (its options, ``--jobs`` left out: the output is the same for every
  number of jobs), the current folder, the environment variables the run reads (the
  reporters' among them: ``NO_COLOR``, those of the rule links) and, for each standard
  stream, its encoding and whether it is a terminal (colour);
* everything the run reads of the recipes (:func:`inputs_digest`): for each recipes root,
  its taxonomy, configuration files and the ``strategies/``, ``kv_store/`` and
  ``models/`` folders, and the folder or file each PATH names -- names, types, modes,
  link targets and the bytes of every file.

The entry under that key holds what the run wrote to standard output and standard error,
in order, and its exit code. It lives in the ``runs`` folder of the cache folder
(:data:`validator.cache.RUNS`, a :class:`~validator.cache.ResultCache` like the units'
and at most :data:`MAX_RUNS` entries): an entry that is edited, cut short or written under
another secret fails its MAC and the run is computed again. A run is recorded only when
it ends with 0 or 1 and its inputs are the same after it as before it. Progress drawings
are not recorded (:class:`Recorder`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from validator import __version__
from validator.paths import SCHEMAS_DIR, SNAPSHOTS_DIR
from validator.report.environment import REPORT_VARIABLES
from validator.source.roots import PLATFORMS, STRATEGIES, TAXONOMY, default_cache_dir, find_root

if TYPE_CHECKING:  # not imported at run time: the warm path imports as little as it can
    from typing import Any, TextIO

    from validator.file_digests import FileDigests

FORMAT = 1
"""Version of the run key and entry layout."""
LABEL = "run"
"""The label of a run's result in its entry (unit entries use ``check``)."""
STAMP_LABEL = "tool-stamp"
"""The label of a cached tool stamp (bytes digest under a ``stat`` digest)."""

FLAGS = frozenset({"--strict", "--offline", "--rendered", "--as-written", "--no-summary"})
"""Options without a value that leave a run answerable from the cache (not the deprecated
spellings ``--layers-only``/``--no-rendered``: a run with one computes, and warns)."""
VALUED = frozenset({"--root", "--max-bytes", "--as-of", "--vllm", "--cache-dir", "--jobs",
                    "-j", "--select", "--rule", "--extend-select", "--ignore", "--format"})
"""Options with a value that leave a run answerable from the cache (any other option --
fixes, report files, pinned sources, ``--config``, ``--no-cache`` -- makes it run)."""
NOT_KEYED = frozenset({"--jobs", "-j"})
"""Options that do not change the output (``--jobs``: the same for every N)."""
ROOT_INPUTS = (TAXONOMY, ".recipe-check.toml", "pyproject.toml", STRATEGIES, "kv_store",
               "models", PLATFORMS, "quickstart")
"""What a check reads at a recipes root besides the paths it is given: the taxonomy,
the configuration files, the strategy and kv-store documents, the recipe list and the
platforms (REF026) and the quickstart files (REF028)."""
ENVIRONMENT = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "LANG", "LC_ALL", "LC_CTYPE",
               *REPORT_VARIABLES)
"""Environment variables a check reads (with every ``RECIPE_CHECK_*`` one): the
reporters' (:data:`~validator.report.environment.REPORT_VARIABLES`) among them."""
MAX_RUNS = 200
"""Run entries kept (a corpus run's JSON report is about 1 MiB); past it the oldest go."""
MAX_INPUT_BYTES = 256 * 2**20
"""Inputs larger than this in all are not digested: such a run is computed."""


class TooLarge(Exception):
    """The inputs are larger than :data:`MAX_INPUT_BYTES`."""


class RunPlan:
    """A run that the cache may answer: its ``key``, its ``cache_dir``, the digest of its
    inputs in the key (``input_digest``) and how to digest them again (``inputs``, to
    compare after the run). A plain class: :mod:`dataclasses` costs the warm path 5 ms."""

    def __init__(self, key: str, cache_dir: Path, inputs: Callable[[], str],
                 input_digest: str) -> None:
        self.key = key
        self.cache_dir = cache_dir
        self.inputs = inputs
        self.input_digest = input_digest


def _parse(args: Sequence[str]) -> tuple[list[str], list[str], dict[str, str]] | None:
    """``(keyed options, paths, option values)`` of a check command line, or ``None``
    when it holds an option outside :data:`FLAGS` and :data:`VALUED` (or ``--``)."""
    keyed: list[str] = []
    paths: list[str] = []
    values: dict[str, str] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if not arg.startswith("-") or arg == "-":
            paths.append(arg)
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
        else:  # ``-j N`` or ``-jN``: the only short option kept
            name, value = arg[:2], arg[2:]
            eq = "=" if value else ""
        if name in VALUED and not eq:
            if not rest:
                return None
            value = rest.pop(0)
        elif name not in VALUED and (name not in FLAGS or eq):
            return None
        if name not in NOT_KEYED:
            keyed.append(f"{name}={value}" if name in VALUED else name)
        values[name] = value
    return keyed, paths, values


def _entry(path: Path, h: Any, budget: list[int]) -> None:
    """Feed ``h`` what a run can read at ``path``: absent, a link (its target, and the
    file it resolves to), a file (mode, bytes), a folder (mode, then each entry)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        h.update(f"{path}\0absent\0{exc.errno}\n".encode("utf-8", "surrogateescape"))
        return
    head = f"{path}\0{st.st_mode:o}\0".encode("utf-8", "surrogateescape")
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        real = os.path.realpath(path)
        h.update(head + f"{target}\0{real}\n".encode("utf-8", "surrogateescape"))
        if os.path.isfile(real):
            _entry(Path(real), h, budget)
    elif stat.S_ISREG(st.st_mode):
        budget[0] -= st.st_size
        if budget[0] < 0:
            raise TooLarge(str(path))
        try:
            data = path.read_bytes()
        except OSError as exc:
            h.update(head + f"unreadable {exc.errno}\n".encode())
            return
        h.update(head + hashlib.sha256(data).digest() + b"\n")
    elif stat.S_ISDIR(st.st_mode):
        h.update(head + b"folder\n")
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            h.update(f"unlistable {exc.errno}\n".encode())
            return
        for name in names:
            _entry(path / name, h, budget)
    else:
        h.update(head + b"special\n")


def inputs_digest(roots: Sequence[Path], paths: Sequence[str]) -> str:
    """Hex SHA-256 of what a check of ``paths`` reads below ``roots`` (see the module
    docstring).

    Raises:
        TooLarge: the files are larger than :data:`MAX_INPUT_BYTES` in all.
    """
    h = hashlib.sha256()
    budget = [MAX_INPUT_BYTES]
    covered = [root / name for root in roots for name in ROOT_INPUTS]
    for arg in paths:
        covered += [Path(os.path.abspath(arg)), Path(os.path.realpath(arg))]
    for path in dict.fromkeys(covered):
        _entry(path, h, budget)
    return h.hexdigest()


def _package_files() -> list[Path]:
    package = Path(__file__).resolve().parent
    files: list[Path] = []
    for folder in (package, SCHEMAS_DIR, SNAPSHOTS_DIR):
        for top, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [Path(top, n) for n in sorted(names) if not n.endswith(".pyc")]
    return files


def tool_stamp(store: Any, digests: FileDigests) -> str:
    """Hex SHA-256 naming the tool: version, Python, and the bytes of every file of the
    package, its schemas and vendored data. The bytes' digest is cached in ``store`` (a
    :class:`validator.cache.ResultCache`) under the digest of the files' ``stat``
    results (path, size, modification and change times, inode); the files are hashed
    through ``digests`` (the run's)."""
    files = _package_files()
    by_stat = hashlib.sha256(f"{FORMAT}\0{__version__}\0{sys.version}\0{sys.executable}"
                             .encode("utf-8", "surrogateescape"))
    for f in files:
        st = f.stat()
        by_stat.update(f"{f}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n"
                       .encode("utf-8", "surrogateescape"))
    key = by_stat.hexdigest()
    found = store.get(key).get(STAMP_LABEL)
    if isinstance(found, str):
        return found
    from validator.cache import digests_kept_in

    by_bytes = hashlib.sha256(f"{FORMAT}\0{__version__}\0{sys.version}\0{sys.executable}"
                              .encode("utf-8", "surrogateescape"))
    with digests_kept_in(store, digests):
        for f in files:
            by_bytes.update(f"{f}\0".encode("utf-8", "surrogateescape") + digests.digest(f))
    stamp = by_bytes.hexdigest()
    store.put(key, {STAMP_LABEL: stamp})
    return stamp


def _store(cache_dir: Path) -> Any:
    from validator.cache import RUNS, ResultCache

    return ResultCache(cache_dir / RUNS, owner=cache_dir)


def _is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (a reporter colours its output there)."""
    try:
        return bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):  # closed
        return False


def plan_run(args: Sequence[str], digests: FileDigests) -> RunPlan | None:
    """The plan of a ``check`` command line (``args`` after the command name) that the
    cache may answer, or ``None`` when it must run (``digests``: the run's, for the tool
    stamp)."""
    parsed = _parse(args)
    if parsed is None:
        return None
    keyed, paths, values = parsed
    if not paths or not all(os.path.lexists(p) for p in paths) \
            or any(values[name] == "" for name in VALUED.intersection(values)):
        return None  # nothing to answer for, or an empty option value argparse refuses
    if values.get("--format") == "github" and "--no-summary" not in values \
            and os.environ.get("GITHUB_STEP_SUMMARY"):
        return None  # appends a job summary to a file
    root_arg = values.get("--root")
    roots = []
    for arg in paths:
        p = Path(arg)
        root = Path(root_arg).resolve() if root_arg else \
            find_root(p.parent if p.is_symlink() else p)
        if root is None:
            return None
        roots.append(root)
    cache_dir = Path(values["--cache-dir"]) if "--cache-dir" in values else default_cache_dir()
    roots = list(dict.fromkeys(roots))
    try:
        digest = inputs_digest(roots, paths)
        stamp = tool_stamp(_store(cache_dir), digests)
    except (OSError, TooLarge, RecursionError):  # a folder nested past the stack: run it
        return None
    env = sorted((k, v) for k, v in os.environ.items()
                 if k in ENVIRONMENT or k.startswith("RECIPE_CHECK"))
    streams = [(getattr(s, "encoding", None), getattr(s, "errors", None), _is_terminal(s))
               for s in (sys.stdout, sys.stderr)]
    text = json.dumps([FORMAT, stamp, os.getcwd(), keyed, paths, [str(r) for r in roots],
                       env, streams], ensure_ascii=False)
    key = hashlib.sha256(f"{text}\0{digest}".encode("utf-8", "surrogateescape")).hexdigest()
    return RunPlan(key, cache_dir, lambda: inputs_digest(roots, paths), digest)


def replay(plan: RunPlan) -> int | None:
    """Write the recorded output of ``plan``'s run, in its order, and return its exit
    code; ``None`` when there is no valid entry."""
    try:
        entry = _store(plan.cache_dir).get(plan.key).get(LABEL)
    except OSError:
        return None
    if not isinstance(entry, dict) or entry.get("code") not in (0, 1):
        return None
    output = entry.get("output")
    if not isinstance(output, list) or not all(
            isinstance(c, list) and len(c) == 2 and c[0] in ("stdout", "stderr")
            and isinstance(c[1], str) for c in output):
        return None
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}
    for name, text in output:
        streams[name].write(text)
    for stream in streams.values():
        stream.flush()
    code: int = entry["code"]
    return code


class Recorder(io.TextIOBase):
    """A standard stream that writes through and keeps what was written, in ``kept``
    (shared by both streams, so their order is kept). A progress bar draws on
    :attr:`unrecorded` (the stream itself): a replay has no progress to show."""

    def __init__(self, stream: TextIO, name: str, kept: list[tuple[str, str]]) -> None:
        super().__init__()
        self.unrecorded = stream
        self.name = name
        self.kept = kept

    def write(self, text: str) -> int:
        self.kept.append((self.name, text))
        return self.unrecorded.write(text)

    def flush(self) -> None:
        self.unrecorded.flush()

    def isatty(self) -> bool:
        return self.unrecorded.isatty()

    def fileno(self) -> int:
        return self.unrecorded.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.unrecorded, "encoding", "utf-8"))


def record(plan: RunPlan, run: Callable[[], int]) -> int:
    """Run ``run`` with its standard streams recorded; keep its output under the plan's
    key when it ends with 0 or 1 and its inputs did not change meanwhile."""
    kept: list[tuple[str, str]] = []
    out, err = Recorder(sys.stdout, "stdout", kept), Recorder(sys.stderr, "stderr", kept)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = run()
    finally:
        sys.stdout, sys.stderr = saved
    if code in (0, 1):
        try:
            if plan.inputs() == plan.input_digest:
                store = _store(plan.cache_dir)
                store.put(plan.key, {LABEL: {"output": [list(chunk) for chunk in kept],
                                             "code": code}})
                store.prune(MAX_RUNS)
        except (OSError, TooLarge, RecursionError):
            pass  # an unwritable cache folder, a tree nested past the stack: not kept
    return code
