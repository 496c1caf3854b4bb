"""`onlooker mcp`: serve search, get_observations, read, observations and the observer tools to an
MCP client."""

from __future__ import annotations

import click

from ._mcp_start import sdk_installed
from .store_options import current_project, print_json


@click.command(name="mcp")
@click.option(
    "--project",
    default=None,
    metavar="NAME",
    help="Project the observations tool acts on; default: the project of the current directory "
    "(Claude Code starts the server in the project folder).",
)
@click.option(
    "--session", "session_id", default="", metavar="ID", help="Record changes as this session."
)
@click.option(
    "--text-only",
    is_flag=True,
    help="Search memories by full text only: no embedding model is loaded (mode vector is "
    "refused).",
)
@click.option("--list-tools", is_flag=True, help="Print the tools and exit instead of serving.")
@click.option("--json", "as_json", is_flag=True, help="With --list-tools: the full JSON schemas.")
def command(
    project: str | None, session_id: str, text_only: bool, list_tools: bool, as_json: bool
) -> None:
    """Serve onlooker's MCP tools over stdio (what `onlooker install claude-code` registers).

    Tools: search (memories and observations), get_observations (1-20 ids), read (a transcript
    under Claude Code's projects folder or onlooker's journals) and observations (record,
    list, acknowledge, resolve findings), and the observer tools (observer_status,
    observer_improve, observer_history, observer_auto, observer_score_agent, observer_reject,
    observer_rejections, observer_unreject, observer_steer: session scores and instruction
    improvements of the current directory's project). Needs the mcp extra: pip install
    'onlooker[mcp]'.
    """
    if list_tools:
        _print_tools(as_json)
        return
    if not sdk_installed():
        raise click.ClickException(
            "the MCP server needs the mcp package: pip install 'onlooker[mcp]'"
        )
    from ..mcp.front import serve

    serve(current_project(project) if project else None, session_id, text_only)


def _print_tools(as_json: bool) -> None:
    from ..mcp.tool_specs import TOOLS

    if as_json:
        print_json(
            [
                {
                    "name": s.name,
                    "title": s.title,
                    "description": s.description,
                    "input_schema": s.input_schema,
                    "read_only": s.read_only,
                }
                for s in TOOLS
            ]
        )
        return
    for spec in TOOLS:
        click.echo(f"{spec.name}: {spec.title}")
