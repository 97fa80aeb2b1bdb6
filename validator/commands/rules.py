"""``recipe-check rules``: the rule catalogue (id, severity, whether ``--fix`` fixes it
(``fix: safe``) or ``--unsafe-fixes`` does (``fix: unsafe``), summary; ``--long`` adds
the description and where the rule and its fix are; ``--format json`` for tools, with
each rule's ``module``, the file that declares it)."""

from __future__ import annotations

import argparse
import json

from validator.commands.options import chosen_format
from validator.rule_index import all_rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``rules``."""
    parser.add_argument("--format", action="append", choices=["text", "json", "markdown"],
                        default=[], help="format written to stdout (default: text)")
    parser.add_argument("--long", action="store_true", help="include each rule's description")


def run(args: argparse.Namespace) -> int:
    """Print the catalogue; always exit 0."""
    args.format = chosen_format(args, "text")
    rules = all_rules()
    if args.format == "json":
        print(json.dumps([{"id": r.id, "severity": r.severity.value, "family": r.family,
                           "summary": r.summary, "fix": r.fix, "description": r.description,
                           "where": r.where, "module": r.module,
                           "fix_where": fix_location(r.id)}
                          for r in rules], indent=2))
    elif args.format == "markdown":
        from validator.docs import rules_markdown

        print(rules_markdown(rules), end="")
    else:
        for r in rules:
            fix = f"fix: {r.fix}" if r.fix else ""
            print(f"{r.id:<10} {r.severity.value:<8} {fix:<12} {r.summary}")
            if args.long:
                fixed = fix_location(r.id)
                print(f"    defined in {r.where}"
                      + (f"; its fix in {fixed}" if fixed else "") + "\n")
                print("\n".join("    " + line for line in r.description.splitlines()) + "\n")
    return 0


def fix_location(rule_id: str) -> str | None:
    """Where the fix of ``rule_id`` is defined (``None`` when it has none)."""
    from validator.fix.registry import FIXES
    from validator.rules.metadata import source_location

    spec = FIXES.get(rule_id)
    if spec is None:
        return None
    code = spec.fn.__code__
    return source_location(spec.fn.__module__, code.co_firstlineno)
