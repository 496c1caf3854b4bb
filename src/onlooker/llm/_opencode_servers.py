"""The names of the MCP servers the user's opencode is configured with, asked of opencode itself,
so that a nested `opencode:` run can switch each off by name (specs/llm.md, "The user's own
opencode").

opencode starts every MCP server of its config in any run, and has no switch for all of them: only
`"mcp": {"<name>": {"enabled": false}}`, which needs the name. onlooker never reads opencode's
config files. It asks opencode: `opencode debug config` prints the resolved config (no server is
started). Its output never reaches onlooker: it is read by a short script run by the same
executable as a JavaScript runtime (`BUN_BE_BUN=1`, which opencode itself uses to start servers
of its own), which prints the keys of `mcp` and nothing else. So no value of the config (a
provider key, a server's environment or arguments) ever enters onlooker's process.

The lookup takes a few seconds (as long as an opencode start), so its answer is kept for
`KEEP_SECONDS` per executable and configuration environment; it runs in the background worker
only, as every model call does. When it fails (an opencode without that command or runtime) the
answer is no names, and the run goes on as before: the servers start, none of their tools is
offered.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from ._nested import run_nested

__all__ = ["KEEP_SECONDS", "LOOKUP", "server_names"]

KEEP_SECONDS = 600.0
"""How long one lookup's answer is used (a server added meanwhile starts in the runs until then)."""
LOOKUP = """
const env = { ...process.env }; delete env.BUN_BE_BUN;
const run = Bun.spawnSync([process.execPath, "debug", "config", "--pure"],
  { env, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
if (run.exitCode !== 0) process.exit(3);
const mcp = JSON.parse(run.stdout.toString()).mcp;
const names = mcp && typeof mcp === "object" && !Array.isArray(mcp) ? Object.keys(mcp) : [];
process.stdout.write(JSON.stringify(names));
"""
"""Run by opencode's own runtime: the names of the resolved config's MCP servers, as JSON."""
CONFIG_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR",
                    "OPENCODE_CONFIG_CONTENT")  # fmt: skip
"""What decides which config opencode resolves (the cache's key, with the executable)."""

_known: dict[tuple[str, ...], tuple[float, tuple[str, ...]]] = {}


async def server_names(executable: Path, env: Mapping[str, str]) -> tuple[str, ...]:
    """The MCP server names of the config opencode resolves with `env` on top of onlooker's own
    environment (in an empty folder, as the nested run); no names when opencode cannot say."""
    merged = {**os.environ, **env}
    key = (str(executable), *(merged.get(name, "") for name in CONFIG_VARIABLES))
    now = time.monotonic()
    kept = _known.get(key)
    if kept is not None and now - kept[0] < KEEP_SECONDS:
        return kept[1]
    code, out, _ = await run_nested(
        [str(executable), "-e", LOOKUP],
        "",
        prefix="onlooker-opencode-",
        env={**env, "BUN_BE_BUN": "1"},
    )
    names: tuple[str, ...] = ()
    if code == 0:
        try:
            found = json.loads(out.decode("utf-8", "replace"))
        except ValueError:
            found = None
        if isinstance(found, list):
            names = tuple(name for name in found if isinstance(name, str))
    _known[key] = (now, names)
    return names
