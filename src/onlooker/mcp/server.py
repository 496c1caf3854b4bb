"""`onlooker mcp`: the tools served over stdio with the official `mcp` SDK (2.x, low-level Server).

The SDK is imported when the server starts, never by the rest of onlooker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import __version__
from .tools import Answer, Tools

if TYPE_CHECKING:
    import mcp_types
    from mcp.server import Server

NAME = "onlooker"
INSTRUCTIONS = (
    "onlooker remembers past sessions and what its observers found. Use `search` to find "
    "memories and observations, `get_observations` for their full text, `read` to open the "
    "transcript lines they came from, and `observations` to acknowledge or resolve findings."
)


def build_server(tools: Tools) -> Server[Any]:
    """An MCP server whose tools are `tools`."""
    import mcp_types as types
    from mcp.server import Server, ServerRequestContext

    listed = [
        types.Tool(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            input_schema=spec.input_schema,
            annotations=types.ToolAnnotations(
                title=spec.title,
                read_only_hint=spec.read_only,
                destructive_hint=False,
                open_world_hint=False,
            ),
        )
        for spec in tools.specs
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return _result(tools.call(params.name, params.arguments))

    return Server(
        NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _result(answer: Answer) -> mcp_types.CallToolResult:
    import mcp_types as types

    return types.CallToolResult(
        content=[types.TextContent(text=answer.text)],
        structured_content=answer.data,
        is_error=answer.error,
    )


def serve_stdio(tools: Tools) -> None:
    """Serve `tools` over stdin/stdout until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(tools)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        tools.close()
