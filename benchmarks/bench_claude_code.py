"""The real Claude Code CLI's wall time for the same scripted session with and without onlooker,
measured side by side: how long it takes to send its first model request, what one tool call
costs, and what the session costs in all, each as a ratio to plain Claude Code in the same run.

Five projects run the same scripted session of CALLS Bash calls, interleaved round by round:
plain, hooks only (`onlooker install claude-code --no-mcp`), as the README installs it (hooks
and the MCP server), and two floors with a hook on every event onlooker hooks that does nothing:
the shell's `true`, and a bare start of the Python the hooks run (`python -I -S -c pass`); and a
third floor, those bare hooks with a bare MCP server in Python (bare_mcp_server.py, answering
`initialize` and `tools/list` with onlooker's tools and nothing else). The floors say how much of
what onlooker adds any command hook, and any MCP server, costs Claude Code.
One tool call's cost is the time from the request that asked for it to the
request that carries its result (the tool, its PostToolUse hook, the next request), as the
scripted endpoint saw them arrive; so start-up and the session's own hooks are kept apart. The
first request is timed from the CLI's start: what Claude Code waits for before it (its MCP
servers answering, the SessionStart and UserPromptSubmit hooks) is what onlooker adds to it.
Memory extraction, which runs in the background after each session, asks a scripted model, and
each session waits until no worker runs and none is starting (the hook service has no process
of its own left), so no background work overlaps a measured run: waiting for the worker's lock
alone let the worker of one session start up during the next one's first request.

On a machine shared with other work the rounds are not alike: each round runs the variants in
an order rotated by one (no variant always comes first), the warm-up round's figures (the hook
service starts, caches fill) are printed apart and not counted, and each round is printed with how
many cores other processes kept busy meanwhile (machine_load.py); a round in which they took a
quarter of the machine more than in the median round, or in which plain Claude Code took over 1.5
times its median, is marked an outlier, and the ratios without the outliers are printed beside
those of every round, with how busy the machine was over the run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine_load import CORES, OthersLoad
from benchmarks.measure import Result
from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import worker_pid
from onlooker.hosts.claude_code.install import hooks_file, install
from onlooker.testing import AnthropicEndpoint, ClaudeCode, Text, ToolUse, find_claude
from onlooker.testing.openai_endpoint import ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[1]
ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
ROUNDS = 7
CALLS = 8
"""Bash calls of the scripted session: with the final answer, 9 turns."""
TARGET_FIRST = 1.25
TARGET_SESSION = 1.5
FLOOR_TRUE = "floor: `true` hooks"
FLOOR_PYTHON = "floor: bare Python hooks"
FLOOR_MCP = "floor: bare Python hooks and MCP server"
README = "as the README installs it"
BUSY_OTHERS = 0.25
"""A round in which other processes kept this share of the cores (or more) busier than in the
run's median round is an outlier."""
SLOW_PLAIN = 1.5
"""So is a round whose plain first request took more than this many times the median."""
BARE_MCP = Path(__file__).with_name("bare_mcp_server.py")
VARIANTS: dict[str, tuple[str, ...] | str | None] = {
    "plain": None,
    "hooks only": ("--no-mcp",),
    "as the README installs it": (),
    FLOOR_TRUE: "true",
    FLOOR_PYTHON: f"{shlex.quote(sys.executable)} -I -S -c pass",
    FLOOR_MCP: f"{shlex.quote(sys.executable)} -I -S -c pass",
}
"""Each project's setup: none, `onlooker install claude-code` with these arguments, or a hook
running this command on every event onlooker hooks (FLOOR_MCP: and the bare MCP server)."""


def session(calls: int) -> list[ToolUse | Text]:
    """`calls` distinct Bash calls (no observer has anything to say), then a final answer."""
    steps: list[ToolUse | Text] = [
        ToolUse("Bash", {"command": f"echo step {n}", "description": f"Step {n}"})
        for n in range(calls)
    ]
    return [*steps, Text("All steps ran.")]


