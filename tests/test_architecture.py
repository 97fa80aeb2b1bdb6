"""The import graph of ``validator`` has no cycle, and each layer imports only the layers
below it (the table in ``docs/architecture.md``).

The graph is built from the source with :mod:`ast`, without importing anything: an edge
``a -> b`` for every ``import validator.b`` / ``from validator.b import x`` in module
``a``, at module level and inside functions (lazy imports count: they run too). ``from
validator.x import y`` is an import of ``validator.x`` (its ``__init__``), and also of
``validator.x.y`` when that is a module. Imports under ``if TYPE_CHECKING:`` are edges
too: they do not run, but a cycle through one is two modules that each need the other to
be understood (and a type-only import turns into a real one as soon as it is used). A
package's ``__init__`` is not counted as imported by its submodules (Python runs it, but
an ``__init__`` that imports nothing of its own package, as ``validator.analysis`` and
``validator.fix`` do, cannot close a cycle that way).
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "validator"

ALLOWED_CYCLES: list[frozenset[str]] = []
"""Cycles still to break (each a set of modules); empty, and it must stay so: a new cycle
fails the test instead of being added here."""


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line``."""

    source: str
    target: str
    line: int


def _module_names() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        parts = list(file.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = file
    return out


MODULES = _module_names()


def _resolve(name: str) -> str | None:
    """The module ``name`` names, or its nearest enclosing module (an attribute import)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(module: str, file: Path) -> Iterator[Edge]:
    is_package = file.name == "__init__.py"
    tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name) if alias.name.startswith("validator") else None
                if target:
                    yield Edge(module, target, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                name = base + ("." + node.module if node.module else "")
            else:
                name = node.module or ""
            if name == "validator" or name.startswith("validator."):
                target = _resolve(name)
                if target:
                    yield Edge(module, target, node.lineno)
                for alias in node.names:
                    if f"{name}.{alias.name}" in MODULES:
                        yield Edge(module, f"{name}.{alias.name}", node.lineno)
        pending.extend(ast.iter_child_nodes(node))


def import_graph() -> dict[str, dict[str, int]]:
    """Module -> {imported module: first line importing it}."""
    graph: dict[str, dict[str, int]] = {}
    for module, file in MODULES.items():
        targets: dict[str, int] = {}
        for edge in _imports(module, file):
            if edge.target != module:
                targets[edge.target] = min(edge.line, targets.get(edge.target, edge.line))
        graph[module] = targets
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one
    cycle through them, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(start: str) -> None:  # iterative, so that depth is no concern
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_one_cycle(graph, component) for component in found]


def _one_cycle(graph: dict[str, dict[str, int]], component: set[str]) -> list[str]:
    """A shortest cycle through the smallest module of ``component`` (breadth first)."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if child in component and child not in parents:
                    parents[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle in {component}")


def _describe(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    steps = [f"{a} (line {graph[a][b]}) -> {b}" for a, b in itertools.pairwise(cycle)]
    return "\n    ".join(steps)


@functools.cache
def module_graph() -> dict[str, dict[str, int]]:
    """:func:`import_graph`, built once per process, when a test first asks for it (not
    while pytest collects: every xdist worker imports this module)."""
    return import_graph()


def test_the_graph_sees_lazy_and_from_imports() -> None:
    # a function-level import (the rule index, read by validator.config when it runs)
    assert "validator.rule_index" in module_graph()["validator.config"]
    # ``from validator.analysis import arg_layers`` imports the package and the module
    guide = set(module_graph()["validator.rules.guide.facts"])
    assert {"validator.analysis", "validator.analysis.arg_layers"} <= guide
    # a TYPE_CHECKING import is an edge too: a cycle through one is still a cycle
    assert "validator.recipe_diff" in module_graph()["validator.report.markdown"]
    assert len(module_graph()) > 100


def test_cycles_are_found() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}, "e": {"e": 1}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_import_cycle() -> None:
    remaining = [c for c in cycles(module_graph()) if frozenset(c[:-1]) not in ALLOWED_CYCLES]
    assert not remaining, "import cycles:\n  " + "\n  ".join(
        _describe(module_graph(), c) for c in remaining)


def test_no_allowed_cycle_is_gone_unnoticed() -> None:
    present = {frozenset(c[:-1]) for c in cycles(module_graph())}
    assert [sorted(c) for c in ALLOWED_CYCLES if c not in present] == [], (
        "a cycle of ALLOWED_CYCLES was broken: remove it from the list")


SPLIT_PACKAGES = frozenset({"validator.rules"})
"""Packages whose modules and subpackages are layers of their own (``validator.rules``:
the metadata at the bottom, the check API above the loader and the context, the families
above it)."""


def _package(module: str) -> str:
    """The layer a module belongs to: ``validator.X`` for a subpackage (``validator.X.Y``
    inside :data:`SPLIT_PACKAGES`), else the module."""
    parts = module.split(".")
    depth = 3 if ".".join(parts[:2]) in SPLIT_PACKAGES else 2
    return ".".join(parts[:depth]) if len(parts) > 1 else module


LAYERS: dict[str, set[str]] = {
    # package -> the project packages/modules it may import (besides itself)
    "validator.errors": set(),
    "validator.findings": set(),
    "validator.rules": set(),
    "validator.rules.metadata": {"validator.findings"},
    "validator.rules.api": {"validator.context", "validator.findings", "validator.load",
                            "validator.rules.metadata"},
    "validator.identity": {"validator.findings", "validator.sourcemap"},
    "validator.rules.yaml": {"validator.findings", "validator.rules.metadata",
                             "validator.fix"},  # only rules/yaml/fixes.py, which load never imports
    "validator.rules.schema": {"validator.findings", "validator.rules.metadata"},
    "validator.rules.prov": {"validator.findings", "validator.rules.metadata"},
    "validator.rules.rc": {"validator.findings", "validator.rules.metadata"},
    "validator.source": {"validator", "validator.atomic", "validator.errors", "validator.paths",
                         "validator.owned_folder", "validator.findings", "validator.rules.metadata",
                         "validator.rules.prov"},
    "validator.load": {"validator.findings", "validator.rules.metadata", "validator.rules.yaml",
                       "validator.sourcemap"},
    "validator.format_history": {"validator.paths"},
    "validator.globs": {"validator.errors"},
    "validator.progress": set(),
    "validator.unit_pool": set(),
    "validator.settings": set(),
    "validator.file_digests": set(),
    "validator.cache": {"validator", "validator.atomic", "validator.file_digests",
                        "validator.paths", "validator.owned_folder", "validator.state_json",
                        "validator.settings", "validator.rules.metadata"},
    # REF025's index in the result cache, read without the renderer (a warm history audit)
    "validator.claims_store": {"validator.cache"},
    "validator.schema": {"validator.findings", "validator.format_history", "validator.load",
                         "validator.paths", "validator.rules.metadata", "validator.rules.schema",
                         "validator.sourcemap"},
    "validator.context": {"validator.load", "validator.source", "validator.findings",
                          "validator.paths", "validator.rules.metadata", "validator.settings",
                          "validator.vllm_cli"},  # CliRegistries, for the type of ctx.cli
    "validator.render": {"validator.atomic", "validator.context", "validator.errors",
                         "validator.findings", "validator.load", "validator.owned_folder",
                         "validator.paths", "validator.source", "validator.sourcemap",
                         "validator.unit_pool"},  # the site API build renders on every core
    "validator.owned_folder": {"validator.atomic", "validator.state_json"},
    "validator.state_json": set(),
    # the derived registries are package data (compact.py): no cache, nothing written
    "validator.vllm_cli": {"validator.errors", "validator.paths", "validator.releases",
                           "validator.state_json"},
    "validator.guide": {"validator.errors", "validator.paths"},
    "validator.releases": {"validator.errors", "validator.paths", "validator.state_json"},
    "validator.analysis": {"validator.context", "validator.findings", "validator.guide",
                           "validator.load", "validator.paths", "validator.releases",
                           "validator.render", "validator.rules.metadata", "validator.sourcemap",
                           "validator.vllm_cli"},
    # REF025's index of the variant ids of a tree's recipes (kept in the result cache)
    "validator.api_claims": {"validator.analysis", "validator.cache", "validator.claims_store",
                             "validator.context", "validator.load", "validator.paths",
                             "validator.render"},
}
CHECK_FAMILY_IMPORTS = {"validator.analysis", "validator.context", "validator.findings",
                        "validator.fix",
                        "validator.guide", "validator.load", "validator.paths",
                        "validator.releases", "validator.render", "validator.vllm_cli",
                        "validator.rules.api", "validator.rules.metadata",
                        "validator.sourcemap"}
"""What a family of check rules may import (``validator.analysis`` for the domain code
the families share)."""
LAYERS.update({
    "validator.rules.ref": CHECK_FAMILY_IMPORTS | {"validator.api_claims"},
    "validator.rules.hw": CHECK_FAMILY_IMPORTS,
    # ENV002 reads a context file's env maps where REF018 does (rules.ref.context_values)
    "validator.rules.env": CHECK_FAMILY_IMPORTS | {"validator.rules.ref"},
    # FLAG judges the context files' lists with REF's shell-code check and ENV's
    # download-source check (context_arg_hits: every rule's hits of one context file)
    "validator.rules.flag": CHECK_FAMILY_IMPORTS | {"validator.rules.env", "validator.rules.ref"},
    # GUIDE011 compares with the structured args (FLAG's reads) and names hardware (HW's)
    "validator.rules.guide": CHECK_FAMILY_IMPORTS | {"validator.rules.flag", "validator.rules.hw"},
    # VER014 reads which variants a text names (HW's multi-node text)
    "validator.rules.ver": CHECK_FAMILY_IMPORTS | {"validator.rules.hw"},
})
"""The strict lower layers: each may import only what is listed (the rest of the graph
is kept one-way by :func:`test_no_import_cycle` and :data:`NEVER_BELOW`)."""

NEVER_BELOW: dict[str, set[str]] = {
    # these modules are imported by nothing of the pipeline below the drivers
    "validator.commands": {"validator.cli"},
    "validator.rule_index": {"validator.config", "validator.fix", "validator.report",
                            "validator.commands", "validator.pr", "validator.history",
                            "validator.evidence", "validator.session"},
}
"""Module/package -> the only packages that may import it (besides itself)."""


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_lower_layers_import_only_what_is_below_them(layer: str) -> None:
    allowed = LAYERS[layer] | {layer}
    wrong = sorted(f"{module} (line {line}) imports {target}"
                   for module, targets in module_graph().items() if _package(module) == layer
                   for target, line in targets.items()
                   if target not in allowed and _package(target) not in allowed)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("imported", sorted(NEVER_BELOW))
def test_upper_layers_are_imported_only_from_above(imported: str) -> None:
    allowed = NEVER_BELOW[imported] | {imported}
    wrong = sorted(f"{module} (line {line}) imports {target}"
                   for module, targets in module_graph().items()
                   for target, line in targets.items()
                   if _package(target) == imported and _package(module) not in allowed
                   and module not in allowed)
    assert not wrong, "\n".join(wrong)


def _declares_rules(file: Path) -> bool:
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else (
                func.attr if isinstance(func, ast.Attribute) else "")
            if name in ("rule", "declare") and node.args and isinstance(
                    node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                return True
    return False


def test_every_module_declaring_rules_is_in_the_rule_index() -> None:
    from validator.rule_index import RULE_MODULES

    listed = {m.__name__ for m in RULE_MODULES}
    declaring = {name for name, file in MODULES.items()
                 if name != "validator.rules.metadata" and _declares_rules(file)}
    assert declaring - listed == set(), "add these modules to validator.rule_index.RULE_MODULES"
    assert listed - declaring == set(), "these modules of RULE_MODULES declare no rule"


def test_every_rule_family_has_its_test_folder() -> None:
    """``tests/rules/`` mirrors ``validator/rules/``: a family's rules are tested in
    ``tests/rules/<family>/`` (a newcomer finds both by the family's name)."""
    families = {p.name for p in (PACKAGE / "rules").iterdir()
                if p.is_dir() and (p / "__init__.py").is_file()}
    tested = {p.name for p in (ROOT / "tests" / "rules").iterdir()
              if p.is_dir() and any(p.glob("test_*.py"))}
    assert families - tested == set(), "give these rule families a tests/rules/ folder"
    assert tested - families == set(), "these tests/rules/ folders name no rule family"


def _rewraps(file: Path) -> list[int]:
    """Lines of ``raise UsageError(str(exc))``: a stage error re-raised as a usage error,
    which the command line converts by itself (the error already says what failed)."""
    lines = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                and isinstance(node.exc.func, ast.Name) and node.exc.func.id == "UsageError"
                and len(node.exc.args) == 1 and isinstance(node.exc.args[0], ast.Call)
                and isinstance(node.exc.args[0].func, ast.Name)
                and node.exc.args[0].func.id == "str"):
            lines.append(node.lineno)
    return lines


def test_stage_errors_are_converted_in_one_place() -> None:
    found = {name: lines for name, file in MODULES.items() if (lines := _rewraps(file))}
    assert found == {}, "let the RecipeCheckError propagate to validator.cli"
