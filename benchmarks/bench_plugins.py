"""Plugin figures on the hook path: what the hook service's first config load costs with and
without a plugin observer named (each in a fresh process), and the cached lookup after it."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .measure import Result

PROCESSES = 7
TARGET_PLUGIN_MS = 150.0
"""The first load of a config naming a plugin observer: entry-point scan, import, register."""

PROBE = """\
import json, sys, time
import onlooker.config, yaml  # the hook service has these loaded before any config
from onlooker.config import ProjectConfigs
configs = ProjectConfigs()
began = time.perf_counter()
loaded = configs.lookup(sys.argv[1])
first = time.perf_counter() - began
assert loaded.config is not None, loaded.problem
began = time.perf_counter()
for _ in range(10_000):
    configs.lookup(sys.argv[1])
cached = (time.perf_counter() - began) / 10_000
print(json.dumps({"first_ms": first * 1e3, "cached_us": cached * 1e6,
                  "scanned": "importlib.metadata" in sys.modules,
                  "observers": [o.name for o in loaded.observers]}))
"""

SCAN = """\
import json, time
began = time.perf_counter()
from importlib.metadata import entry_points
entry_points(group="onlooker.observers")
print(json.dumps({"first_ms": (time.perf_counter() - began) * 1e3}))
"""


def probe(code: str, *args: str) -> dict[str, object]:
    """Median figures of PROCESSES fresh interpreters running `code`."""
    runs = []
    for _ in range(PROCESSES):
        done = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(done.stdout))
    figures: dict[str, object] = dict(runs[0])
    for key in ("first_ms", "cached_us"):
        if key in figures:
            figures[key] = statistics.median(float(r[key]) for r in runs)
    return figures


def project(folder: Path, name: str, observers: str) -> Path:
    root = folder / name
    (root / ".git").mkdir(parents=True)
    (root / "onlooker.yaml").write_text(f"trajectory:\n  observers:\n{observers}")
    return root


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as folder:
        plain = project(Path(folder), "plain", "    stall: {repeat_warn: 3}\n")
        named = project(Path(folder), "named", "    secrets: {patterns: [.env]}\n")
        built_in = probe(PROBE, str(plain))
        plugin = probe(PROBE, str(named))
        scan = probe(SCAN)
    installed = "Secret Files" in plugin["observers"]  # type: ignore[operator]
    plugin_ms = float(plugin["first_ms"])  # type: ignore[arg-type]
    return [
        Result(
            "first load, built-ins only",
            f"{built_in['first_ms']:.2f} ms",
            "no entry-point scan: "
            + ("importlib.metadata imported (it should not be)" if built_in["scanned"] else "ok"),
            not built_in["scanned"],
        ),
        Result(
            "first load, a plugin observer",
            f"{plugin_ms:.2f} ms",
            f"scan + import + register, once a process; target < {TARGET_PLUGIN_MS:.0f} ms"
            + ("" if installed else " (example plugin not installed: `make` installs it)"),
            installed and plugin_ms < TARGET_PLUGIN_MS,
        ),
        Result(
            "entry-point scan, bare python",
            f"{scan['first_ms']:.2f} ms",
            "import importlib.metadata + entry_points(group=...)",
        ),
        Result("cached lookup, built-ins only", f"{built_in['cached_us']:.2f} µs", "each hook"),
        Result("cached lookup, a plugin observer", f"{plugin['cached_us']:.2f} µs", "each hook"),
    ]