def run(rounds: int = ROUNDS, calls: int = CALLS) -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="onlooker-bench-claude-"))
    home = folder / "onlooker-home"
    os.environ["ONLOOKER_HOME"] = str(home)
    os.environ["ONLOOKER_HOOKD_IDLE"] = "300"
    claude = find_claude(ROOT)
    agent_home = folder / "agent-home"
    projects = {
        name: _project(folder / f"project-{n}", agent_home, args)
        for n, (name, args) in enumerate(VARIANTS.items())
    }
    _register_bare_mcp(projects[FLOOR_MCP], agent_home, folder / "tools.json")
    walls: dict[str, list[float]] = {name: [] for name in VARIANTS}
    firsts: dict[str, list[float]] = {name: [] for name in VARIANTS}
    steps: dict[str, list[float]] = {name: [] for name in VARIANTS}
    warm: dict[str, float] = {}
    others: list[list[float]] = []
    """Each round: the cores other processes kept busy during each of its sessions."""
    memory_model = ScriptedEndpoint('{"memories": []}').start()
    os.environ["ONLOOKER_MEMORY_MODEL"] = memory_model.spec()
    os.environ["ONLOOKER_WORKER_IDLE"] = "0.5"
    names = list(projects)
    try:
        for name, project in projects.items():  # warm up: the hook service, the page cache
            warm[name] = _session(claude, agent_home, project, calls)[1]
        for round_ in range(rounds):
            others.append([])
            for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                _wait_for_quiet(home)
                load = OthersLoad(lambda: _background(home))
                wall, first, intervals = _session(claude, agent_home, projects[name], calls)
                cores = load.cores()
                if cores is not None:
                    others[-1].append(cores)
                walls[name].append(wall)
                firsts[name].append(first)
                steps[name].extend(intervals)
    finally:
        memory_model.stop()
        for pid in _background(home):
            os.kill(pid, signal.SIGTERM)
        _wait_for_quiet(home, 10)
        shutil.rmtree(folder, ignore_errors=True)
    results = _results(walls, firsts, steps, calls, rounds)
    return results + _rounds(firsts, warm, others)


def _background(home: Path) -> list[int]:
    """The hook service and the worker, when they run."""
    return [pid for pid in (running_pid(home), worker_pid(home)) if pid and pid > 0]


def _rounds(
    firsts: dict[str, list[float]], warm: dict[str, float], others: list[list[float]]
) -> list[Result]:
    """The warm-up round, each round with how busy the rest of the machine was, and the ratios
    without the outlier rounds (SLOW_PLAIN, BUSY_OTHERS)."""
    plain = firsts["plain"]
    usual = statistics.median(plain)
    loads = [statistics.mean(busy) if busy else None for busy in others]
    measured = [load for load in loads if load is not None]
    usual_load = statistics.median(measured) if measured else None
    results = [
        Result(
            "warm-up round, not counted: first request",
            f"{warm[README] / warm['plain']:.2f}x",
            f"{warm[README]:.2f} s vs {warm['plain']:.2f} s plain, {warm[FLOOR_MCP]:.2f} s the "
            "MCP floor (the hook service starts, caches fill)",
        )
    ]
    kept: list[int] = []
    for n, load in enumerate(loads):
        why = []
        if load is not None and usual_load is not None and load > usual_load + BUSY_OTHERS * CORES:
            why.append(f"other processes took {load - usual_load:.1f} cores more than usual")
        if plain[n] > SLOW_PLAIN * usual:
            why.append(f"plain took over {SLOW_PLAIN:g}x its median")
        if not why:
            kept.append(n)
        busy_note = f"; others kept {load:.1f} of {CORES} cores busy" if load is not None else ""
        results.append(
            Result(
                f"round {n + 1}: first request, README ÷ plain",
                f"{firsts[README][n] / plain[n]:.2f}x",
                f"{firsts[README][n]:.2f} s vs {plain[n]:.2f} s plain, "
                f"{firsts[FLOOR_MCP][n]:.2f} s the MCP floor{busy_note}"
                + (f"; OUTLIER: {', '.join(why)}" if why else ""),
            )
        )
    if kept:

        def without(name: str) -> float:
            return statistics.median(firsts[name][n] for n in kept)

        note = (
            f"README ÷ plain {without(README) / without('plain'):.2f}x, MCP floor ÷ plain "
            f"{without(FLOOR_MCP) / without('plain'):.2f}x, README ÷ MCP floor "
            f"{without(README) / without(FLOOR_MCP):.2f}x over the other rounds (the figures "
            "above count every round)"
        )
    else:
        note = "every round was an outlier"
    if usual_load is not None:
        note += f"; other processes kept {usual_load:.1f} of {CORES} cores busy in the median round"
    outliers = len(others) - len(kept)
    results.append(Result("outlier rounds: first request", f"{outliers} of {len(others)}", note))
    return results


QUIET = 0.3
"""Seconds with no worker and no process of the hook service's running, before a session."""


def _wait_for_quiet(home: Path, timeout: float = 60.0) -> None:
    """Until the background work of the sessions before has finished: no worker holds its lock
    and the hook service has no process of its own running (a worker it started has not taken
    its lock yet), QUIET seconds in a row."""
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        now = time.monotonic()
        if worker_pid(home) is not None or _children(running_pid(home)):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= QUIET:
            return
        time.sleep(0.02)


def _children(pid: int | None) -> bool:
    """Whether `pid` has a child process that has not exited (Linux, /proc; False elsewhere)."""
    if not pid or pid < 0:
        return False
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            return True
    return False


def _project(project: Path, agent_home: Path, args: tuple[str, ...] | str | None) -> Path:
    (project / ".git").mkdir(parents=True)
    if isinstance(args, str):  # a floor: the same hooks, running `args`
        install(hooks_file("project", project), agent_home / "backups", command=args)
    elif args is not None:
        claude_dir = str(agent_home / ".claude")
        env = {**os.environ, "HOME": str(agent_home), "CLAUDE_CONFIG_DIR": claude_dir}
        subprocess.run(
            [ONLOOKER, "install", "claude-code", *args],
            cwd=project,
            env=env,
            check=True,
            capture_output=True,
        )
    return project


