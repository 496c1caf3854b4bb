"""`onlooker mcp`: the tools served over stdio with the official `mcp` SDK (2.x, low-level Server).

The SDK is imported when the server starts, never by the rest of onlooker.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..text.encodable import encodable
from .tools import Answer, Tools

if TYPE_CHECKING:
    import mcp_types
    from mcp.server import Server

    from .wire import Wire

log = logging.getLogger("onlooker.mcp")

NAME = "onlooker"
INSTRUCTIONS = (
    "onlooker remembers past sessions and what its observers found. Use `search` to find "
    "memories and observations, `get_observations` for their full text, `read` to open the "
    "transcript lines they came from, and `observations` to acknowledge or resolve findings. "
    "The `observer_*` tools show how well sessions followed the user's instructions (scores, "
    "weaknesses) and manage the improvements suggested for AGENTS.md and agent prompts."
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
        return _encodable(_result(tools.call(params.name, params.arguments)))

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


def _encodable(result: mcp_types.CallToolResult) -> mcp_types.CallToolResult:
    """`result`, or a refusal when the SDK could not encode it (nested past its depth limit, say):
    an answer the client never receives would leave it waiting, so every call gets one."""
    try:
        result.model_dump_json(by_alias=True, exclude_none=True)
    except Exception as exc:
        log.error("an answer could not be encoded: %s", exc)
        return _result(Answer.refused(f"the answer could not be encoded ({exc})"))
    return result


def serve_handed_over(
    wire: Wire, lines: list[bytes], project: str | None, session_id: str, text_only: bool
) -> None:
    """Serve the rest of the connection the front (mcp/front.py) began: `lines` are the
    messages it answered (given again under ids of their own, their answers dropped) and the
    one it did not; then every line the client sends."""
    from ..store import data_home, project_for

    tools = Tools(data_home(), project if project is not None else project_for(os.getcwd()))
    tools.session_id = session_id
    if text_only:
        tools.vectors = None
    try:
        serve_wire(tools, wire, lines)
    finally:
        tools.close()


def serve_wire(tools: Tools, wire: Wire, lines: list[bytes]) -> None:
    """Serve `tools` over `wire`, beginning with `lines` (all but the last replayed)."""
    import anyio
    import anyio.to_thread

    server = build_server(tools)
    replayed = [_replay_line(line, n) for n, line in enumerate(lines[:-1])]
    dropped = {REPLAY_ID + str(n) for n in range(len(replayed))}

    async def read(sink: Any) -> None:
        async with sink:
            for line in [*replayed, lines[-1]]:
                await sink.send(_message(line))
            while True:
                line = await anyio.to_thread.run_sync(wire.readline, abandon_on_cancel=True)
                if not line:
                    return
                await sink.send(_message(line))

    async def write(source: Any) -> None:
        async with source:
            async for message in source:
                if getattr(message.message, "id", None) in dropped:
                    continue
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                wire.write(text.encode() + b"\n")

    async def run() -> None:
        in_sink, in_source = anyio.create_memory_object_stream[Any](0)
        out_sink, out_source = anyio.create_memory_object_stream[Any](0)
        sink, source = anyio.create_memory_object_stream[Any](0)
        async with in_source, out_sink, source, anyio.create_task_group() as group:
            group.start_soon(read, in_sink)
            group.start_soon(write, out_source)
            group.start_soon(_answer_unreadable, in_source, sink, out_sink)
            await server.run(source, out_sink, server.create_initialization_options())
            group.cancel_scope.cancel()

    anyio.run(run)


REPLAY_ID = "onlooker-front-replay-"
"""The ids the front's answered requests are given again under (their answers are dropped)."""


def _replay_line(line: bytes, n: int) -> bytes:
    message = json.loads(line)
    if "id" in message:
        message["id"] = REPLAY_ID + str(n)
    return json.dumps(message).encode()


def _message(line: bytes) -> Any:
    """A line as the SDK's stdio transport reads it: a SessionMessage, or the exception the SDK
    raised reading it (answered by _answer_unreadable)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    text = line.decode("utf-8", errors="replace")
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except Exception as exc:
        return exc


async def _answer_unreadable(read_stream: Any, sink: Any, write_stream: Any) -> None:
    """Pass the client's messages on to the server; a line the SDK could not read (not JSON,
    nested past the depth its parser takes) gets an error answer with the request's id, where
    the SDK would drop it and leave the client waiting."""
    async with sink:
        async for item in read_stream:
            if isinstance(item, Exception):
                readable = _encodable_message(item)
                if readable is None:
                    await write_stream.send(_unreadable(item))
                    continue
                item = readable
            await sink.send(item)


def _encodable_message(error: Exception) -> Any:
    """The message of a line the SDK refused only for a lone surrogate (`"\\ud800"`: valid JSON,
    text UTF-8 cannot hold), with U+FFFD in its place (text/encodable.py); None for any other
    unreadable line."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    line = _failed_input(error)
    if "\\ud" not in line.lower():
        return None
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    cleaned = encodable(data)
    if cleaned is data:
        return None
    try:
        text = json.dumps(cleaned, ensure_ascii=False)
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except Exception:  # unreadable for another reason too: answered as such
        return None


_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


def _unreadable(error: Exception) -> Any:
    """The JSON-RPC error answering a line that could not be read: the id is taken from the line
    when it can be (json reads deeper than the SDK's parser; a pattern finds it past that)."""
    from mcp.shared.message import SessionMessage
    from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError

    line = _failed_input(error)
    request_id: str | int | None = None
    try:
        parsed = json.loads(line)
        if isinstance(parsed, dict) and isinstance(parsed.get("id"), str | int):
            request_id = parsed["id"]
    except (ValueError, RecursionError):
        found = _ID.search(line)
        if found is not None:
            request_id = json.loads(found.group(1))
    detail = (str(error).splitlines()[1:2] or [type(error).__name__])[0].partition(" [type=")[0]
    message = f"the request could not be read ({detail.strip()}); nothing was done"
    log.warning("answered a request that could not be read: %s", message)
    error_data = ErrorData(code=INVALID_REQUEST, message=message)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error_data))


def _failed_input(error: Exception) -> str:
    """The line a validation error was raised on (pydantic keeps it as the error's input)."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:
            return ""
        if found and isinstance(found[0].get("input"), str):
            text: str = found[0]["input"]
            return text
    return ""
