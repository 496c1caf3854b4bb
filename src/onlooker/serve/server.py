"""`onlooker serve`: bind 127.0.0.1, hold the data home's viewer lock, say where it listens, open
the browser, and serve until stopped (specs/serve.md)."""

from __future__ import annotations

import secrets
import signal
import socket
import webbrowser
from collections.abc import Callable
from pathlib import Path

from .app import create_app
from .guard import allowed_hosts
from .instance import announce, the_only_viewer, withdraw

HOST = "127.0.0.1"


def serve(
    home: Path,
    *,
    port: int = 0,
    open_browser: bool = True,
    read_only: bool = False,
    say: Callable[[str], None] = print,
) -> None:
    """Run the viewer of `home` until interrupted; a second one for the same data home raises
    AlreadyRunning naming the first one's address. Port 0 takes a free port."""
    import uvicorn

    with the_only_viewer(home):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((HOST, port))
            listener.listen(128)  # so a page opened before uvicorn's first accept waits
        except OSError as exc:
            listener.close()
            raise OSError(
                f"--port {port}: cannot listen on {HOST}:{port} ({exc.strerror})"
            ) from None
        bound = int(listener.getsockname()[1])
        hosts = allowed_hosts(bound)
        app = create_app(
            home, token=secrets.token_urlsafe(32), boot=secrets.token_hex(4), read_only=read_only,
            hosts=lambda: hosts,
        )  # fmt: skip
        url = f"http://{HOST}:{bound}/"
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1,
            access_log=False,
        )  # fmt: skip
        announce(home, url)
        # uvicorn re-raises the signal that stopped it once it is done: let SIGTERM end this
        # process as an exception does, so the address file and the lock are let go
        previous = signal.signal(signal.SIGTERM, _stopped)
        try:
            say(f"onlooker serve: {url}{' (read-only)' if read_only else ''} for {home}")
            if open_browser:
                webbrowser.open(url)
            uvicorn.Server(config).run(sockets=[listener])
        finally:
            withdraw(home)
            listener.close()
            signal.signal(signal.SIGTERM, previous)


def _stopped(signum: int, frame: object) -> None:
    raise SystemExit(0)
