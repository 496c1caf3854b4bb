"""The MCP server's first moments (specs/mcp.md, "Start-up"), with the standard library only.

A client waits for `initialize` (or `server/discover`, protocol 2026-07-28) and `tools/list`
before its session starts, and the `mcp` SDK takes about a second to import. So `onlooker mcp`
answers those from `listing.json` (the SDK's own answers, written ahead of time by
mcp/listing.py) and hands the connection to the SDK server (mcp/server.py) on the first message
it does not answer: a tool call, most often. The SDK is first given again, under ids of its own,
the messages the front answered, so it is in the state the client believes it is in; its
answers to those are dropped.

The launcher starts it as `python -I -S .../onlooker/mcp/entry.py mcp` (`serve_isolated`):
without `site`, `runpy`, `importlib.util`, `os` or `json` (quick_json.py drives `json`'s own C
scanner and encoder), a bare Python start and little more; `site` is added at the hand-over.
"""

# Only built-in modules at import time: this module runs before anything heavy is imported.

from __future__ import annotations

import sys

from .. import __version__
from . import quick_json
from .sdk_found import add_site, sdk_installed, sdk_is
from .wire import Wire

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

if sys.platform == "win32":  # pragma: no cover - `os` costs little next to the rest there
    import os

    LISTING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "listing.json")
else:  # `os` is not loaded yet: the path is put together by hand
    import posix

    _HERE = __file__ if __file__.startswith("/") else posix.getcwd() + "/" + __file__
    LISTING_FILE = _HERE.rpartition("/")[0] + "/listing.json"
MODERN_META = "io.modelcontextprotocol/"
"""The prefix of the `_meta` keys of a 2026-07-28 request's envelope."""
ENVELOPE = tuple(
    MODERN_META + key for key in ("protocolVersion", "clientInfo", "clientCapabilities")
)
SERVER_INFO = MODERN_META + "serverInfo"


