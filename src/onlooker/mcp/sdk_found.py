"""Whether the `mcp` SDK is installed, and in which version, told without importing it, and,
when the server runs without `site` (`python -I -S .../mcp/entry.py`, what the launcher starts),
without `site` either (specs/mcp.md, "Start-up").

`site` (its `.pth` files) and `importlib.util` cost about a third of the front's start. Without
`site`, the SDK is looked for where `site` would put it first: the `site-packages` folder of the
interpreter's prefix, or of its virtual environment (a `pyvenv.cfg` beside `bin/` or in it), as
`site.venv` finds it. When it is not there, `site` is added (`add_site`) and `importlib` says.
"""

# Only built-in modules at import time: this module runs before anything heavy is imported.

from __future__ import annotations

import sys

_SITE_ADDED: list[bool] = []
"""Not empty once `add_site` has run."""
_DIRECTORY, _FILE, _KIND = 0o040000, 0o100000, 0o170000


def site_added() -> bool:
    """Whether the folders `site` adds are on sys.path (Python started with it, or `add_site`)."""
    return not sys.flags.no_site or bool(_SITE_ADDED)


def add_site() -> None:
    """Add what `site` adds at start-up (site-packages, `.pth` files, sitecustomize) to a
    Python started without it, once: before the SDK, click or anything installed is imported."""
    if site_added():
        return
    import site

    site.main()
    _SITE_ADDED.append(True)


def site_packages() -> list[str]:
    """The folders `site` would add first, found without it (POSIX); [] when that cannot be told
    cheaply (Windows, a relative executable)."""
    executable = sys.executable
    if sys.platform == "win32" or not executable.startswith("/"):
        return []
    bin_folder = executable.rpartition("/")[0]
    prefix = sys.prefix
    above = bin_folder.rpartition("/")[0]
    if _kind(bin_folder + "/pyvenv.cfg") == _FILE or _kind(above + "/pyvenv.cfg") == _FILE:
        prefix = above  # a virtual environment, as site.venv tells it
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    libraries = dict.fromkeys((sys.platlibdir, "lib"))
    return [f"{prefix}/{library}/{version}/site-packages" for library in libraries]


def sdk_folder() -> str | None:
    """The folder holding both packages of the SDK (`mcp` and `mcp_types`), found without
    `site` (see `site_packages`); None when not found that way."""
    for folder in site_packages():
        if _kind(folder + "/mcp/__init__.py") == _FILE and (
            _kind(folder + "/mcp_types") == _DIRECTORY or _kind(folder + "/mcp_types.py") == _FILE
        ):
            return folder
    return None


def sdk_installed() -> bool:
    """Whether the `mcp` SDK can be imported (found without importing it)."""
    if not site_added() and sdk_folder() is not None:
        return True
    add_site()
    from importlib.util import find_spec

    return find_spec("mcp") is not None and find_spec("mcp_types") is not None


def sdk_is(version: object) -> bool:
    """Whether the installed `mcp` is `version`, told by its `.dist-info` folder beside it (found
    without importing it); False when that cannot be told."""
    if not isinstance(version, str) or not version:
        return False
    marker = f"/mcp-{version}.dist-info"
    if not site_added():
        folder = sdk_folder()
        if folder is not None:
            return _kind(folder + marker) == _DIRECTORY
        add_site()
    from importlib.util import find_spec

    try:
        found = find_spec("mcp")
    except (ImportError, ValueError):
        return False
    places = list(found.submodule_search_locations or []) if found is not None else []
    import os

    return any(os.path.isdir(os.path.join(os.path.dirname(place), marker[1:])) for place in places)


def _kind(path: str) -> int:
    """The file type bits of `path` (0 when it cannot be read); `posix`, as `os` is not loaded."""
    import posix

    try:
        return posix.stat(path).st_mode & _KIND
    except OSError:
        return 0
