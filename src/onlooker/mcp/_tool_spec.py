"""How the MCP server lists one tool: its name, description, JSON input schema and hints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as the MCP client lists it."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
