"""A local OpenAI-compatible chat endpoint that answers from a script: for tests and benchmarks.

It stands in for a paid remote API over real HTTP, so the real `openai-compatible:` provider (the
`openai` SDK) is exercised end to end: `ScriptedEndpoint(latency=0.5)` answers every chat
completion after half a second; a reply can also be an HTTP status, a body that is not a
completion, JSON cut short, or a `FunctionCall` the model makes. A request with `"stream": true`
is answered as server-sent chunks, as agents (opencode) ask for. Standard library only; it serves
on a loopback port in a thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A reply that calls a tool (`tool_calls` with finish_reason `tool_calls`)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    """The call's id; default `call_<n>`, n counting the endpoint's requests."""
    text: str = ""
    """What the model writes before the call (the message's `content`)."""
    reasoning: str = ""
    """The model's reasoning before it (`reasoning_content`, as reasoning models send it)."""


EndpointReply = (
    str | dict[str, Any] | tuple[int, str] | FunctionCall | Callable[[dict[str, Any]], Any]
)
"""The completion's text, JSON data (sent as its text), (HTTP status, raw body), a tool call, or
a function of the request body giving one of those."""


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
                streamed = status == 200 and body.get("stream") is True
                data = (_events(json.loads(text)) if streamed else text).encode()
                try:
                    self.send_response(status)
                    self.send_header(
                        "Content-Type", "text/event-stream" if streamed else "application/json"
                    )
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
        if isinstance(reply, FunctionCall):
            answer = completion("", body, self.model)
            choice = answer["choices"][0]
            choice["finish_reason"] = "tool_calls"
            choice["message"] = {"role": "assistant", "content": reply.text or None,
                                 "tool_calls": [{
                "id": reply.id or f"call_{len(self.requests)}", "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
            }]}  # fmt: skip
            if reply.reasoning:
                choice["message"]["reasoning_content"] = reply.reasoning
            return 200, json.dumps(answer)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return 200, json.dumps(completion(text, body, self.model))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    """The listen backlog: the default 5 drops the SYNs of a burst of parallel callers, which
    then wait a second to retry."""


def _events(answer: dict[str, Any]) -> str:
    """A completion as a streamed one: server-sent chunks (its message as one delta, its tool
    calls, if any, as the next, as models write text before a call; then the finish reason with
    the usage), then `[DONE]`."""
    choice = answer["choices"][0]
    message = dict(choice["message"])
    calls = message.pop("tool_calls", None)
    deltas = [message]
    if calls:
        deltas.append({"tool_calls": [{"index": i, **call} for i, call in enumerate(calls)]})
    head = {k: answer[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    chunks = [
        *({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
          for delta in deltas),
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
         "usage": answer["usage"]},
    ]  # fmt: skip
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


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
