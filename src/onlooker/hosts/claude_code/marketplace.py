"""The Claude Code plugin marketplace this repository is: `.claude-plugin/marketplace.json` at its
root and the `onlooker` plugin in `plugin/` (specs/install.md).

`claude plugin marketplace add <repository or path>` then `claude plugin install
onlooker@onlooker` wires onlooker's hooks, its MCP server, a few observer commands and the skill
into Claude Code. Every file of the plugin is generated here from the same code the `--plugin`
install uses, and names no path of a machine: its `scripts/onlooker` finds the installed
onlooker at run time (`pipx install onlooker`), and when there is none a hook says once how to
install it and never blocks. Plugin and package versions are the same. Regenerate with
`python -m onlooker.hosts.claude_code.marketplace [REPO]`; a test checks the files are current.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ... import __version__
from ..launcher import FINDER_TEXT
from .install import onlooker_hooks
from .plugin import HOOK_COMMAND, mcp_entry
from .skill import PATH as SKILL_FILE
from .skill import skill_text
from .slash_commands import COMMANDS

MARKETPLACE_FILE = Path(".claude-plugin") / "marketplace.json"
PLUGIN_FOLDER = Path("plugin")
NAME = "onlooker"
DESCRIPTION = (
    "Observers for the agent: loops, error cascades, drift and deadlines noticed in what it does "
    "and fed back into its context; memory across sessions; observations it can act on."
)
#: The observer commands the marketplace plugin carries (the `--plugin` install has them all).
PLUGIN_COMMANDS = ("status", "scores", "score", "suggest", "apply", "history", "help")
EXECUTABLE = frozenset({PLUGIN_FOLDER / "scripts" / "onlooker"})


def _json(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def marketplace_files() -> dict[Path, str]:
    """Every file of the marketplace, by path from the repository's root."""
    plugin = {
        "name": NAME,
        "version": __version__,
        "description": DESCRIPTION,
        "author": {"name": "onlooker"},
        "license": "MIT",
    }
    market = {
        "name": NAME,
        "owner": {"name": "onlooker"},
        "metadata": {"description": "onlooker's Claude Code plugin", "version": __version__},
        "plugins": [{**plugin, "source": f"./{PLUGIN_FOLDER}"}],
    }
    files = {
        MARKETPLACE_FILE: _json(market),
        PLUGIN_FOLDER / ".claude-plugin" / "plugin.json": _json(plugin),
        PLUGIN_FOLDER / "hooks" / "hooks.json": _json({"hooks": onlooker_hooks(HOOK_COMMAND)}),
        PLUGIN_FOLDER / ".mcp.json": _json({"mcpServers": {NAME: mcp_entry()}}),
        PLUGIN_FOLDER / "scripts" / "onlooker": FINDER_TEXT,
        PLUGIN_FOLDER / SKILL_FILE: skill_text(),
    }
    for command in COMMANDS:
        if command.name in PLUGIN_COMMANDS:
            files[PLUGIN_FOLDER / command.path] = command.text()
    return files


def write_marketplace(root: Path) -> list[Path]:
    """Write the marketplace's files under `root`; those that changed."""
    written = []
    for relative, text in marketplace_files().items():
        path = root / relative
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        if relative in EXECUTABLE:
            path.chmod(0o755)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    for changed in write_marketplace(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(f"wrote {changed}")
