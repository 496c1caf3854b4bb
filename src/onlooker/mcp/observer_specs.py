"""The observer tools (specs/scoring.md): session scores, improvements, rejections and guidance
for the agent, each the observer command of the same name (`onlooker observer …`)."""

from __future__ import annotations

from typing import Any

from ._tool_spec import ToolSpec

_AGENT = {
    "type": "string",
    "minLength": 1,
    "description": "An agent's name (a subagent's type, `main` for the main agent); default: all.",
}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _spec(
    name: str, title: str, description: str, schema: dict[str, Any], read_only: bool
) -> ToolSpec:
    return ToolSpec(name, title, description, schema, read_only)


OBSERVER_TOOLS: tuple[ToolSpec, ...] = (
    _spec(
        "observer_status",
        "Observer status",
        "Ask the observer for its current evaluation score and aggregate stats: sessions scored, "
        "average adherence score, trend, top weaknesses and strengths, per-agent stats, recent "
        "sessions, improvement deltas and how many improvements are pending.",
        _schema({"agent": _AGENT}),
        True,
    ),
    _spec(
        "observer_improve",
        "Suggest instruction improvements",
        "Request that the observer suggest AGENTS.md (and agent prompt) improvements: weaknesses "
        "seen in several low-scoring sessions, numbered, rejected patterns left out. Nothing is "
        "changed; the user applies one with `onlooker observer accept N`.",
        _schema({"agent": _AGENT}),
        False,
    ),
    _spec(
        "observer_history",
        "Adherence history",
        "Retrieve adherence history and scores: every scored session with its five dimension "
        "scores, and each improvement with its status and score delta.",
        _schema({"agent": _AGENT}),
        True,
    ),
    _spec(
        "observer_auto",
        "Automatic updates on or off",
        "Enable or disable automatic updates: with `target` agents_md (default) improvements to "
        "the project's instructions file are applied without asking; agent_prompts does the "
        "same for agent prompt files. Every change is backed up and can be rolled back.",
        _schema(
            {
                "enabled": {"type": "boolean", "description": "true: on; false: off."},
                "target": {
                    "type": "string",
                    "enum": ["agents_md", "agent_prompts"],
                    "default": "agents_md",
                    "description": "Which files the toggle is for.",
                },
            },
            ("enabled",),
        ),
        False,
    ),
    _spec(
        "observer_score_agent",
        "An agent's latest score",
        "View the most recent evaluation for a specific agent type: its overall score, the five "
        "dimensions, strengths and weaknesses. Scores nothing new.",
        _schema({"agent": {**_AGENT, "description": "The agent's name."}}, ("agent",)),
        True,
    ),
    _spec(
        "observer_reject",
        "Reject an improvement",
        "Reject an improvement suggestion by its index (as observer_improve numbers them) or a "
        "weakness pattern: similar weaknesses are never suggested again. Give one of the two.",
        _schema(
            {
                "index": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 10_000,
                    "description": "The suggestion's number.",
                },
                "pattern": {
                    "type": "string",
                    "minLength": 1,
                    "description": "A weakness pattern to reject.",
                },
            }
        ),
        False,
    ),
    _spec(
        "observer_rejections",
        "Rejected patterns",
        "List all rejected weakness patterns: weaknesses similar to one of them are never "
        "suggested as improvements (observer_unreject takes one back).",
        _schema({}),
        True,
    ),
    _spec(
        "observer_unreject",
        "Take a rejection back",
        "Remove a rejection, restoring the pattern: every rejected pattern similar to `pattern` "
        "may be suggested again.",
        _schema({"pattern": {"type": "string", "minLength": 1}}, ("pattern",)),
        False,
    ),
    _spec(
        "observer_steer",
        "Guide the scorer",
        "Provide evaluation guidance that influences the scorer (it reads it with every session "
        "it scores). Without `guidance` the current guidance is shown; `reset` clears it.",
        _schema(
            {
                "guidance": {
                    "type": "string",
                    "maxLength": 2000,
                    "description": "The guidance, or `reset` to clear it.",
                }
            }
        ),
        False,
    ),
)
"""The observer tools, as their commands are listed in `onlooker observer help`."""
