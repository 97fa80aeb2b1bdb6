"""Options shared by every command that reports findings (``check``, ``pr``, ``history``),
written once: how the run judges, rule selection and configuration, and output.

Run options (``check`` and ``pr``, :func:`add_run_arguments`, read back into one
:class:`~validator.context.Settings` by :func:`settings_from`): ``--strict``,
``--offline``, ``--online-releases`` (contradicts ``--offline``), ``--max-bytes N`` (a
positive integer), ``--as-of DATE``, ``--vllm VERSION`` (a vendored release) and
``--rendered`` (the default) / ``--as-written`` (its old spellings ``--layers-only`` and
``--no-rendered`` still work, with a warning).

Rule options: ``--select``, ``--extend-select``, ``--ignore`` (ids, id prefixes or family
prefixes, any case, comma-separated or repeated; ``--rule`` is ``--select``), ``--config
FILE`` and ``--fail-on`` (see :mod:`validator.config`).

Output options: ``--format F`` is the one format written to stdout (or to ``--output
FILE``); ``--json FILE``, ``--sarif FILE`` and ``--markdown FILE`` also write that format
to a file; ``--summary FILE`` appends the Markdown job summary (default
``$GITHUB_STEP_SUMMARY`` when ``--format github``; ``--no-summary`` writes none). Formats
are never concatenated on one stream. Paths are relative to the working folder; a folder
that does not exist is created; a file that cannot be written is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TextIO

from validator.atomic import output_problem, write_output
from validator.config import Config, find_config, known_ids, load_config_file
from validator.errors import UsageError
from validator.paths import option_path
from validator.policy import Policy
from validator.settings import Settings
from validator.source.tree import LocalTree

FILE_FORMATS = ("json", "sarif", "markdown")
"""Formats that ``--<format> FILE`` writes besides the one on stdout."""


DEFAULT_MAX_BYTES = 2 * 1024 * 1024
"""``--max-bytes`` default: YAML files larger than 2 MiB are refused."""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """``--strict --offline --online-releases --max-bytes --as-of --vllm`` and
    ``--rendered/--as-written``: how a run judges (``check`` and ``pr`` alike)."""
    group = parser.add_argument_group("how the run judges")
    group.add_argument("--strict", action="store_true", help="warnings count as errors")
    group.add_argument("--offline", action="store_true",
                       help="no network: pinned sources are read from the snapshot store "
                            "only (and no vLLM data is fetched)")
    group.add_argument("--online-releases", action="store_true",
                       help="fetch vLLM's release list from PyPI; without this option "
                       "(the default) the vendored, digest-pinned "
                       "snapshots/vllm-releases.json is used")
    group.add_argument("--max-bytes", type=positive_int, default=DEFAULT_MAX_BYTES,
                       metavar="N", help="refuse YAML files larger than N bytes (a positive "
                       "integer; default 2 MiB)")
    group.add_argument("--as-of", type=iso_date, default=None, metavar="DATE",
                       help="judge with the vLLM releases published by DATE (YYYY-MM-DD, "
                       "from the vendored release list; not before the first release, "
                       "a later date than the newest means all releases)")
    group.add_argument("--vllm", default=None, metavar="VERSION",
                       help="check every recipe's install range against this one vendored "
                       "vLLM release (add one with `data vllm-cli VERSION`)")
    group.add_argument("--rendered", dest="rendered", action="store_true", default=True,
                       help="also check every command the recipes site renders (each "
                       "variant, hardware, strategy and feature set); findings name the "
                       "configurations they affect (the default)")
    group.add_argument("--as-written", dest="rendered", action=DeprecatedSwitch,
                       deprecated=("--layers-only", "--no-rendered"), value=False,
                       help="check each recipe's argument lists as written, not every "
                       "rendered command (faster; their findings name no configurations). "
                       "Overrides (FLAG012, FLAG025, FLAG029) and the rules on what the site "
                       "renders (REF014-REF016, REF018, GUIDE011) still read the rendered "
                       "commands")


class RenamedOption(argparse.Action):
    """An old option name that now names something else in other commands: refused (a
    usage error, exit 2) with the name to use, so one name never has two meanings.
    Takes an optional value, so that the message names the option and not the value."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, use: str,
                 **kwargs: object) -> None:
        self.use = use
        super().__init__(option_strings, argparse.SUPPRESS, nargs="?", help=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        parser.error(f"{option_string} was renamed: use {self.use}")


def _warn_if_deprecated(action: argparse.Action, deprecated: Sequence[str],
                        option_string: str | None) -> None:
    if option_string in deprecated:
        print(f"recipe-check: warning: {option_string} is deprecated; use "
              f"{action.option_strings[0]}", file=sys.stderr)


class DeprecatedSpelling(argparse._StoreAction):
    """``--new VALUE``, also accepted as its old spellings (``deprecated``), which print a
    warning on stderr naming the new one."""

    def __init__(self, option_strings: Sequence[str], dest: str, *,
                 deprecated: Sequence[str] = (), **kwargs: object) -> None:
        self.deprecated = tuple(deprecated)
        super().__init__([*option_strings, *self.deprecated], dest, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None,
                 option_string: str | None = None) -> None:
        _warn_if_deprecated(self, self.deprecated, option_string)
        super().__call__(parser, namespace, values, option_string)


class DeprecatedSwitch(argparse._StoreConstAction):
    """``--new``, a switch storing ``value``, also accepted as its old spellings
    (``deprecated``), which print a warning on stderr naming the new one."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, value: object,
                 deprecated: Sequence[str] = (), help: str | None = None) -> None:
        self.deprecated = tuple(deprecated)
        super().__init__([*option_strings, *self.deprecated], dest, const=value, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None,
                 option_string: str | None = None) -> None:
        _warn_if_deprecated(self, self.deprecated, option_string)
        super().__call__(parser, namespace, values, option_string)


def settings_from(args: argparse.Namespace) -> Settings:
    """The run-wide :class:`Settings` the options of :func:`add_run_arguments` describe.

    Raises:
        UsageError: ``--online-releases`` with ``--offline``, or ``--vllm`` names no
            vendored release.
    """
    if args.online_releases and args.offline:
        raise UsageError("--online-releases contradicts --offline")
    return Settings(strict=args.strict, offline=args.offline, max_bytes=args.max_bytes,
                    online_releases=args.online_releases, as_of=released_by(args.as_of),
                    vllm=vendored_vllm(args.vllm), rendered=args.rendered)


def iso_date(text: str) -> date:
    """argparse type: a ``YYYY-MM-DD`` date (a usage error otherwise, exit 2)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def released_by(when: date | None) -> date | None:
    """``--as-of``: ``when`` unchanged when some vLLM release was published by it; a date
    after the newest release means every release. A date before the first vendored
    release is a usage error: no release exists to judge with.

    Raises:
        UsageError: ``when`` is before the first release's upload day (UTC).
    """
    if when is None:
        return None
    from validator.releases import load_vendored

    first = min(load_vendored().releases, key=lambda r: r.uploaded)
    if when < first.uploaded.date():
        raise UsageError(f"--as-of {when.isoformat()}: no vLLM release was published by "
                         f"then; the first, {first.version}, was published on "
                         f"{first.uploaded.date().isoformat()} (give that date or a later "
                         "one)")
    return when


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (a usage error otherwise, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def vendored_vllm(text: str | None) -> str | None:
    """``--vllm``: the vendored release it names (PEP 440 equal), or a usage error."""
    if text is None:
        return None
    from packaging.version import InvalidVersion, Version

    from validator.vllm_cli.data_source import VLLM, CliRegistries

    try:
        want = Version(text)
    except InvalidVersion:
        raise UsageError(f"--vllm {text!r} is not a version") from None
    for v in CliRegistries().versions(VLLM):  # the project's: no settings exist yet
        if v == want:
            return str(v)
    raise UsageError(f"--vllm {text}: no vendored CLI registry of that release; add it with "
                     f"`recipe-check data vllm-cli {text}`")


def _split(values: Sequence[str], option: str) -> list[str]:
    """The selectors of each use of ``option`` (comma- or blank-separated).

    Raises:
        UsageError: one use names no rule at all (``--select ""``).
    """
    out: list[str] = []
    for value in values:
        parts = value.replace(",", " ").split()
        if not parts:
            raise UsageError(f"{option} {value!r}: names no rule (give ids, prefixes or "
                             "families, e.g. FLAG,REF001)")
        out += parts
    return out


def add_rule_arguments(parser: argparse.ArgumentParser, *, fail_on: bool = False) -> None:
    """``--select/--extend-select/--ignore/--rule/--config`` (and ``--fail-on``)."""
    group = parser.add_argument_group("rule selection (ruff's vocabulary; see README)")
    group.add_argument("--select", "--rule", action="append", default=[], metavar="IDS",
                       help="run only these rules: ids, id prefixes or families, any case "
                            "(repeatable, comma-separated; replaces the config's select)")
    group.add_argument("--extend-select", action="append", default=[], metavar="IDS",
                       help="add these rules to the selection")
    group.add_argument("--ignore", action="append", default=[], metavar="IDS",
                       help="do not report these rules (added to the config's ignore)")
    group.add_argument("--config", type=option_path, metavar="FILE",
                       help="configuration file (.recipe-check.toml or pyproject.toml with "
                            "[tool.recipe-check]; default: found at the recipes root)")
    if fail_on:
        group.add_argument("--fail-on", choices=("new", "all"), default=None,
                           help="which errors fail the run: those the change introduces "
                                "(new, the default) or every error at the head (all)")


def rule_config(args: argparse.Namespace, read: Callable[[str], bytes] | None = None,
                exists: Callable[[str], bool] | None = None, label: str = "",
                names: Sequence[str] | None = None) -> Config:
    """The run's :class:`Config`: ``--config``, else the file found through ``read`` and
    ``exists`` at the recipes root (when given), with the command-line options applied.
    With ``names`` (``pr``: ``--config`` names a file inside the repository) the first of
    them found through ``read`` and ``exists`` is used instead of ``--config``'s file on
    disk (none found: no configuration file).

    Raises:
        ConfigError: the file or an option is wrong (message ``file:line: ...``).
    """
    if names is not None and read is not None and exists is not None:
        config = find_config(read, exists, label, names)
    elif args.config is not None:
        config = load_config_file(args.config)
    elif read is not None and exists is not None:
        config = find_config(read, exists, label)
    else:
        config = Config()
    config = config.with_options(select=_split(args.select, "--select"),
                                 extend_select=_split(args.extend_select,
                                                      "--extend-select"),
                                 ignore=_split(args.ignore, "--ignore"),
                                 fail_on=getattr(args, "fail_on", None))
    _warn_if_no_rule_runs(args, config)
    return config


def config_reader(tree: LocalTree) -> tuple[Callable[[str], bytes], Callable[[str], bool], str]:
    """``read``, ``exists`` and label of the configuration files at a local recipes root
    (for :func:`~validator.config.find_config`): read as every file of the tree is
    (:meth:`LocalTree.read`: a regular file only, a FIFO never waited on, a link leaving
    the root never followed), and a folder or dangling link of a configuration file's
    name counts as there (an error, not an unconfigured run)."""
    root = tree.root
    return tree.read, (lambda name: os.path.lexists(root / name)), tree.label


def local_rule_config(args: argparse.Namespace, tree: LocalTree) -> Config:
    """:func:`rule_config` with the configuration file at a local recipes root
    (:func:`config_reader`): ``check`` and ``history`` read it alike."""
    return rule_config(args, *config_reader(tree))


def _warn_if_no_rule_runs(args: argparse.Namespace, config: Config) -> None:
    """A selection that leaves no rule passes every file: say so on stderr, once a run
    (``args`` is the run's; commands read the configuration more than once)."""
    if not config.ignore and (config.select is None or "ALL" in config.select):
        return  # every rule is selected (known without importing the rules)
    policy = Policy(config)
    warned: set[str] = vars(args).setdefault("_warned_no_rule", set())
    where = config.source or "the command line"
    if where in warned or any(policy.selected(rule_id) for rule_id in known_ids()):
        return
    warned.add(where)
    chosen = ", ".join(f"{key} = {json.dumps(list(value))}" for key, value in (
        ("select", config.select), ("extend-select", config.extend_select),
        ("ignore", config.ignore)) if value is not None and (value or key == "select"))
    print(f"recipe-check: warning: {where}: {chosen or 'the selection'} leaves no rule "
          "selected: nothing is checked and every file passes, except for the always "
          "reported PROV errors (bytes that failed verification or were refused unread)",
          file=sys.stderr)


STDOUT = "-"
"""A report ``FILE`` of ``-`` is standard output, as for most command-line tools."""

STDOUT_PATH = Path(STDOUT)


def is_stdout(path: Path | None) -> bool:
    """Whether a report option's value writes to standard output (absent, or ``-``)."""
    return path is None or path is STDOUT_PATH or str(path) == STDOUT


#: Names of standard output as a file (followed to the process's descriptor 1).
STDOUT_FILES = frozenset({"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})


def goes_to_stdout(path: Path | None) -> bool:
    """Whether writing a report option's value writes standard output: :func:`is_stdout`,
    a name of it (:data:`STDOUT_FILES`), or the very file (pipe, terminal, redirected
    file) descriptor 1 is."""
    if is_stdout(path) or str(path) in STDOUT_FILES:
        return True
    if os.path.realpath(str(path)) == os.devnull:
        return False  # what goes there is dropped: nothing runs into anything
    try:
        return os.path.samestat(os.stat(str(path)), os.fstat(1))
    except OSError:
        return False


def summary_target(args: argparse.Namespace, fmt: str | None,
                   env: Mapping[str, str] | None = None) -> tuple[str, Path] | None:
    """(what names it, file) of the job summary a run with format ``fmt`` appends to:
    ``--summary FILE``, else ``$GITHUB_STEP_SUMMARY`` with ``--format github``; ``None``
    with ``--no-summary`` or neither."""
    env = os.environ if env is None else env
    if getattr(args, "no_summary", False):
        return None
    if getattr(args, "summary", None) is not None:
        return "--summary", args.summary
    if fmt == "github" and env.get("GITHUB_STEP_SUMMARY"):
        return "$GITHUB_STEP_SUMMARY", Path(env["GITHUB_STEP_SUMMARY"])
    return None


def report_file(text: str) -> Path:
    """The ``FILE`` of a report option; ``-`` is standard output (:data:`STDOUT_PATH`;
    write ``./-`` for a file of that name). A name ending in ``/`` names a folder, which
    ``Path`` would drop, writing a file of the folder's name; an empty name is the
    current folder.

    Raises:
        argparse.ArgumentTypeError: either (a usage error, exit 2).
    """
    if not text:
        raise argparse.ArgumentTypeError("an empty file name")
    if text == STDOUT:
        return STDOUT_PATH
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(
            f"{text!r} ends with '/', so it names a folder: name the report file "
            f"(e.g. {text}findings.json)")
    problem = output_problem(Path(text))
    if problem is not None:  # a folder, a socket: refused before the run, not after it
        raise argparse.ArgumentTypeError(f"{text!r} {problem}")
    return Path(text)


def add_output_arguments(parser: argparse.ArgumentParser, formats: Sequence[str],
                         default: str | None = "text", *,
                         file_formats: Sequence[str] = FILE_FORMATS,
                         summary: bool = True) -> None:
    """``--format/--output`` and, per entry of ``file_formats``, ``--<format> FILE``;
    ``--summary/--no-summary`` when ``summary``."""
    group = parser.add_argument_group("output")
    group.add_argument("--format", action="append", choices=sorted(formats), default=[],
                       help="format written to stdout (or to --output; default: "
                            f"{default or 'github inside GitHub Actions, else text'})")
    group.add_argument("--output", type=report_file, metavar="FILE",
                       help="write the report here instead of stdout (the --format one)")
    for fmt in file_formats:
        group.add_argument(f"--{fmt}", type=report_file, metavar="FILE", dest=f"{fmt}_file",
                           help=f"also write the {fmt} report to FILE")
    if summary:
        group.add_argument("--summary", type=report_file, metavar="FILE",
                           help="append the Markdown job summary to FILE (default: "
                                "$GITHUB_STEP_SUMMARY with --format github)")
        group.add_argument("--no-summary", action="store_true", help="write no job summary")


def chosen_format(args: argparse.Namespace, default: str | None) -> str:
    """The one ``--format`` (``default``, or ``github``/``text`` by ``GITHUB_ACTIONS``).

    Raises:
        UsageError: ``--format`` given more than once with different values.
    """
    chosen = list(dict.fromkeys(args.format))
    if len(chosen) > 1:
        others = [f"--{f} FILE" for f in FILE_FORMATS if hasattr(args, f"{f}_file")]
        raise UsageError(f"--format given as {', '.join(chosen)}: one format goes to stdout"
                         + (f" (or --output); write others with {', '.join(others)}"
                            if others else ""))
    if chosen:
        return str(chosen[0])
    if default is None:
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return default


Writer = Callable[[str, TextIO], None]
"""Writes the run's report in a format onto a stream."""


def write_outputs(args: argparse.Namespace, write: Writer, fmt: str,
                  file_formats: Sequence[str] = FILE_FORMATS,
                  summary: Callable[[Path], int] | None = None,
                  env: Mapping[str, str] | None = None) -> None:
    """Write ``fmt`` to stdout or ``--output``, each ``--<format> FILE``, and the job
    summary (``summary(path)`` appends it, returning the bytes written).

    Raises:
        UsageError: a file cannot be written.
    """
    env = os.environ if env is None else env
    targets: list[tuple[str, Path | None]] = [(fmt, args.output)]
    targets += [(f, getattr(args, f"{f}_file")) for f in file_formats
                if getattr(args, f"{f}_file", None) is not None]
    for name, path in targets:
        if path is None or is_stdout(path):
            write(name, sys.stdout)
            continue
        buffer = io.StringIO()
        write(name, buffer)
        try:  # through links, into FIFOs and devices; a regular file atomically
            write_output(path, buffer.getvalue().encode("utf-8"))
        except OSError as exc:
            raise UsageError(f"{path}: {exc.strerror or exc}") from exc
    named = summary_target(args, fmt, env)
    if named is None or summary is None:
        return
    target = named[1]
    try:
        if summary(target) == 0:
            print(f"recipe-check: {target} already holds GitHub's 1 MiB; summary not "
                  "written", file=sys.stderr)
    except OSError as exc:
        raise UsageError(f"{target}: {exc.strerror or exc}") from exc
