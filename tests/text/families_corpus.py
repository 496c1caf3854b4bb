"""The families corpus (tests/fixtures/redaction/families.py), loaded by path for the tests and
benchmarks/bench_redact.py: `CASES` (secrets with their family and carrier) and `CONTROLS`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

FIXTURES = Path(__file__).parents[1] / "fixtures" / "redaction"


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_load("corpus_tokens")
FAMILIES = _load("families")
CASES = FAMILIES.CASES
CONTROLS = FAMILIES.CONTROLS
