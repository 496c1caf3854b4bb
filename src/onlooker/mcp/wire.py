"""The MCP server's connection to its client over stdin and stdout (standard library only)."""

from __future__ import annotations

import _thread  # its lock is threading.Lock; `threading` is not imported before it is needed
import sys

if sys.platform == "win32":  # pragma: no cover
    import os as system
else:
    import posix as system  # what `os` offers here, without importing `os` (mcp/front.py)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


class Wire:
    """The connection to the client: stdin and stdout moved to descriptors of their own, while
    descriptors 0 and 1 point at the null device and at stderr, so a tool (or a process it
    starts) that reads stdin or prints cannot break the protocol."""

    def __init__(self, reader: BinaryIO, out: int) -> None:
        self.reader = reader
        self._out = out
        self._lock = _thread.allocate_lock()

    @classmethod
    def claim(cls) -> Wire:
        if sys.platform == "win32":  # pragma: no cover - the descriptors stay as they are
            return cls(sys.stdin.buffer, sys.stdout.fileno())
        wire_in, wire_out = system.dup(0), system.dup(1)
        null = system.open("/dev/null", system.O_RDONLY)
        system.dup2(null, 0)
        system.close(null)
        system.dup2(2, 1)
        return cls(open(wire_in, "rb"), wire_out)

    def readline(self) -> bytes:
        """The next line from the client; b"" once it has closed the connection."""
        line: bytes = self.reader.readline()
        return line

    def write(self, data: bytes) -> None:
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[system.write(self._out, view) :]
