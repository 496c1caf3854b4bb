"""Where Claude Code keeps its files: the config folder ($CLAUDE_CONFIG_DIR or ~/.claude), its
projects (transcripts) folder, and the user config file that holds user and local MCP servers."""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_VARIABLE = "CLAUDE_CONFIG_DIR"


def claude_config_dir() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    chosen = os.environ.get(CONFIG_VARIABLE)
    return Path(chosen).expanduser() if chosen else Path.home() / ".claude"


def claude_projects_dir() -> Path:
    """The folder of session transcripts: `<config dir>/projects/<project>/<session>.jsonl`."""
    return claude_config_dir() / "projects"


def claude_user_config() -> Path:
    """`$CLAUDE_CONFIG_DIR/.claude.json` when the variable is set, else `~/.claude.json`."""
    chosen = os.environ.get(CONFIG_VARIABLE)
    return Path(chosen).expanduser() / ".claude.json" if chosen else Path.home() / ".claude.json"
