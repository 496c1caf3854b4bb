"""A local OpenAI-compatible chat endpoint that answers from a script: for tests and benchmarks.

It stands in for a paid remote API over real HTTP, so the real `openai-compatible:` provider (the
`openai` SDK) is exercised end to end: `ScriptedEndpoint(latency=0.5)` answers every chat
completion after half a second; a reply can also be an HTTP status, a body that is not a
completion, or JSON cut short. Standard library only; it serves on a loopback port in a thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EndpointReply = str | dict[str, Any] | tuple[int, str] | Callable[[dict[str, Any]], Any]
"""The completion's text, JSON data (sent as its text), (HTTP status, raw body), or a function of
the request body giving one of those."""


@dataclass
class ScriptedEndpoint:
    """Serves `POST /v1/chat/completions` on 127.0.0.1; use as a context manager."""

    reply: EndpointReply = '{"observations": []}'
    latency: float = 0.0
    """Seconds each answer waits (each request on its own thread, so they overlap)."""
    model: str = "scripted-endpoint"
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL for the openai SDK (`.../v1`)."""
        assert self._server is not None, "start the endpoint first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def spec(self, model: str | None = None) -> str:
        """The model string that reaches this endpoint: `openai-compatible:<url>#<model>`."""
        return f"openai-compatible:{self.url}#{model or self.model}"

    def start(self) -> ScriptedEndpoint:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with endpoint._lock:
                    endpoint.requests.append(body)
                if endpoint.latency:
                    time.sleep(endpoint.latency)
                status, text = endpoint._answer(body)
                data = text.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timed out) first
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, body: dict[str, Any]) -> tuple[int, str]:
        reply: Any = self.reply
        if callable(reply):
            reply = reply(body)
        if isinstance(reply, tuple):
            return int(reply[0]), str(reply[1])
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return 200, json.dumps(completion(text, body, self.model))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    """The listen backlog: the default 5 drops the SYNs of a burst of parallel callers, which
    then wait a second to retry."""


def completion(text: str, request: dict[str, Any], model: str) -> dict[str, Any]:
    """A chat completion object answering `request` with `text`, with word-count usage."""
    words = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": words,
            "completion_tokens": len(text.split()),
            "total_tokens": words + len(text.split()),
        },
    }
