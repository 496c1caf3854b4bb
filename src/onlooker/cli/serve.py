"""`onlooker serve`: the live local viewer of the data home (specs/serve.md)."""

from __future__ import annotations

import click

from ..errors import AlreadyRunning
from ..store import data_home
from .store_options import fail


@click.command(name="serve")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1; 0 takes a free one.")  # fmt: skip
@click.option("--no-open", is_flag=True, help="Do not open the web browser.")
@click.option("--read-only", is_flag=True, help="Serve no write: nothing can be changed.")
def command(port: int, no_open: bool, read_only: bool) -> None:
    """Watch sessions as they run, and act on what onlooker found, in the web browser."""
    try:
        from ..serve import serve
    except ImportError as exc:
        fail(f"onlooker serve needs starlette and uvicorn: pip install 'onlooker[cli]' ({exc})")
    try:
        serve(data_home(), port=port, open_browser=not no_open, read_only=read_only,
              say=lambda line: click.echo(line))  # fmt: skip
    except KeyboardInterrupt:
        pass
    except AlreadyRunning as exc:
        fail(str(exc))
    except OSError as exc:
        fail(str(exc))
