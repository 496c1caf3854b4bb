"""A local Anthropic Messages endpoint that answers from a script: to run the real Claude Code CLI
(or any Messages API client) offline, in tests and benchmarks, and see what the model was sent.

`AnthropicEndpoint(script)` serves `POST /v1/messages` on 127.0.0.1 in the API's streaming format
(message_start, content_block_start/delta/stop with `text_delta` and `input_json_delta`,
message_delta, message_stop) or as one JSON message when the request does not stream. Requests that
offer tools are the agent's turns: each takes the next reply of the script (a tool call, text, or
several blocks), and the `final` text once the script is used up. Requests without tools (a
session title, a summary) are side requests, answered by `side` apart from the script.
`count_tokens` gets a count and any other request a harmless empty answer. Every request is kept,
in order, so a test asserts on what the model actually saw. Standard library only.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .messages_request import MessagesRequest

__all__ = ["AnthropicEndpoint", "Blocks", "Failure", "Reply", "Text", "Thinking", "ToolUse"]


@dataclass(frozen=True, slots=True)
class ToolUse:
    """The model calls the tool `name` with `input` (and the turn stops for its result)."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Text:
    """The model answers `text` and ends its turn."""

    text: str


@dataclass(frozen=True, slots=True)
class Thinking:
    """A thinking block (extended thinking), with a scripted signature: put it first in `Blocks`."""

    thinking: str


@dataclass(frozen=True, slots=True)
class Blocks:
    """Several content blocks in one answer: text before tool calls, or calls made in parallel."""

    blocks: tuple[Thinking | Text | ToolUse, ...]


@dataclass(frozen=True, slots=True)
class Failure:
    """An API error: `status` with an error body of `type` (e.g. 529, "overloaded_error")."""

    status: int = 500
    type: str = "api_error"
    message: str = "scripted failure"


SIGNATURE = "c2NyaXB0ZWQ="
"""The signature of scripted thinking blocks (the API's is opaque; clients keep it as it is)."""

Reply = ToolUse | Text | Blocks | Failure | Callable[[MessagesRequest], "Reply"]
"""One scripted answer, or a function of the request that gives one."""


