"""The user's own opencode as a model (`opencode:anthropic/claude-haiku-4-5`, `opencode:default`).

One call is one non-interactive run, `opencode run --format json`, with the prompt on stdin. It
uses the provider and model opencode is configured with (`opencode:default`: the `model` of its
config; else the `provider/model` named) and authenticates exactly as opencode does (its
`auth.json`, the provider's variables): onlooker passes its environment through and never reads,
copies or stores a credential. The nested run is hardened (specs/llm.md):

- no tools: an agent of its own (`onlooker-extract`, given in `OPENCODE_CONFIG_CONTENT`) with every
  tool off and every permission denied, so it is one turn (no tool call, no second step); its
  prompt is the caller's system messages, in place of opencode's;
- no plugins (`--pure`), so onlooker's own plugin does not run in it (no recursion), and
  `ONLOOKER_NESTED=1`, which onlooker's plugin and hooks also check;
- no project: it runs in a fresh empty folder with `OPENCODE_DISABLE_PROJECT_CONFIG`, and no
  CLAUDE.md or external skills (`OPENCODE_DISABLE_CLAUDE_CODE`, `OPENCODE_DISABLE_EXTERNAL_SKILLS`);
- no MCP server starts: their names are asked of opencode (`_opencode_servers`, which never lets
  a config value into onlooker) and each is given `{"enabled": false}`;
- no global instructions file: `OPENCODE_CONFIG_DIR` names an empty folder, which opencode then
  takes as the global config folder where it looks for `AGENTS.md` (its global config itself,
  with the provider, is still read from `~/.config/opencode/`). A user who set
  `OPENCODE_CONFIG_DIR` keeps theirs (its config may name their provider), and its AGENTS.md;
- no title call (`--title`), no compaction, no sharing, no update check;
- no session in the user's history: its database is in memory (`OPENCODE_DB=:memory:`). What it
  leaves is what every opencode start leaves: lines in opencode's log and a lock file in its state
  folder.

Not switched off (opencode merges every config's `instructions` list, and none can remove an
entry): files the global config's `instructions` names by absolute or `~/` path, and URLs there,
are added to the system prompt; relative ones are looked up in the empty folder, so not found.

The executable is `$ONLOOKER_OPENCODE_CLI`, else `opencode` on PATH. Tokens and cost come from the
run's `step_finish` events (opencode prices them from its model list; 0 there means unpriced).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelUnavailable, ProviderSetupError
from ._nested import run_nested
from ._opencode_servers import server_names
from .call import ModelBase, Request, read_json, with_json_instruction
from .model import Completion, Usage

__all__ = ["AGENT", "CLI_VARIABLE", "DEFAULT", "OpencodeModel", "find_cli", "opencode_run"]

CLI_VARIABLE = "ONLOOKER_OPENCODE_CLI"
"""Names the opencode executable; else `opencode` on PATH."""
DEFAULT = "default"
"""`opencode:default`: the model opencode's own config names."""
AGENT = "onlooker-extract"
"""The agent the nested run uses: no tools, every permission denied, the caller's prompt."""
CONFIG_VARIABLE = "OPENCODE_CONFIG_CONTENT"
CONFIG_DIR_VARIABLE = "OPENCODE_CONFIG_DIR"
SWITCHES = {
    "OPENCODE_DB": ":memory:",
    "OPENCODE_PURE": "1",
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "OPENCODE_DISABLE_AUTOCOMPACT": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
}
"""The nested run's environment on top of the user's (see the module's docstring)."""


def find_cli(spec: str) -> Path:
    """The user's opencode: `$ONLOOKER_OPENCODE_CLI`, else `opencode` on PATH."""
    chosen = os.environ.get(CLI_VARIABLE, "").strip()
    if chosen:
        path = Path(chosen).expanduser()
        if not os.access(path, os.X_OK):
            raise ProviderSetupError(f"{spec}: ${CLI_VARIABLE} is {chosen}, not an executable")
        return path
    found = shutil.which("opencode")
    if found is None:
        raise ProviderSetupError(
            f"{spec} runs your opencode, and there is no `opencode` on PATH: install opencode "
            f"or set {CLI_VARIABLE} to its executable"
        )
    return Path(found)


def check_model(spec: str, model: str) -> None:
    """ProviderSetupError unless `model` is `default` or `provider/model`."""
    provider, slash, name = model.partition("/")
    if model != DEFAULT and not (slash and provider and name):
        raise ProviderSetupError(
            f"{spec!r}: write opencode:<provider>/<model> as opencode names it (e.g. "
            "opencode:anthropic/claude-haiku-4-5), or opencode:default for the model of "
            "opencode's config"
        )


def opencode_run(executable: Path, model: str) -> list[str]:
    """The `opencode run` command of one call (the prompt goes on stdin)."""
    chosen = [] if model == DEFAULT else ["--model", model]
    return [
        str(executable), "run", "--format", "json", "--pure", "--agent", AGENT,
        "--title", "onlooker", *chosen,
    ]  # fmt: skip


