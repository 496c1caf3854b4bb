"""`listing.json`: what the MCP server's first answers say, as the SDK says it, written ahead of
time so the server's front (mcp/front.py) answers them before the SDK is imported.

The file holds the SDK's own answers to `initialize`, `server/discover` and `tools/list` in both
protocol eras, the protocol versions the SDK speaks, and the SDK's version (with another `mcp`
installed, the front hands over at once); it is written by running the real SDK
server (`build_server`) over memory streams. `python -m onlooker.mcp.listing` writes it again;
`tests/mcp_tools/test_front.py` fails while it is not current.
"""

from __future__ import annotations

import contextlib
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from .front import LISTING_FILE, MODERN_META
from .server import build_server
from .tools import Tools

ERA_KEYS = ("legacy_initialize", "legacy_tools", "modern_discover", "modern_tools")


def sdk_listing() -> dict[str, Any]:
    """The listing as the installed SDK answers it now."""
    import anyio
    from mcp_types.version import (
        HANDSHAKE_PROTOCOL_VERSIONS,
        LATEST_HANDSHAKE_VERSION,
        MODERN_PROTOCOL_VERSIONS,
    )

    modern = MODERN_PROTOCOL_VERSIONS[-1]
    envelope = {
        "_meta": {
            MODERN_META + "protocolVersion": modern,
            MODERN_META + "clientInfo": {"name": "onlooker-listing", "version": "0"},
            MODERN_META + "clientCapabilities": {},
        }
    }
    legacy = [
        _request(1, "initialize", _initialize_params(LATEST_HANDSHAKE_VERSION)),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _request(2, "tools/list", {}),
    ]
    modern_requests = [
        _request(1, "server/discover", envelope),
        _request(2, "tools/list", envelope),
    ]
    legacy_answers = anyio.run(_answers, legacy)
    modern_answers = anyio.run(_answers, modern_requests)
    initialize = dict(legacy_answers[1])
    initialize.pop("protocolVersion")
    initialize["serverInfo"] = dict(initialize["serverInfo"])
    initialize["serverInfo"].pop("version")
    discover = json.loads(json.dumps(modern_answers[1]))
    discover["_meta"][MODERN_META + "serverInfo"].pop("version")
    return {
        "mcp_version": metadata.version("mcp"),
        "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "latest_handshake_version": LATEST_HANDSHAKE_VERSION,
        "modern_versions": list(MODERN_PROTOCOL_VERSIONS),
        "legacy_initialize": initialize,
        "legacy_tools": legacy_answers[2],
        "modern_discover": discover,
        "modern_tools": _without_version(modern_answers[2]),
    }


def _without_version(result: dict[str, Any]) -> dict[str, Any]:
    """A result with the server's version taken out of its `_meta` (filled in at run time)."""
    result = json.loads(json.dumps(result))
    info = result.get("_meta", {}).get(MODERN_META + "serverInfo")
    if isinstance(info, dict):
        info.pop("version", None)
    return result


def _request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _initialize_params(version: str) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "onlooker-listing", "version": "0"},
    }


async def _answers(requests: list[dict[str, Any]]) -> dict[Any, Any]:
    """The SDK server's results to `requests`, by request id."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    server = build_server(Tools(Path("/nonexistent-onlooker-home"), "listing"))
    to_server, server_reads = anyio.create_memory_object_stream[Any](len(requests))
    server_writes, from_server = anyio.create_memory_object_stream[Any](len(requests))
    results: dict[Any, Any] = {}
    streams = (to_server, server_reads, server_writes, from_server)
    async with contextlib.AsyncExitStack() as stack, anyio.create_task_group() as group:
        for stream in streams:
            await stack.enter_async_context(stream)
        options = server.create_initialization_options()
        group.start_soon(server.run, server_reads, server_writes, options)
        for request in requests:
            text = json.dumps(request)
            message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            await to_server.send(SessionMessage(message))
            if "id" in request:
                answer = await from_server.receive()
                wire = json.loads(answer.message.model_dump_json(by_alias=True, exclude_unset=True))
                results[wire["id"]] = wire["result"]
        group.cancel_scope.cancel()
    return results


def write_listing(path: Path = Path(LISTING_FILE)) -> bool:
    """Write the listing; True if the file changed."""
    text = json.dumps(sdk_listing(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except OSError:
        pass
    path.write_text(text, encoding="utf-8")
    return True


if __name__ == "__main__":
    changed = write_listing()
    sys.stdout.write(f"{LISTING_FILE}: {'written' if changed else 'already current'}\n")
