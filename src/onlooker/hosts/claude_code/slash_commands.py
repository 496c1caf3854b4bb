"""Claude Code slash commands for the observer commands (specs/scoring.md): `/onlooker:status`,
`/onlooker:score`, … one Markdown file each in the plugin's `commands/` folder.

Each runs `onlooker observer NAME ARGUMENTS` through the plugin's launcher before the model sees
the command (Claude Code's shell block, allowed by the file's `allowed-tools`), so the answer is
the observer command's own; the model is asked to show it as it is. Only the user runs them
(`disable-model-invocation`).

Claude Code pastes `$ARGUMENTS` into the shell block as typed, without quoting, so a command that
takes arguments hands them over in a quoted here-document (nothing in it is expanded or parsed);
the launcher's `observer-typed` splits them into words (and, as nothing may follow the
here-document's start for Claude Code to check the command, sends errors to the output and
always succeeds itself); the words before the here-document after the name are the command's
own options (`--yes`). Claude Code escapes a `!` after a space
as `\\!` (no shell block can be smuggled in); the launcher takes that back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FOLDER = Path("commands")
MARK = "# onlooker observer command"
"""A comment in each file's front matter: what onlooker wrote, and may replace or remove."""
LAUNCHER = '"${CLAUDE_PLUGIN_ROOT}/scripts/onlooker"'
END_OF_ARGUMENTS = "ONLOOKER_ARGUMENTS"
"""The here-document's closing line."""


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One observer command as a slash command."""

    name: str
    description: str
    argument_hint: str = ""
    flags: str = ""
    """Options the command always runs with: `--yes` for `apply` and `accept`, which a person
    typing them means (the shell block runs headless, where nothing could be asked)."""
    observer: str = ""
    """The observer command it runs when that is not NAME: `/onlooker:scores` runs `status`."""
    runs: str = ""
    """The onlooker command it runs, when it is not `observer NAME`: `/onlooker:status` runs
    `onlooker status`, so the slash command and the terminal's command show the same thing."""

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.md"

    def text(self) -> str:
        hint = f"argument-hint: {json.dumps(self.argument_hint)}\n" if self.argument_hint else ""
        return (
            f"---\n{MARK} (`onlooker install claude-code --plugin` writes it)\n"
            f"description: {json.dumps(self.description)}\n{hint}"
            f"allowed-tools: {self.allowed_tools()}\n"
            "disable-model-invocation: true\n---\n\n"
            f"{self.shell_block()}\n\n"
            f"Above is onlooker's answer to `/onlooker:{self.name}`. Show it to the user as it "
            "is, in a code block, and do nothing else.\n"
        )

    def allowed_tools(self) -> str:
        words = (self.runs.split()[0],) if self.runs else ("observer", "observer-typed")
        return ", ".join(f"Bash(${{CLAUDE_PLUGIN_ROOT}}/scripts/onlooker {w}:*)" for w in words)

    def shell_block(self) -> str:
        """What Claude Code runs: the command, its typed arguments in a quoted here-document."""
        if self.runs:
            return f"!`{LAUNCHER} {self.runs} 2>&1 || true`"
        name = self.observer or self.name
        name = f"{name} {self.flags}" if self.flags else name
        if not self.argument_hint:
            return f"!`{LAUNCHER} observer {name} 2>&1 || true`"
        return (
            f"```!\n{LAUNCHER} observer-typed {name} <<'{END_OF_ARGUMENTS}'\n"
            f"$ARGUMENTS\n{END_OF_ARGUMENTS}\n```"
        )


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand(
        "status",
        "The project's observations, observer runs and cost, compliance, memory model",
        runs="status",
    ),
    SlashCommand(
        "scores",
        "Session scores: aggregate stats, top weaknesses, trend",
        "[agent]",
        observer="status",
    ),
    SlashCommand(
        "score",
        "Score the newest session now (or SESSION), or show AGENT's latest score",
        "[agent|session]",
    ),
    SlashCommand("suggest", "Pending improvements to AGENTS.md and agent prompts", "[agent]"),
    SlashCommand(
        "apply", "Apply the next pending improvement (backed up, reversible)", flags="--yes"
    ),
    SlashCommand("accept", "Apply pending improvement N", "N", flags="--yes"),
    SlashCommand("rollback", "Restore the previous AGENTS.md, or an agent's prompt", "[agent]"),
    SlashCommand("history", "Every score with its breakdown, and improvement deltas", "[agent]"),
    SlashCommand("config", "The scoring settings, auto-update toggles and guidance"),
    SlashCommand("auto", "Apply improvements without asking: on or off", "[prompts] on|off"),
    SlashCommand("steer", "Guidance the judge reads; none shows it, reset clears", "[text|reset]"),
    SlashCommand("reject", "Reject improvement N or a weakness pattern", "N|pattern"),
    SlashCommand("rejections", "The rejected weakness patterns"),
    SlashCommand("unreject", "Take back a rejected pattern", "pattern"),
    SlashCommand("help", "The observer commands and the score key"),
)


def is_ours(text: str | None) -> bool:
    """Whether a command file's text is one onlooker wrote."""
    return text is not None and MARK in text.split("\n---", 1)[0]
