"""The stable command every installed hook and MCP server names: `<data home>/bin/onlooker`.

`onlooker install` (any host) writes it: a small shell script naming the Python and hook client of
the onlooker that ran the install. Hooks name this file, never a virtualenv, so an upgrade or a
reinstall (`pipx upgrade`, `uv tool install --force`) needs nothing more than the next `onlooker
install`, or nothing at all while an `onlooker` is on PATH: when what the launcher names is gone,
it hands over to the `onlooker` on PATH; when there is none, a hook says so once (a `systemMessage`,
specs/install.md) and every hook still answers with exit 0, so the agent goes on.

`FINDER_TEXT` is the machine-free script a plugin folder carries (`scripts/onlooker`): it finds
this launcher, or an `onlooker` on PATH, at run time, so a plugin someone commits names no path of
this machine.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

__all__ = [
    "FINDER_MARK",
    "FINDER_TEXT",
    "LAUNCHER_MARK",
    "entry_file",
    "launcher_path",
    "launcher_text",
    "missing_notice",
    "write_launcher",
]

LAUNCHER_MARK = "# onlooker launcher"
FINDER_MARK = "# onlooker finder"
INSTALL_HINT = "pipx install onlooker (or uv tool install onlooker), then: onlooker install"


def entry_file() -> Path:
    """The file every hook runs: the stdlib-only client of the hook service."""
    return Path(__file__).resolve().parents[1] / "daemon" / "entry.py"


def launcher_path(home: Path) -> Path:
    """Where the launcher lives: the data home's `bin/`."""
    return home / "bin" / "onlooker"


def missing_notice(what: str) -> str:
    """What a hook says, once, when onlooker cannot be found."""
    return f"onlooker's hooks cannot run: {what}. Install it again: {INSTALL_HINT}"


_FALLBACK = r"""
# What it names is gone: an `onlooker` on PATH (not this file) takes over.
self=$(cd "$(dirname "$0")" 2>/dev/null && pwd)/$(basename "$0")
found=$(command -v onlooker 2>/dev/null)
if [ -n "$found" ] && [ "$found" != "$self" ] && [ "$found" != "$0" ]; then
  exec "$found" "$@"
fi
if [ "$1" = hook ]; then
  cat >/dev/null
  notice="$(dirname "$0")/../run/onlooker-missing.notice"
  if [ ! -e "$notice" ]; then
    mkdir -p "$(dirname "$notice")" 2>/dev/null; : >"$notice" 2>/dev/null
    printf '{"systemMessage": "%s"}\n' "$MESSAGE"
  fi
  exit 0
fi
echo "$MESSAGE" >&2
exit 1
"""


def launcher_text(python: str | None = None, entry: Path | None = None) -> str:
    """The launcher: `hook` runs the hook client, `mcp` the MCP server's front without `site`
    (mcp/entry.py, beside the client's folder), anything else `onlooker ...`. The client is
    exec'd (one process less on every hook): it exits 0 whatever happens, and the commands that
    run the launcher make sure of it (`|| true` in settings, `; exit 0` in the plugin's finder)."""
    python = python or sys.executable
    entry = entry or entry_file()
    message = missing_notice(f"{python} is gone (onlooker was upgraded, moved or removed)")
    return (
        f"#!/bin/sh\n{LAUNCHER_MARK}, written by `onlooker install`; hooks name this file.\n"
        f"python={shlex.quote(python)}\nentry={shlex.quote(str(entry))}\n"
        f"MESSAGE={shlex.quote(message)}\n"
        'if [ -x "$python" ] && [ -f "$entry" ]; then\n'
        '  if [ "$1" = hook ]; then exec "$python" -I -S "$entry"; fi\n'
        '  server="${entry%/daemon/entry.py}/mcp/entry.py"\n'
        '  if [ "$1" = mcp ] && [ -f "$server" ]; then exec "$python" -I -S "$server" "$@"; fi\n'
        '  exec "$python" -I -m onlooker "$@"\n'
        "fi\n" + _FALLBACK.lstrip("\n")
    )


def write_launcher(home: Path, *, dry_run: bool = False) -> Path:
    """Write (or refresh) the launcher in the data home; its path."""
    path = launcher_path(home)
    text = launcher_text()
    if dry_run:
        return path
    try:
        current = path.read_text(encoding="utf-8")
    except OSError:
        current = None
    if current != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.chmod(0o755)
        temporary.replace(path)
    return path


_FINDER = r"""#!/bin/sh
MARK: finds the installed onlooker at run time (it names no path of a machine):
# $ONLOOKER_BIN, else the launcher `onlooker install` writes into the data home, else the
# `onlooker` on PATH. None: a hook says once how to install it, and never blocks.
# hook | mcp | observer ARGS | observer-typed NAME [OPTIONS] (typed words on stdin)
case "$ONLOOKER_HOME" in
  "~"*) home="$HOME${ONLOOKER_HOME#"~"}" ;;
  ?*) home="$ONLOOKER_HOME" ;;
  *) case "$XDG_DATA_HOME" in
       /*) home="$XDG_DATA_HOME/onlooker" ;;
       *) if [ "$(uname -s)" = Darwin ]; then home="$HOME/Library/Application Support/onlooker"
          else home="$HOME/.local/share/onlooker"; fi ;;
     esac ;;
esac
if [ -n "$ONLOOKER_BIN" ] && [ -x "$ONLOOKER_BIN" ]; then run=$ONLOOKER_BIN
elif [ -x "$home/bin/onlooker" ]; then run="$home/bin/onlooker"
else run=$(command -v onlooker 2>/dev/null); fi
if [ -z "$run" ]; then
  MESSAGE=NOTICE
  if [ "$1" = hook ]; then
    cat >/dev/null
    notice="${CLAUDE_PLUGIN_DATA:-$home/run}/onlooker-missing.notice"
    if [ ! -e "$notice" ]; then
      mkdir -p "$(dirname "$notice")" 2>/dev/null; : >"$notice" 2>/dev/null
      printf '{"systemMessage": "%s"}\n' "$MESSAGE"
    fi
    exit 0
  fi
  echo "$MESSAGE"; exit 0
fi
case "$1" in
  hook) "$run" hook; exit 0 ;;
  observer-typed)
    # Split on blanks, never expanded or globbed; Claude Code's escaped "\\!" back to "!".
    # Words after NAME are the command's own options (--yes), before the typed ones.
    name=$2; shift 2; options=$*; set -f; set -- $options -- $(sed 's/\\!/!/g')
    "$run" observer "$name" "$@" 2>&1; exit 0 ;;
  *) exec "$run" "$@" ;;
esac
"""
FINDER_TEXT = _FINDER.replace("MARK", FINDER_MARK, 1).replace(
    "MESSAGE=NOTICE",
    "MESSAGE=" + shlex.quote(missing_notice("no onlooker is installed on this machine")),
)
"""The plugin's `scripts/onlooker`: the same arguments as the launcher."""
