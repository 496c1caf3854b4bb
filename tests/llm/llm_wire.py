"""Servers and payloads for the model tests, all on 127.0.0.1: the handle of a running
llama_cpp.server, and canned HTTP answers in the providers' wire formats, served by http.server, so
the real openai and anthropic SDKs are tested without a paid call."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from onlooker.llm import Message

ASK = [Message("system", "You review code."), Message("user", "Review: x = 1")]
"""A short review request."""

VERDICT: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["ok", "problem"]}},
    "required": ["verdict"],
}
"""A small schema to ask for."""


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LlamaServer:
    process: subprocess.Popen[str]
    port: int
    log: list[str]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def spec(self) -> str:
        return f"openai-compatible:{self.base_url}#smollm2"


@dataclass
class Reply:
    """One canned HTTP response; `hold` keeps the request waiting until the test ends."""

    body: Any = None
    status: int = 200
    content_type: str = "application/json"
    hold: bool = False


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class CannedServer:
    """Answers each POST with the next Reply (the last one repeats) and records the requests."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, *replies: Reply) -> None:
        self.replies[:] = replies

    def next_reply(self) -> Reply:
        index = min(len(self.requests) - 1, len(self.replies) - 1)
        return self.replies[index]


@contextmanager
def canned_server() -> Iterator[CannedServer]:
    """A CannedServer listening on a free loopback port until the block ends."""
    state = CannedServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            state.requests.append(Received(self.path, headers, body))
            reply = state.next_reply()
            if reply.hold:
                state.release.wait(30)
            payload = reply.body
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (timeout)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def chat_completion(content: str, *, finish: str = "stop", model: str = "m") -> dict[str, Any]:
    """An OpenAI chat completion in its wire format."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def anthropic_message(
    content: list[dict[str, Any]], *, stop: str = "end_turn", model: str = "claude-haiku-4-5"
) -> dict[str, Any]:
    """An Anthropic Messages API response in its wire format."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 200},
    }
