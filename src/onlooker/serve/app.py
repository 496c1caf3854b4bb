"""The viewer's ASGI app (Starlette): the page and its assets, the JSON reads, the writes (unless
read-only), and `/events`, the server-sent event stream of the live feed (specs/serve.md).
"""

from __future__ import annotations

import asyncio
import html
import json
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..errors import OnlookerError
from ..store import Store
from . import actions, budget, reads
from .feed import Feed
from .guard import Guard
from .hosts import checked_host

KEEPALIVE = 15.0
"""Seconds between comments on an idle event stream (so proxies and browsers keep it open)."""
ASSETS = {
    "app.js": ("serve", "application/javascript"),
    "app.css": ("serve", "text/css"),
    "report.css": ("report", "text/css"),
}
"""Assets served from the package: every byte the page uses is local."""


def create_app(
    home: Path, *, token: str, boot: str, read_only: bool, hosts: Callable[[], frozenset[str]]
) -> Guard:
    """The viewer of data home `home`, wrapped in its guard."""
    feed = Feed(home, boot)
    local = threading.local()

    def store() -> Store:
        found: Store | None = getattr(local, "store", None)
        if found is None:
            found = local.store = Store(home)
        return found

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        feed.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            feed.stop()

    def page(_: Request) -> Response:
        text = (resources.files("onlooker.serve") / "static" / "index.html").read_text()
        text = text.replace("{{token}}", html.escape(token)).replace(
            "{{mode}}", "read-only" if read_only else "read-write"
        )
        return Response(text, media_type="text/html; charset=utf-8",
                        headers={"cache-control": "no-store"})  # fmt: skip

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return _error(f"no asset {name!r}", 404)
        package, media = ASSETS[name]
        folder = "static" if package == "serve" else "templates"
        data = (resources.files(f"onlooker.{package}") / folder / name).read_bytes()
        return Response(data, media_type=f"{media}; charset=utf-8")

    async def events(request: Request) -> Response:
        last = request.headers.get("last-event-id") or request.query_params.get("last")
        backlog, reset = feed.since(last)
        return StreamingResponse(
            _stream(feed, backlog, reset),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    def read(handler: Callable[[Store, Request], dict[str, Any]]) -> Callable[..., Any]:
        async def endpoint(request: Request) -> Response:
            try:
                data = await _in_thread(handler, store, request)
            except (OnlookerError, ValueError) as exc:
                return _error(str(exc), 400)
            return JSONResponse(data, headers={"cache-control": "no-store"})

        return endpoint

    def write(handler: Callable[[Store, Request, dict[str, Any]], dict[str, Any]]) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                body = await request.json() if await request.body() else {}
            except ValueError:
                return _error("body: not JSON", 400)
            if not isinstance(body, dict):
                return _error("body: a JSON object", 400)
            try:
                data = await _in_thread(lambda s, r: handler(s, r, body), store, request)
            except (OnlookerError, ValueError) as exc:
                return _error(str(exc), 400)
            return JSONResponse(data)

        return endpoint

    routes = [
        Route("/", page),
        Route("/static/{name}", asset),
        Route("/events", events),
        Route("/api/config", read(lambda s, r: {"read_only": read_only, "home": str(home)})),
        Route("/api/sessions", read(_sessions)),
        Route("/api/timeline", read(_timeline)),
        Route("/api/findings", read(_findings)),
        Route("/api/memories", read(_memories)),
        Route("/api/overview", read(_overview)),
        Route("/api/improvements", read(_improvements)),
        Route(
            "/api/budget",
            read(lambda s, r: budget.daily_usage(s, _project(r.query_params.get("project")))),
        ),
        Route("/api/health", read(lambda s, r: reads.hook_health(s))),
    ]
    if not read_only:
        routes += [
            Route("/api/findings/{id}/acknowledge", write(
                lambda s, r, b: actions.acknowledge(s, r.path_params["id"])), methods=["POST"]),
            Route("/api/findings/{id}/resolve", write(
                lambda s, r, b: actions.resolve(s, r.path_params["id"], str(b.get("note") or ""))),
                methods=["POST"]),
            Route("/api/memories/{id:int}/forget", write(
                lambda s, r, b: actions.forget(s, r.path_params["id"])), methods=["POST"]),
            Route("/api/memories/{id:int}/edit", write(
                lambda s, r, b: actions.edit_memory(s, r.path_params["id"], b)), methods=["POST"]),
            Route("/api/memories/{id:int}/pin", write(
                lambda s, r, b: actions.pin_memory(s, r.path_params["id"], b)), methods=["POST"]),
            Route("/api/improvements/{action}", write(
                lambda s, r, b: actions.improvements(
                    s, str(b.get("project", "")), r.path_params["action"], b)),
                methods=["POST"]),
        ]  # fmt: skip
    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, token=token, hosts=hosts)


async def _stream(
    feed: Feed, backlog: list[tuple[int, dict[str, Any]]], reset: bool
) -> AsyncIterator[str]:
    yield "retry: 500\n\n"
    after = feed.last
    if reset:
        yield f"id: {feed.event_id(after)}\nevent: reset\ndata: {{}}\n\n"
    elif backlog:
        after = backlog[0][0] - 1
    while True:
        items = backlog or await feed.wait(after, KEEPALIVE)
        backlog = []
        if not items:
            yield ": keepalive\n\n"
            continue
        for number, item in items:
            yield f"id: {feed.event_id(number)}\ndata: {json.dumps(item, ensure_ascii=False)}\n\n"
            after = number


def _sessions(store: Store, request: Request) -> dict[str, Any]:
    q = request.query_params
    return reads.sessions(store, project=q.get("project") or None, host=checked_host(q.get("host")),
                          limit=min(int(q.get("limit", reads.SESSION_PAGE)), 1000),
                          offset=max(int(q.get("offset", 0)), 0))  # fmt: skip


def _timeline(store: Store, request: Request) -> dict[str, Any]:
    q = request.query_params
    return reads.timeline(store, q.get("project", ""), q.get("session", ""))


def _memories(store: Store, request: Request) -> dict[str, Any]:
    q = request.query_params
    return reads.memories(store, q.get("q", ""), q.get("project") or None)


def _overview(store: Store, request: Request) -> dict[str, Any]:
    return reads.overview(store, request.query_params.get("project") or None)


def _improvements(store: Store, request: Request) -> dict[str, Any]:
    return reads.improvements(store, request.query_params.get("project", ""))


def _findings(store: Store, request: Request) -> dict[str, Any]:
    q = request.query_params

    def many(name: str) -> tuple[str, ...]:
        return tuple(v for v in q.getlist(name) if v)

    return reads.findings(
        store, project=q.get("project") or None,
        statuses=many("status") or ("open", "acknowledged"),
        observers=many("observer"), severities=many("severity"),
        session_id=q.get("session_id") or None, host=checked_host(q.get("host")),
    )  # fmt: skip


async def _in_thread(handler: Any, store: Callable[[], Store], request: Request) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(lambda: handler(store(), request))


def _project(value: str | None) -> str | None:
    if value and not reads.plain_name(value):
        raise ValueError(f"project: a project key, not {value!r}")
    return value or None


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"status": "error", "error": message}, status_code=status)
