"""The package's import graph (read from the sources: every ``import`` and ``from .. import``,
those inside functions included, so a lazy import that hides a cycle counts) keeps its layers:
no import cycle among the modules of the tiers below, and no module of a lower layer
(dialects < transforms and analysis < driver < launchers and cli) importing a higher one.  A
shared piece two modules need belongs in a lower module both import."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

ACYCLIC = ("tileorch.transforms.tileas", "tileorch.launchers", "tileorch.kernels",
           "tileorch.transforms.cudatile_to_tileaa", "tileorch.transforms.tileaa_to_tileas", "tileorch.frontend",
           "tileorch.cli", "tileorch.runtime")
"""Packages whose modules import each other without a cycle (the package's ``__init__`` and the
modules outside it left out)."""

LAYERS = {"dialects": 0, "analysis": 1, "transforms": 1, "driver": 2, "launchers": 3, "cli": 3}
"""``tileorch.<top>`` -> its layer: a module may import its own layer and those below."""


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """module -> the package's modules it imports (a ``from p import name`` counts ``p.name`` when
    that is a module, else ``p``)."""
    modules = {}
    for path in src.rglob("*.py"):
        name = ".".join(path.relative_to(src).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            graph[module].update(t for t in targets if t in modules and t != module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _within(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    inside = {m for m in graph if m.startswith(package + ".")}
    return {m: graph[m] & inside for m in inside}


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions(tmp_path):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from p.high import g\n    return g\n")
    (pkg / "high.py").write_text("from p import low\nfrom .low import f\n")
    graph = import_graph(tmp_path)
    assert graph["p.high"] == {"p.low"} and graph["p.low"] == {"p.high"}
    assert cycles(_within(graph, "p")) == [["p.high", "p.low"]]


def test_no_import_cycle_within_the_tiers():
    graph = import_graph()
    assert all(any(m.startswith(p + ".") for m in graph) for p in ACYCLIC), "a package of ACYCLIC is gone"
    found = {p: cycles(_within(graph, p)) for p in ACYCLIC}
    assert not any(found.values()), {p: c for p, c in found.items() if c}


def test_no_lower_layer_imports_a_higher_one():
    def layer(module: str) -> int | None:
        parts = module.split(".")
        return LAYERS.get(parts[1]) if len(parts) > 1 else None

    graph = import_graph()
    upward = [(m, t) for m, targets in graph.items() for t in sorted(targets)
              if layer(m) is not None and layer(t) is not None and layer(t) > layer(m)]
    assert not upward, upward