class Front:
    """What the front answers, one line at a time; it keeps the lines the SDK must be given
    again at the hand-over (`replay`)."""

    def __init__(self, listing: dict[str, Any], version: str = __version__) -> None:
        self.listing = listing
        self.version = version
        self.era: str | None = None
        """"legacy" after an `initialize`, "modern" after a request in a 2026-07-28 envelope."""
        self.replay: list[bytes] = []

    def take(self, line: bytes) -> bytes | None:
        """The answer to `line` (b"" for a notification, which gets none), or None: the SDK
        answers it and everything after it."""
        try:
            message = quick_json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return None
        method, params = message.get("method"), message.get("params", {})
        if not isinstance(method, str) or not isinstance(params, dict):
            return None
        if "id" not in message:
            return self._notification(method, line)
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return None
        result = self._result(method, params)
        if result is None:
            return None
        try:
            answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
            text = quick_json.dumps(answer).encode()
        except (ValueError, UnicodeError):  # an id the SDK would answer otherwise
            return None
        if len(self.replay) == 0:
            self.replay.append(line)
        return text + b"\n"

    def _notification(self, method: str, line: bytes) -> bytes | None:
        if self.era is None or (method == "notifications/initialized" and self.era != "legacy"):
            return None
        self.replay.append(line)  # the SDK sees it too, in its place
        return b""

    def _result(self, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        modern = self._modern(params)
        if modern is None:
            return None
        if method == "initialize" and self.era is None and not modern:
            negotiated = self._negotiated(params)
            if negotiated is None:
                return None
            self.era = "legacy"
            result = dict(self.listing["legacy_initialize"])
            result["protocolVersion"] = negotiated
            result["serverInfo"] = {**result["serverInfo"], "version": self.version}
            return result
        if modern and self.era in (None, "modern") and set(params) == {"_meta"}:
            if method == "server/discover":
                self.era = "modern"
                return self._stamped(self.listing["modern_discover"])
            if method == "tools/list":
                self.era = "modern"
                return self._stamped(self.listing["modern_tools"])
        legacy = self.era == "legacy" and not modern and set(params) <= {"_meta"}
        if method == "tools/list" and legacy:
            tools: dict[str, Any] = self.listing["legacy_tools"]
            return tools
        return None

    def _modern(self, params: dict[str, Any]) -> bool | None:
        """Whether `params` come in a whole 2026-07-28 envelope of a version the listing speaks
        (False: no envelope; None: a part of one, or another version, for the SDK to judge)."""
        meta = params.get("_meta")
        if not isinstance(meta, dict) or ENVELOPE[0] not in meta:
            return False
        version, client, capabilities = (meta.get(key) for key in ENVELOPE)
        whole = isinstance(client, dict) and isinstance(capabilities, dict)
        return True if whole and version in self.listing["modern_versions"] else None

    def _negotiated(self, params: dict[str, Any]) -> str | None:
        """The protocol version an `initialize` gets, as the SDK picks it; None when the SDK
        would refuse the request (it checks what is sent)."""
        requested, client = params.get("protocolVersion"), params.get("clientInfo")
        if not isinstance(requested, str) or not isinstance(params.get("capabilities"), dict):
            return None
        if not isinstance(client, dict) or not all(
            isinstance(client.get(key), str) for key in ("name", "version")
        ):
            return None
        if requested in self.listing["handshake_versions"]:
            return requested
        latest: str = self.listing["latest_handshake_version"]
        return latest

    def _stamped(self, result: dict[str, Any]) -> dict[str, Any]:
        """`result` with this server's version in its `_meta` server info."""
        meta = result.get("_meta")
        if not isinstance(meta, dict) or SERVER_INFO not in meta:
            return result
        info = {**meta[SERVER_INFO], "version": self.version}
        return {**result, "_meta": {**meta, SERVER_INFO: info}}


def load_listing(path: str = LISTING_FILE) -> dict[str, Any] | None:
    """The listing, or None when it cannot be read or was written with another `mcp` than the
    one installed (the SDK then answers from the start)."""
    try:
        with open(path, encoding="utf-8") as file:
            listing = quick_json.loads(file.read())
    except (OSError, ValueError):
        return None
    if not isinstance(listing, dict) or not sdk_is(listing.get("mcp_version")):
        return None
    return listing


def serve(project: str | None, session_id: str = "", text_only: bool = False) -> None:
    """Serve over stdin/stdout until the client closes the connection: the front first, then
    the SDK server for the tools (`project` None: the project of the current directory). The
    SIGINT a client sends when it exits ends the server quietly."""
    try:
        _serve(project, session_id, text_only)
    except KeyboardInterrupt:
        return


def _serve(project: str | None, session_id: str, text_only: bool) -> None:
    wire = Wire.claim()
    listing = load_listing()
    front = Front(listing) if listing is not None else None
    line = wire.readline()
    while front is not None and line:
        answer = front.take(line)
        if answer is None:
            break
        if answer:
            wire.write(answer)
        line = wire.readline()
    if not line:
        return  # the client left before any tool was called: nothing else to load
    add_site()  # started without it (`serve_isolated`): the SDK and onlooker's deps need it
    from .server import serve_handed_over

    replay = front.replay if front is not None else []
    serve_handed_over(wire, [*replay, line], project, session_id, text_only)


def serve_isolated(args: list[str]) -> bool:
    """`onlooker mcp ARGS` as the launcher starts it (`python -I -S .../mcp/entry.py mcp ARGS`):
    the front at once when the SDK is where `site` would find it. False for anything else (other
    options, the SDK elsewhere or missing), with `site` added: the command line takes it."""
    options = fast_options(args[1:]) if args[:1] == ["mcp"] else None
    if options is not None and sdk_installed():
        serve(None, *options)
        return True
    add_site()
    return False


def fast_options(args: list[str]) -> tuple[str, bool] | None:
    """`--session ID` and `--text-only`, the options Claude Code's registration may pass, read
    without click; None for anything else (click reads it, with its help and errors)."""
    session_id, text_only, rest = "", False, list(args)
    while rest:
        word = rest.pop(0)
        if word == "--text-only":
            text_only = True
        elif word == "--session" and rest and not rest[0].startswith("-"):
            session_id = rest.pop(0)
        elif word.startswith("--session=") and len(word) > len("--session="):
            session_id = word.partition("=")[2]
        else:
            return None
    return session_id, text_only
