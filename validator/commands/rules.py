"""``recipe-check rules``: the rule catalogue (id, severity, whether ``--fix`` fixes it
(``fix: safe``) or ``--unsafe-fixes`` does (``fix: unsafe``), summary; ``--long`` adds
the description and where the rule and its fix are; ``--format json`` for tools, with
each rule's ``module``, the file that declares it)."""

from __future__ import annotations

import argparse
import difflib
import json

from validator.commands.options import chosen_format
from validator.config import matches
from validator.errors import UsageError
from validator.rule_index import all_rules
from validator.rules.metadata import Rule


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``rules``."""
    parser.add_argument("--format", action="append", choices=["text", "json", "markdown"],
                        default=[], help="format written to stdout (default: text)")
    parser.add_argument("--long", action="store_true", help="include each rule's description")
    parser.add_argument("selectors", nargs="*", metavar="ID",
                        help="only these rules, by id or prefix (GUIDE011, REF, flag); one "
                        "named alone is shown with its description, as --long")


def run(args: argparse.Namespace) -> int:
    """Print the catalogue (or the rules ``ID`` selects); 0, or 2 for an ``ID`` that
    selects no rule."""
    args.format = chosen_format(args, "text")
    rules = chosen_rules(args.selectors)
    args.long = args.long or len(rules) == 1
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


def chosen_rules(selectors: list[str]) -> list[Rule]:
    """The rules ``selectors`` name (ids or prefixes, any case; every rule when none).

    Raises:
        UsageError: a selector names no rule (with the ids it may have meant).
    """
    rules = all_rules()
    if not selectors:
        return rules
    chosen = []
    for selector in selectors:
        found = [r for r in rules if matches(selector.upper(), r.id)]
        if not found:
            near = difflib.get_close_matches(selector.upper(), [r.id for r in rules], n=3)
            raise UsageError(f"rules: {selector!r} names no rule"
                             + (f" (did you mean {', '.join(near)}?)" if near else ""))
        chosen += [r for r in found if r not in chosen]
    return chosen


def fix_location(rule_id: str) -> str | None:
    """Where the fix of ``rule_id`` is defined (``None`` when it has none)."""
    from validator.fix.registry import FIXES
    from validator.rules.metadata import source_location

    spec = FIXES.get(rule_id)
    if spec is None:
        return None
    code = spec.fn.__code__
    return source_location(spec.fn.__module__, code.co_firstlineno)