def run_config(system: str, present: str = "", servers: tuple[str, ...] = ()) -> str:
    """`OPENCODE_CONFIG_CONTENT` of the run: the user's own (`present`, when they set one), with
    the run's agent added and each of the MCP `servers` switched off."""
    try:
        config = json.loads(present) if present.strip() else {}
    except ValueError:
        raise ProviderSetupError(
            f"${CONFIG_VARIABLE} is set and is not JSON: the opencode: provider adds its agent "
            "to it, so it must be a JSON object"
        ) from None
    if not isinstance(config, dict):
        raise ProviderSetupError(f"${CONFIG_VARIABLE} is set and is not a JSON object")
    agent = {
        "mode": "primary",
        "description": "onlooker's model calls: no tools, one answer",
        "prompt": system,
        "tools": {"*": False},
        "permission": {"*": "deny"},
    }
    present_agents = config.get("agent")
    agents = present_agents if isinstance(present_agents, dict) else {}
    present_servers = config.get("mcp")
    mcp = present_servers if isinstance(present_servers, dict) else {}
    off = {name: {**_entry(mcp, name), "enabled": False} for name in servers}
    extra = {"mcp": {**mcp, **off}} if off else {}
    return json.dumps({**config, "share": "disabled", "agent": {**agents, AGENT: agent}, **extra})


def _entry(mcp: dict[str, Any], name: str) -> dict[str, Any]:
    entry = mcp.get(name)
    return entry if isinstance(entry, dict) else {}


@dataclass
class OpencodeModel(ModelBase):
    """A model answered through the user's opencode CLI."""

    name: str
    """The model string, e.g. `opencode:anthropic/claude-haiku-4-5`."""
    model: str
    """`provider/model` as opencode names it, or `default`."""
    executable: Path

    async def answer(self, request: Request) -> Completion:
        messages = request.messages
        if request.schema is not None:
            messages = with_json_instruction(messages, request.schema)
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        prompt = "\n\n".join(
            m.content if m.role == "user" else f"(your earlier answer)\n{m.content}"
            for m in messages
            if m.role != "system"
        )
        present = os.environ.get(CONFIG_VARIABLE, "")
        run_config(system, present)  # the user's own config content is checked before any run
        servers = await server_names(self.executable, SWITCHES)
        env = {**SWITCHES, CONFIG_VARIABLE: run_config(system, present, servers)}
        with tempfile.TemporaryDirectory(prefix="onlooker-opencode-config-") as empty:
            if not os.environ.get(CONFIG_DIR_VARIABLE):  # a folder of the user's own is kept
                env[CONFIG_DIR_VARIABLE] = empty  # no global AGENTS.md (module docstring)
            code, out, err = await run_nested(
                opencode_run(self.executable, self.model), prompt, prefix="onlooker-opencode-",
                env=env,
            )  # fmt: skip
        events = self._events(code, out, err)
        text = "".join(
            str(e["part"].get("text") or "") for e in events if e.get("type") == "text"
        ).strip()
        finishes = [e["part"] for e in events if e.get("type") == "step_finish"]
        if not text:
            said = err.decode("utf-8", "replace").strip()[-500:]
            raise ModelUnavailable(f"{self.name}: opencode answered no text: {said or 'nothing'}")
        data = None
        if request.schema is not None:
            cut_off = any(f.get("reason") == "length" for f in finishes)
            data = read_json(text, request, cut_off=cut_off)
        return Completion(text=text, data=data, usage=_usage(finishes), model=self.model)

    def _events(self, code: int | None, out: bytes, err: bytes) -> list[dict[str, Any]]:
        """The JSON events the run printed, one a line; ModelUnavailable for an error event or a
        failed run."""
        events: list[dict[str, Any]] = []
        for line in out.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and isinstance(event.get("part", {}), dict):
                events.append(event)
        for event in events:
            if event.get("type") == "error":
                said = json.dumps(event.get("error"))[:500]
                raise ModelUnavailable(f"{self.name}: opencode reported an error: {said}")
        if code != 0:
            said = err.decode("utf-8", "replace").strip()[-500:]
            raise ModelUnavailable(f"{self.name}: opencode exited {code}: {said or 'no output'}")
        return events


def _usage(finishes: list[dict[str, Any]]) -> Usage:
    """Tokens of the run's steps (cache reads and writes counted as input) and their cost as
    opencode reports it (None when it reports 0: opencode has no price for the model)."""

    def count(tokens: Any, *path: str) -> int:
        for key in path:
            tokens = tokens.get(key) if isinstance(tokens, dict) else None
        return int(tokens) if isinstance(tokens, int | float) else 0

    inputs = outputs = 0
    cost = 0.0
    for finish in finishes:
        tokens = finish.get("tokens")
        inputs += count(tokens, "input") + count(tokens, "cache", "read")
        inputs += count(tokens, "cache", "write")
        outputs += count(tokens, "output") + count(tokens, "reasoning")
        spent = finish.get("cost")
        cost += float(spent) if isinstance(spent, int | float) else 0.0
    return Usage(inputs, outputs, cost or None)
