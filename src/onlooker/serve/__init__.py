"""`onlooker serve`: a live local web viewer of a data home — sessions as they run, what each
observer delivered, reviewer runs and their cost — and a place to act on findings, memories and
improvements through the store's own operations. See specs/serve.md.

`serve` runs it; `create_app` is the ASGI app (Starlette) behind it.
"""

from .app import create_app
from .instance import running_viewer
from .server import serve

__all__ = ["create_app", "running_viewer", "serve"]