def _register_bare_mcp(project: Path, agent_home: Path, tools: Path) -> None:
    """The bare MCP server registered for `project` where `onlooker install` registers its own
    (the user config's `projects.<path>.mcpServers`), with the tools `onlooker mcp` lists."""
    tools.write_text(json.dumps(asyncio.run(_onlooker_tools(project))))
    config = agent_home / ".claude" / ".claude.json"
    data = json.loads(config.read_text()) if config.exists() else {}
    entry = {"type": "stdio", "command": sys.executable, "args": ["-I", "-S", str(BARE_MCP)]}
    entry["args"].append(str(tools))
    data.setdefault("projects", {}).setdefault(str(project), {})["mcpServers"] = {"bare": entry}
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(data, indent=2))


async def _onlooker_tools(project: Path) -> list[dict[str, object]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=ONLOOKER, args=["mcp"], env=dict(os.environ), cwd=project
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]


def _session(
    claude: Path, agent_home: Path, project: Path, calls: int
) -> tuple[float, float, list[float]]:
    """One headless run: its wall time, the seconds to its first model request, and the seconds
    each tool call took."""
    with AnthropicEndpoint(session(calls)) as api:
        done = ClaudeCode(api, agent_home, executable=claude).run("Run the steps.", cwd=project)
    turns = api.turns
    if not done.ok or len(turns) != calls + 1:
        raise RuntimeError(f"the scripted session did not run: {done.stderr[-500:]}")
    intervals = [b.received - a.received for a, b in itertools.pairwise(turns)]
    return done.seconds, turns[0].received - done.started, intervals


def _results(
    walls: dict[str, list[float]],
    firsts: dict[str, list[float]],
    steps: dict[str, list[float]],
    calls: int,
    rounds: int,
) -> list[Result]:
    wall = {name: statistics.median(values) for name, values in walls.items()}
    first = {name: statistics.median(values) for name, values in firsts.items()}
    step = {name: statistics.median(values) for name, values in steps.items()}
    results = [
        Result(
            "plain: first request",
            f"{first['plain']:.2f} s",
            f"from the CLI's start; median of {rounds} rounds, interleaved "
            f"({_spread(firsts['plain'])} s)",
        ),
        Result(
            f"plain: session of {calls} calls",
            f"{wall['plain']:.2f} s",
            f"median ({_spread(walls['plain'])} s)",
        ),
        Result("plain: one tool call", f"{step['plain'] * 1000:.0f} ms", "median"),
    ]
    for name in list(VARIANTS)[1:]:
        first_ratio, wall_ratio = first[name] / first["plain"], wall[name] / wall["plain"]
        floor = name in (FLOOR_TRUE, FLOOR_PYTHON, FLOOR_MCP)  # no target: what any hook costs
        results += [
            Result(
                f"{name}: first request",
                f"{first_ratio:.2f}x",
                f"{first[name]:.2f} s vs {first['plain']:.2f} s plain; each round "
                f"{_spread(_ratios(firsts[name], firsts['plain']))}x"
                + ("" if floor else f" (target ≤ {TARGET_FIRST:g}x)"),
                floor or first_ratio <= TARGET_FIRST,
            ),
            Result(
                f"{name}: session",
                f"{wall_ratio:.2f}x",
                f"{wall[name]:.2f} s vs {wall['plain']:.2f} s plain; each round "
                f"{_spread(_ratios(walls[name], walls['plain']))}x"
                + ("" if floor else f" (target ≤ {TARGET_SESSION:g}x)"),
                floor or wall_ratio <= TARGET_SESSION,
            ),
            Result(
                f"{name}: one tool call",
                f"{step[name] / step['plain']:.2f}x",
                f"{step[name] * 1000:.0f} ms vs {step['plain'] * 1000:.0f} ms plain "
                f"({(step[name] - step['plain']) * 1000:+.0f} ms a call)",
            ),
        ]
    installed = README
    results += [
        Result(
            f"{installed} ÷ {floor}: {what}",
            f"{values[installed] / values[floor]:.2f}x",
            f"{values[installed]:.2f} s vs {values[floor]:.2f} s ({meaning})",
        )
        for floor, meaning in (
            (FLOOR_PYTHON, "what onlooker adds beyond starting the hooks' Python"),
            (FLOOR_MCP, "what onlooker adds beyond starting the hooks' and an MCP server's Python"),
        )
        for what, values in (("first request", first), ("session", wall))
    ]
    return results


def _ratios(values: list[float], plain: list[float]) -> list[float]:
    """Round by round (the variants of a round ran one after the other)."""
    return [value / base for value, base in zip(values, plain, strict=True)]


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def main(argv: list[str]) -> int:
    from benchmarks.measure import report

    rounds, calls = (int(a) for a in argv) if argv else (ROUNDS, CALLS)
    return report(run(rounds, calls))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
