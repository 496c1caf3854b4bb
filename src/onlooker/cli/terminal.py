"""How the command line writes to what it is given (specs/install.md, conventions): a pipe closed
early (`onlooker replay … | head -1`) ends the command quietly with exit 0; a stream that cannot
encode a character gets an ASCII stand-in (a bar `#####-----`, not `?????`); output that is not a
terminal is never wrapped (rich draws no colour there by itself).
"""

from __future__ import annotations

import codecs
import os
import sys
from typing import Any

ERRORS = "onlooker-ascii"
#: ASCII stand-ins for the characters onlooker's views draw; anything else becomes `?`.
STAND_INS = {
    "█": "#", "░": "-", "▓": "#", "━": "=", "─": "-", "│": "|", "✓": "+", "✗": "x", "×": "x",
    "…": "...", "—": "-", "–": "-", "→": "->", "←": "<-", "•": "*", "·": "-", "≥": ">=",
    "≤": "<=", "‘": "'", "’": "'", "“": '"', "”": '"', "🔴": "!", "🟡": "~", "🟢": "+",
}  # fmt: skip
UNWRAPPED_COLUMNS = "10000"


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(STAND_INS.get(ch, "?") for ch in text), error.end


def prepare_output() -> None:
    """Set the process's stdout and stderr up as the conventions say (before anything prints)."""
    codecs.register_error(ERRORS, _stand_in)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
        if reconfigure is not None and encoding not in ("utf8", "utf_8"):
            reconfigure(errors=ERRORS)
    if not _is_terminal(sys.stdout) and "COLUMNS" not in os.environ:
        os.environ["COLUMNS"] = UNWRAPPED_COLUMNS  # rich and click read it: no wrapping


def run_quietly_on_closed_pipe(main: Any) -> None:
    """Run `main()`; a reader that went away (EPIPE) ends the command with exit 0, silently."""
    was_devnull = _stdout_is_devnull()
    try:
        main()
    except BrokenPipeError:
        _quiet_exit()
    except SystemExit as done:
        # click turns EPIPE into exit 1 after wrapping the streams to swallow the final flush;
        # rich into exit 1 after pointing stdout at /dev/null
        pacified = type(sys.stdout).__name__.endswith("PacifyFlushWrapper")
        if done.code == 1 and (pacified or (_stdout_is_devnull() and not was_devnull)):
            _quiet_exit()
        raise


def _quiet_exit() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise SystemExit(0)


def _stdout_is_devnull() -> bool:
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.stat(os.devnull))
    except (OSError, ValueError, AttributeError):
        return False


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
