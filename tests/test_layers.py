"""The layer rule of DESIGN.md: no module imports from a higher layer (lazy imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

import onlooker

PACKAGE = Path(onlooker.__file__).parent

#: module (dotted, relative to onlooker) or package prefix -> layer
LAYERS: dict[str, int] = {
    "errors": 1,
    "clock": 1,
    "records": 1,
    "events": 1,
    "slices": 2,
    "plan": 2,
    "session": 2,
    "triggers": 2,
    "watch": 2,
    "gitignore": 2,
    "execution": 2,
    "assessment": 2,
    "observer": 2,
    "engine": 2,
    "feedback": 2,
    "redact": 2,
    "clipping": 2,
    "store": 3,
    "llm": 3,
    "observers": 4,
    "memory": 4,
    "improve": 4,
    "adapters": 5,
    "replay": 5,
    "hook": 5,
    "config": 5,
    "issues": 5,
    "display": 5,
    "cli": 5,
    "mcp": 5,
    "worker": 5,
    "testing": 5,
    "scripted_endpoint": 5,
    "__init__": 5,
    "__main__": 5,
}


#: modules of layers 3-4 that import third-party packages inside functions (never at module level)
LAZY_THIRD_PARTY = {
    "text.ignore",  # pathspec, a base dependency
    "store.home",  # platformdirs, a base dependency
    "store.embeddings",
    "store.vectors",
    "store.vector_search",
    "store.vector_snapshot",
    "store.vec_mirror",
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
    bad.write_text("from .cli import main\nfrom onlooker.store import journal\n")
    targets = imported_modules(bad, "session")
    assert {"cli", "store.journal"} <= targets or {"cli", "store"} <= targets
    assert any(layer_of(t) > layer_of("session") for t in targets)
