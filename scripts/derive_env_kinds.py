"""Derive ``snapshots/vllm-env-kinds.json``: per vendored vLLM release, how its
``vllm/envs.py`` reads the value of each environment variable, from the release's own
artifact (the sdist or wheel each ``snapshots/vllm-cli/<version>.json`` was extracted from,
fetched from the package index and verified against the sha256 that file's provenance
records, as ``scripts/derive_speculative_config.py`` does).

The source is read, never run: :mod:`ast` finds the ``environment_variables`` dict and
classifies each entry's getter, recording only what it reads with certainty:

- ``int``: ``int(os.getenv(NAME, ...))`` (also inside ``bool(...)``): a value ``int()``
  does not parse raises ``ValueError`` when vLLM reads the variable;
- ``float``: ``float(os.getenv(NAME, ...))``, the same with ``float()``;
- ``bool``: ``os.getenv(NAME, ...)`` (optionally ``.lower()``) compared ``==`` a string or
  ``in`` a tuple/list of strings: those strings (``true``) are read as on, any other value
  silently as off;
- ``choices``: ``env_with_choices(NAME, default, [strings], case_sensitive=...)``: another
  value raises ``ValueError``.

A getter of any other shape (a helper function, a computed default, a list, a path) is
left out: its value is not judged. ``getenv`` may also be spelt ``os.environ.get``, and
the read may be guarded by ``... if NAME in os.environ else None``.

    python scripts/derive_env_kinds.py --artifacts DIR [--out FILE]

``DIR`` caches the downloaded artifacts (about 2.3 GB for every release).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.release_sources import (  # noqa: E402
    SNAPSHOTS,
    derive_main,
    snapshots,
    source_files,
)

OUT = SNAPSHOTS / "vllm-env-kinds.json"
FORMAT = "recipe-check/vllm-env-kinds/v1"
SOURCE = "vllm/envs.py"


def envs_source(artifact: Path) -> str:
    """The text of ``vllm/envs.py`` in an sdist or wheel."""
    found = source_files(artifact, (SOURCE,))
    if SOURCE not in found:
        raise ValueError(f"{artifact}: no {SOURCE}")
    return found[SOURCE]


def _reads(node: ast.expr, name: str) -> bool:
    """Whether ``node`` is ``os.getenv(name, ...)``, ``os.environ.get(name, ...)`` or
    ``os.environ[name]``."""
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) == "os.environ" and \
            isinstance(node.slice, ast.Constant) and node.slice.value == name
    if not isinstance(node, ast.Call) or not node.args:
        return False
    first = node.args[0]
    return ast.unparse(node.func) in ("os.getenv", "os.environ.get") and \
        isinstance(first, ast.Constant) and first.value == name


def _unguarded(body: ast.expr, name: str) -> ast.expr:
    """``body`` without a ``X if NAME in os.environ else None`` guard (the read is ``X``)."""
    if isinstance(body, ast.IfExp) and isinstance(body.orelse, ast.Constant) \
            and body.orelse.value is None and isinstance(body.test, ast.Compare) \
            and isinstance(body.test.left, ast.Constant) and body.test.left.value == name \
            and isinstance(body.test.ops[0], ast.In) \
            and ast.unparse(body.test.comparators[0]) == "os.environ":
        return body.body
    return body


def _strings(node: ast.expr) -> list[str] | None:
    """The strings of a constant string, or tuple/list/set of them; else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _boolean(body: ast.expr, name: str) -> dict[str, Any] | None:
    """The ``bool`` kind of ``READ[.lower()] == "s"`` / ``READ[.lower()] in (...)``."""
    if not (isinstance(body, ast.Compare) and len(body.ops) == 1
            and isinstance(body.ops[0], ast.Eq | ast.In)):
        return None
    left, lower = body.left, False
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) \
            and left.func.attr == "lower" and not left.args:
        left, lower = left.func.value, True
    true = _strings(body.comparators[0])
    if not _reads(left, name) or true is None:
        return None
    if isinstance(body.ops[0], ast.Eq) and len(true) != 1:
        return None
    return {"kind": "bool", "true": sorted(set(true)), "case_sensitive": not lower}


def _choices(body: ast.expr, name: str) -> dict[str, Any] | None:
    """The ``choices`` kind of ``env_with_choices(NAME, default, [...], ...)``."""
    if not (isinstance(body, ast.Call) and isinstance(body.func, ast.Name)
            and body.func.id == "env_with_choices" and len(body.args) >= 3):
        return None
    first = body.args[0]
    choices = _strings(body.args[2])
    if not (isinstance(first, ast.Constant) and first.value == name) or choices is None:
        return None
    sensitive: Any = body.args[3] if len(body.args) > 3 else next(
        (k.value for k in body.keywords if k.arg == "case_sensitive"), ast.Constant(True))
    if not (isinstance(sensitive, ast.Constant) and isinstance(sensitive.value, bool)):
        return None
    return {"kind": "choices", "choices": sorted(set(choices)),
            "case_sensitive": sensitive.value}


def classify(name: str, value: ast.expr) -> dict[str, Any] | None:
    """The kind of the getter ``value`` of variable ``name``, or ``None`` (unknown)."""
    found = _choices(value, name)
    if found is not None or not (isinstance(value, ast.Lambda) and not value.args.args):
        return found
    body = _unguarded(value.body, name)
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) \
            and body.func.id == "bool" and len(body.args) == 1:
        inner = body.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) \
                and inner.func.id == "int":
            body = inner
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) \
            and body.func.id in ("int", "float") and len(body.args) == 1 \
            and not body.keywords and _reads(body.args[0], name):
        return {"kind": body.func.id}
    return _boolean(body, name)


def env_kinds(source: str) -> dict[str, dict[str, Any]]:
    """The kinds of the variables of ``environment_variables`` in ``source`` (envs.py)
    that :func:`classify` reads with certainty, by name."""
    tree = ast.parse(source)
    for stmt in tree.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        table = stmt.value if isinstance(stmt, ast.AnnAssign | ast.Assign) else None
        if isinstance(target, ast.Name) and target.id == "environment_variables" \
                and isinstance(table, ast.Dict):
            out = {}
            for key, value in zip(table.keys, table.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    kind = classify(key.value, value)
                    if kind is not None:
                        out[key.value] = kind
            return out
    raise ValueError(f"no environment_variables dict in {SOURCE}")


def dump(doc: dict[str, Any]) -> str:
    """``doc`` as JSON with sorted keys, one line per variable of each release."""
    def compact(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(", ", ": "))

    head = {k: v for k, v in doc.items() if k != "releases"}
    parts = [f" {compact(k)}: {compact(v)}" for k, v in sorted(head.items())]
    releases = []
    for version, entry in sorted(doc["releases"].items()):
        fields = [f"   {compact(k)}: {compact(v)}" for k, v in sorted(entry.items())
                  if k != "kinds"]
        kinds = ",\n".join(f"    {compact(n)}: {compact(k)}"
                           for n, k in sorted(entry["kinds"].items()))
        fields.append('   "kinds": {\n' + kinds + "\n   }")
        releases.append(f"  {compact(version)}: {{\n" + ",\n".join(fields) + "\n  }")
    parts.append(' "releases": {\n' + ",\n".join(releases) + "\n }")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> int:
    return derive_main(__doc__ or "", OUT, FORMAT, "scripts/derive_env_kinds.py",
                       snapshots(lambda doc: bool(doc.get("env_vars")) and "provenance" in doc),
                       lambda _, local: {"source": SOURCE,
                                         "kinds": env_kinds(envs_source(local))},
                       dump)


if __name__ == "__main__":
    raise SystemExit(main())
