"""What keeps the viewer local (specs/serve.md, Safe): every request must name the viewer itself
in its `Host` header (so a web page whose domain was rebound to 127.0.0.1 is refused), and a write
must carry the per-server token and come from the viewer's own origin.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_HEADER = "x-onlooker-token"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Only the viewer's own script, styles and API: nothing is fetched from the network."""


def allowed_hosts(port: int) -> frozenset[str]:
    """The `Host` values a page of this viewer sends."""
    return frozenset(f"{name}:{port}" for name in LOOPBACK_NAMES)


class Guard:
    """ASGI middleware: refuse foreign hosts, and writes without the token or from elsewhere."""

    def __init__(self, app: App, *, token: str, hosts: Callable[[], frozenset[str]]) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts
        """The allowed Host values; a function, as the port is known once the server listens."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if host not in self.hosts():
            await _refuse(send, 421, f"foreign Host header {host!r}: this viewer answers only "
                          "to 127.0.0.1, localhost and [::1] on its own port")  # fmt: skip
            return
        if scope["method"] in WRITES:
            problem = self._write_problem(headers, host)
            if problem:
                await _refuse(send, 403, problem)
                return
        await self.app(scope, receive, _with_headers(send))

    def _write_problem(self, headers: dict[str, str], host: str) -> str:
        token = headers.get(TOKEN_HEADER, "")
        if not token or not hmac.compare_digest(token.encode(), self.token.encode()):
            return f"a write needs this viewer's token in the {TOKEN_HEADER} header"
        origin = headers.get("origin", "")
        if origin != f"http://{host}":
            return f"a write must come from the viewer's own page (Origin {origin or 'missing'})"
        if headers.get("sec-fetch-site", "same-origin") != "same-origin":
            return "a write must come from the viewer's own page (Sec-Fetch-Site)"
        return ""


def _with_headers(send: Send) -> Send:
    async def sending(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [
                *message.get("headers", []),
                (b"content-security-policy", CSP.encode()),
                (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", b"no-referrer"),
                (b"cross-origin-resource-policy", b"same-origin"),
            ]
        await send(message)

    return sending


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"status": "error", "error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
