"""A scripted Anthropic Messages API on 127.0.0.1: real HTTP and SSE, no network, no paid model.

`MessagesAPI(script)` answers `POST /v1/messages` in the Messages API's streaming event format
(message_start, content_block_start/delta/stop, message_delta, message_stop). Requests that offer
tools are the agent's turns: each takes the next reply from the script (a tool call, or a final
text once the script is used up). Other requests (a session title, a topic check) get a short
text. Every request body is kept, in order, for the test to read what the model was sent.

`bundled_cli()` and `cli_env(api, folder)` run the Claude Code CLI bundled in claude-agent-sdk
against it, with everything the CLI writes kept under `folder`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

MODEL = "claude-sonnet-4-5"


@dataclass(frozen=True, slots=True)
class ToolUse:
    """The model calls `name` with `input`."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Text:
    """The model answers with text and ends its turn."""

    text: str


Reply = ToolUse | Text


@dataclass
class MessagesAPI:
    """The server; use it as a context manager, point ANTHROPIC_BASE_URL at `url`."""

    script: Sequence[Reply]
    final: str = "Done."
    """The text answered once the script is used up."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body received, in order."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    """The request bodies answered from the script (the agent's turns)."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> MessagesAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def reply_to(self, body: dict[str, Any]) -> Reply:
        """The reply to one request, recording it."""
        with self._lock:
            self.requests.append(body)
            if not body.get("tools"):
                return Text("Scripted session")
            self.turns.append(body)
            turn = len(self.turns)
            return self.script[turn - 1] if turn <= len(self.script) else Text(self.final)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):04d}"

    def tool_results(self) -> list[str]:
        """The text of every tool_result the agent's last turn carried, oldest first."""
        return [text for _, text in tool_results(self.turns[-1])] if self.turns else []


def bundled_cli() -> Path:
    """The Claude Code CLI inside claude-agent-sdk; the test is skipped when there is none."""
    try:
        import claude_agent_sdk
    except ImportError:
        pytest.skip("claude-agent-sdk is not installed, so there is no bundled Claude Code CLI")
    cli = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    if not cli.is_file():
        pytest.skip(f"claude-agent-sdk has no bundled Claude Code CLI at {cli}")
    return cli


def cli_env(api: MessagesAPI, folder: Path) -> dict[str, str]:
    """Environment for the CLI: `api` as its model, its home, config and temp files in `folder`."""
    home = folder / "agent-home"
    scratch = folder / "agent-tmp"
    for made in (home, scratch):
        made.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "test-key-not-used-anywhere",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "TMPDIR": str(scratch),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def tool_results(body: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(tool_use_id, text) of every tool_result block in a request's messages."""
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                yield str(block.get("tool_use_id", "")), block_text(block.get("content"))


def block_text(content: Any) -> str:
    """The text of a message's or block's content, whether a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block_text(b.get("content")) if b.get("type") == "tool_result" else b.get("text", "")
            for b in content
            if isinstance(b, dict)
        )
    return ""


def message_texts(body: dict[str, Any]) -> list[str]:
    """The text of every message in a request, tool results included."""
    return [block_text(m.get("content")) for m in body.get("messages", [])]


def _events(api: MessagesAPI, reply: Reply, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 12, "output_tokens": 1}
    message = {
        "id": api.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    if isinstance(reply, ToolUse):
        block = {"type": "tool_use", "id": api.next_id("toolu"), "name": reply.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.input)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
        stop = "end_turn"
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 8},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _message(api: MessagesAPI, reply: Reply, model: str) -> dict[str, Any]:
    """The same reply as one JSON message, for a request that does not stream."""
    if isinstance(reply, ToolUse):
        content = [
            {
                "type": "tool_use",
                "id": api.next_id("toolu"),
                "name": reply.name,
                "input": reply.input,
            }
        ]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": reply.text}]
        stop = "end_turn"
    return {
        "id": api.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 8},
    }


def _handler(api: MessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                self._json({"input_tokens": 12})
            elif path.endswith("/v1/messages"):
                reply = api.reply_to(body)
                model = str(body.get("model") or MODEL)
                if body.get("stream"):
                    self._stream(_events(api, reply, model))
                else:
                    self._json(_message(api, reply, model))
            else:
                self._json({"type": "error", "error": {"type": "not_found_error"}}, 404)

        def do_GET(self) -> None:
            self._json({"type": "error", "error": {"type": "not_found_error"}}, 404)

        do_HEAD = do_GET

        def _json(self, data: dict[str, Any], status: int = 200) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _stream(self, events: Iterator[tuple[str, dict[str, Any]]]) -> None:
            payload = b"".join(
                f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
            )
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads `api.requests` instead."""

    return Handler
