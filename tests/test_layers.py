"""The layer rule of DESIGN.md: no module imports from a higher layer (lazy imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

import onlooker

PACKAGE = Path(onlooker.__file__).parent

#: module (dotted, relative to onlooker) or package prefix -> layer
LAYERS: dict[str, int] = {
    # 1 foundation
    "errors": 1,
    "plugins": 1,
    "core.clock": 1,
    "core.records": 1,
    "core.events": 1,
    # 2 core: the pipeline in memory, and text handling
    "core": 2,
    "text": 2,
    # 3 services
    "store": 3,
    "vectors": 3,
    "llm": 3,
    # 4 features
    "observers": 4,
    "memory": 4,
    "side_effects": 4,
    "compliance": 4,
    "reviewers": 4,
    "improvement": 4,
    "scoring": 4,
    # 5 settings and rendering
    "config": 5,
    "display": 5,
    "report": 5,
    # 6 the runtime every host runs on
    "runtime": 6,
    # 7 edges
    "hosts": 7,
    "daemon": 7,
    "hook": 7,
    "cli": 7,
    "mcp": 7,
    "serve": 7,
    "testing": 7,
    "__init__": 7,
    "__main__": 7,
}


#: modules of layers 3-4 that import third-party packages inside functions (never at module level)
LAZY_THIRD_PARTY = {
    "text.ignore",  # pathspec, a base dependency
    "text.compiled_gate",  # ahocorasick_rs, a base dependency; without it the pure gate answers
    "store.home",  # platformdirs, a base dependency; PyYAML for the user config
    "store._postgres",  # psycopg and psycopg_pool, the postgres extra
    "vectors.embeddings",
    "vectors.index",
    "vectors._cosine",
    "vectors._snapshot",
    "vectors._sqlite_vec",
    "vectors._int8",  # simsimd, with the embeddings extra
    "vectors._ann",  # usearch (and onnxruntime first), with the embeddings extra
    "memory._project_ids",  # numpy, with the embeddings extra (the vector side of search)
}


def layer_of(module: str) -> int:
    """Layer of `onlooker.<module>`; every module must be listed (by itself or its package)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in LAYERS:
            return LAYERS[name]
    raise AssertionError(f"onlooker.{module} has no layer: add it to LAYERS in {__file__}")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, module: str) -> set[str]:
    """onlooker modules that `path` imports, as names relative to the package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("onlooker."):
                    found.add(alias.name.removeprefix("onlooker."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            elif node.module and node.module.startswith("onlooker"):
                target = node.module.removeprefix("onlooker").lstrip(".")
            else:
                continue
            for alias in node.names:
                candidate = f"{target}.{alias.name}" if target else alias.name
                found.add(candidate if _is_module(candidate) else target)
    return {name for name in found if name}


def _is_module(name: str) -> bool:
    path = PACKAGE.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def test_no_module_imports_from_a_higher_layer() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        own = layer_of(module)
        for target in imported_modules(path, module):
            if layer_of(target) > own:
                violations.append(
                    f"onlooker.{module} (layer {own}) imports onlooker.{target} "
                    f"(layer {layer_of(target)})"
                )
    assert not violations, "\n".join(violations)


def test_core_imports_only_the_standard_library() -> None:
    import sys

    allowed = set(sys.stdlib_module_names) | {"onlooker"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        if layer_of(module) > 4:
            continue
        tree = ast.parse(path.read_text())
        # Where third-party imports may be lazy, only the module's top level is checked.
        lazy = module in LAZY_THIRD_PARTY
        nodes = [n for n in tree.body if not _type_checking(n)] if lazy else ast.walk(tree)
        for node in nodes:
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] not in allowed and module.split(".")[0] not in ("llm",):
                    offenders.append(f"onlooker.{module} imports {name}")
    assert not offenders, "\n".join(offenders)


def _type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")


def test_the_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "session.py"
    bad.write_text("from ..cli import main\nfrom onlooker.store import journal\n")
    targets = imported_modules(bad, "core.session")
    assert {"cli", "store.journal"} <= targets or {"cli", "store"} <= targets
    assert any(layer_of(t) > layer_of("core.session") for t in targets)


def import_graph() -> dict[str, set[str]]:
    """module -> the modules importing it runs: its targets and their packages' `__init__`s
    (TYPE_CHECKING and lazy imports included; the root package, always loaded first, left out)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        own_packages = set(_ancestors(module)) | {module}
        edges: set[str] = set()
        for target in imported_modules(path, module):
            edges.add(target)
            edges.update(p for p in _ancestors(target) if p not in own_packages)
        edges.discard(module)
        graph[module] = edges
    return graph


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycle() -> None:
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
