"""The built-in subcommands of `onlooker`: name -> (module under onlooker.cli, one-line help).

Kept apart from the group so the `plugins` command can name them without importing the group.
"""

from __future__ import annotations

#: subcommand name -> (module under onlooker.cli, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "config": ("config", "Check the project's config file, or show the config in effect."),
    "doctor": (
        "doctor",
        "Check the hook service, spooled inputs, errors, store and installed hooks.",
    ),
    "hook": ("hook", "Answer a Claude Code hook (JSON on stdin); what every installed hook runs."),
    "install": ("install", "Install onlooker into Claude Code (settings or a plugin) or opencode."),
    "issues": ("issues", "File critical and high findings as issues (local file, GitHub)."),
    "memory": ("memory", "Search, show, edit, pin and forget memories from past sessions."),
    "mcp": ("mcp", "Serve onlooker's MCP tools (search, read, observations) over stdio."),
    "observations": ("observations", "List, add, acknowledge and resolve observations."),
    "observer": ("observer", "Session scores, and improvements to AGENTS.md and agent prompts."),
    "plugins": ("plugins", "List installed plugins and what they add; those that failed to load."),
    "reindex": ("reindex", "Rebuild the index (onlooker.db) from the journals."),
    "replay": ("replay", "Run observers over recorded sessions as if live."),
    "report": ("report", "Write a self-contained HTML report: charts, findings, timelines."),
    "serve": ("serve", "Watch sessions live and act on findings in the web browser (local)."),
    "side-effects": (
        "side_effects",
        "List what side effects saved (work products, search summaries, logs, media).",
    ),
    "status": ("status", "Show the current project's observations."),
    "uninstall": ("uninstall", "Remove exactly what `onlooker install` added."),
}
