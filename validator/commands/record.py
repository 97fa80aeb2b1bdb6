"""``recipe-check record SPEC``: one evidence record for one pinned document.

SPEC is ``OWNER/REPO@REV:PATH`` (see :mod:`validator.source.spec`); the document is read
with the git backend (default), over HTTP, from the snapshot store (``--offline``), or --
with ``--manifest FILE`` -- from single files listed in a manifest and read in place
(:class:`validator.evidence.sources.ManifestTree`). The record is validated against
``schemas/record.schema.json`` before it is written. ``--attestation`` wraps it in an
in-toto Statement v1. ``--print-schema`` prints the record schema generated from the
model (redirect it to ``schemas/record.schema.json`` to regenerate the checked-in file).

Exit codes: 0 record written (whatever the findings in it), 2 usage, input or I/O failure.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime

from validator.commands.options import is_stdout, report_file
from validator.context import Settings
from validator.errors import UsageError
from validator.paths import option_path
from validator.source.options import add_fetch_arguments, fetch_options_from
from validator.source.tree import RecipeTree

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def checked_on(value: str | None) -> str:
    """``value`` checked as ``YYYY-MM-DD`` (a real date), or today's UTC date.

    Raises:
        UsageError: not a valid date.
    """
    if value is None:
        return datetime.now(UTC).date().isoformat()
    if not _DATE.match(value):
        raise UsageError(f"--checked-on {value!r}: expected YYYY-MM-DD")
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError as exc:
        raise UsageError(f"--checked-on {value!r}: {exc}") from exc
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``record``."""
    parser.add_argument("spec", nargs="?", metavar="SPEC", help="OWNER/REPO@REV:PATH")
    parser.add_argument("--checked-on", metavar="YYYY-MM-DD",
                        help="the date the records state they were checked (default: today, UTC)")
    parser.add_argument("--output", type=report_file, metavar="FILE",
                        help="write the report here instead of stdout (the record; '-': stdout)")
    parser.add_argument("--attestation", action="store_true",
                        help="write each record as an in-toto Statement v1 (in place of the bare "
                             "record)")
    parser.add_argument("--manifest", type=option_path, metavar="FILE",
                        help="read single files listed in this MANIFEST.json (in place)")
    parser.add_argument("--print-schema", action="store_true",
                        help="print the record JSON Schema generated from the model")
    add_fetch_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Build, validate and write one record; 0 on success."""
    from validator.evidence.model import schema_text

    if args.print_schema:
        sys.stdout.write(schema_text())
        return 0
    if not args.spec:
        raise UsageError("record needs SPEC (OWNER/REPO@REV:PATH)")
    from validator.evidence.attest import statement_bytes
    from validator.evidence.record import build_record, record_bytes
    from validator.paths import is_recipe_path
    from validator.source.spec import parse_spec

    date = checked_on(args.checked_on)
    spec = parse_spec(args.spec)
    if not is_recipe_path(spec.path):  # a taxonomy or strategy would be judged as a recipe
        raise UsageError(f"{args.spec}: {spec.path!r} is not a recipe (models/**.yaml or "
                         ".yml): a record describes one recipe; check a context file with "
                         "`recipe-check check`")
    if not is_stdout(args.output):  # before anything is fetched or written
        from validator.commands.output_guard import refuse_overwriting

        refuse_overwriting(args, [args.manifest] if args.manifest is not None else [])
    tree: RecipeTree
    if args.manifest is not None:
        from validator.evidence.sources import ManifestTree

        if not spec.pinned:
            raise UsageError(f"{args.spec}: a manifest names full commit ids only")
        tree = ManifestTree(args.manifest, spec.repository, spec.rev)
        path = spec.path
    else:
        from validator.source.targets import open_spec

        options = fetch_options_from(args)
        tree, path = open_spec(spec, options)
    record = build_record(tree, path, checked_on=date,
                          settings=Settings(offline=True))
    data = statement_bytes(record) if args.attestation else record_bytes(record)
    if not is_stdout(args.output):
        from validator.atomic import write_output

        try:  # through links, into FIFOs and devices; a regular file atomically
            write_output(args.output, data)
        except OSError as exc:
            raise UsageError(f"{args.output}: {exc.strerror or exc}") from exc
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