@dataclass
class AnthropicEndpoint:
    """The server; use it as a context manager and point `ANTHROPIC_BASE_URL` at `url`."""

    script: Sequence[Reply] = ()
    final: str = "Done."
    """The text answered to a turn once the script is used up."""
    subagent_script: Sequence[Reply] = ()
    """Replies to the turns of Claude Code's subagents (theirs run beside the main agent's)."""
    summary: str = "The session so far: the user asked for work and the agent did it."
    """The summary answered to a compaction request (sent inside `<summary>` tags)."""
    side: Callable[[MessagesRequest], str | Failure] | str = "Scripted session"
    """The text answered to a side request (one that offers no tools), or a Failure."""
    input_tokens: int | Callable[[MessagesRequest], int] | None = None
    """The usage reported for each answer; by default about a token per four characters sent."""
    latency: float = 0.0
    """Seconds each turn waits before its answer starts."""
    requests: list[MessagesRequest] = field(default_factory=list)
    """Every request received (messages, count_tokens and any other), in order."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._served = {"main": 0, "subagent": 0}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- what the model was sent ------------------------------------------------------------------

    @property
    def turns(self) -> list[MessagesRequest]:
        """The main agent's turns, in order: the message requests that offered tools (neither a
        subagent's nor a compaction)."""
        return [r for r in self._agent_requests() if not r.is_subagent]

    @property
    def subagent_turns(self) -> list[MessagesRequest]:
        """The turns of subagents, in order."""
        return [r for r in self._agent_requests() if r.is_subagent]

    def _agent_requests(self) -> list[MessagesRequest]:
        with self._lock:
            requests = list(self.requests)
        return [r for r in requests if r.is_messages and r.is_turn and not r.is_compaction]

    @property
    def side_requests(self) -> list[MessagesRequest]:
        """Message requests without tools (titles, summaries), in order."""
        return [r for r in self.requests if r.is_messages and not r.is_turn]

    @property
    def compactions(self) -> list[MessagesRequest]:
        """Requests to summarize the conversation (Claude Code compacting its context)."""
        return [r for r in self.requests if r.is_messages and r.is_compaction]

    @property
    def script_left(self) -> int:
        """Scripted replies (main agent and subagents) not yet served."""
        main = len(self.script) - self._served["main"]
        return max(0, main) + max(0, len(self.subagent_script) - self._served["subagent"])

    # -- serving ----------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL for `ANTHROPIC_BASE_URL` (no `/v1`)."""
        assert self._server is not None, "start the endpoint first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> AnthropicEndpoint:
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> AnthropicEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------------

    def answer(self, request: MessagesRequest) -> Text | ToolUse | Blocks | Failure:
        """The reply to one message request (recorded already): scripted, final or side."""
        if not request.is_turn:
            side = self.side(request) if callable(self.side) else self.side
            return side if isinstance(side, Failure) else Text(side)
        if request.is_compaction:
            return Text(f"<analysis>Scripted.</analysis>\n<summary>{self.summary}</summary>")
        lane = "subagent" if request.is_subagent else "main"
        script = self.subagent_script if request.is_subagent else self.script
        with self._lock:
            index = self._served[lane]
            self._served[lane] += 1
        reply: Reply = script[index] if index < len(script) else Text(self.final)
        while callable(reply):
            reply = reply(request)
        return reply

    def record(self, request: MessagesRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_scripted_{next(self._ids):04d}"

    def usage_for(self, request: MessagesRequest) -> int:
        if callable(self.input_tokens):
            return int(self.input_tokens(request))
        if self.input_tokens is not None:
            return self.input_tokens
        return max(1, request.size // 4)


def stream_events(
    endpoint: AnthropicEndpoint, request: MessagesRequest, reply: Text | ToolUse | Blocks
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The SSE events (name, data) of one streamed answer."""
    blocks = reply.blocks if isinstance(reply, Blocks) else (reply,)
    usage = {
        "input_tokens": endpoint.usage_for(request),
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    message: dict[str, Any] = {
        "id": endpoint.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    output = 0
    for index, block in enumerate(blocks):
        start: dict[str, Any]
        if isinstance(block, ToolUse):
            tool_id = endpoint.next_id("toolu")
            start = {"type": "tool_use", "id": tool_id, "name": block.name, "input": {}}
            text = json.dumps(block.input)
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in _halves(text)]
        elif isinstance(block, Thinking):
            start, text = {"type": "thinking", "thinking": "", "signature": ""}, block.thinking
            deltas = [{"type": "thinking_delta", "thinking": part} for part in _halves(text)]
            deltas.append({"type": "signature_delta", "signature": SIGNATURE})
        else:
            start, text = {"type": "text", "text": ""}, block.text
            deltas = [{"type": "text_delta", "text": part} for part in _halves(text)]
        output += max(1, len(text) // 4)
        at = {"index": index}
        yield "content_block_start", {"type": "content_block_start", **at, "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", **at, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", **at}
    stop = "tool_use" if any(isinstance(b, ToolUse) for b in blocks) else "end_turn"
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": output},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def whole_message(
    endpoint: AnthropicEndpoint, request: MessagesRequest, reply: Text | ToolUse | Blocks
) -> dict[str, Any]:
    """The same answer as one JSON message, for a request that does not stream."""
    blocks = reply.blocks if isinstance(reply, Blocks) else (reply,)
    content: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, ToolUse):
            tool_id = endpoint.next_id("toolu")
            content.append({"type": "tool_use", "id": tool_id, "name": block.name})
            content[-1]["input"] = block.input
        elif isinstance(block, Thinking):
            content.append({"type": "thinking", "thinking": block.thinking, "signature": SIGNATURE})
        else:
            content.append({"type": "text", "text": block.text})
    stop = "tool_use" if any(isinstance(b, ToolUse) for b in blocks) else "end_turn"
    return {
        "id": endpoint.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": endpoint.usage_for(request), "output_tokens": 8},
    }


def _halves(text: str) -> list[str]:
    """`text` in two pieces, as a real stream splits it (one piece when it is short)."""
    middle = len(text) // 2
    return [text[:middle], text[middle:]] if middle else [text]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def _handler(endpoint: AnthropicEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            request = MessagesRequest(
                method="POST",
                path=self.path.split("?", 1)[0],
                body=body if isinstance(body, dict) else {},
                headers={k.lower(): v for k, v in self.headers.items()},
                received=time.monotonic(),
            )
            endpoint.record(request)
            if request.path.endswith("/count_tokens"):
                self._json({"input_tokens": endpoint.usage_for(request)})
            elif request.is_messages:
                self._messages(request)
            else:
                self._json({})

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            endpoint.record(MessagesRequest("GET", path, {}, {}, received=time.monotonic()))
            error = {"type": "not_found_error", "message": f"no {self.path} here"}
            self._json({"type": "error", "error": error}, 404)

        do_HEAD = do_GET

        def _messages(self, request: MessagesRequest) -> None:
            reply = endpoint.answer(request)
            if isinstance(reply, Failure):
                error = {"type": reply.type, "message": reply.message}
                self._json({"type": "error", "error": error}, reply.status)
                return
            if request.is_turn and endpoint.latency:
                time.sleep(endpoint.latency)
            if request.body.get("stream"):
                self._stream(stream_events(endpoint, request, reply))
            else:
                self._json(whole_message(endpoint, request, reply))

        def _json(self, data: dict[str, Any], status: int = 200) -> None:
            payload = json.dumps(data).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:  # the client went away first
                self.close_connection = True

        def _stream(self, events: Iterator[tuple[str, dict[str, Any]]]) -> None:
            """Server-sent events, one chunk each (chunked transfer, so the connection stays)."""
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for name, data in events:
                    chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a test reads `endpoint.requests` instead."""

    return Handler
