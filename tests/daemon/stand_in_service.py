"""A stand-in for the hook service that fails each hook one way: `silent` reads the input and
never answers; `reset` dies on each connection mid-answer (closes it with the input unread).

Run as `python stand_in_service.py HOME MODE`; it holds the service's lock, so a service the hook
client starts exits at once, and prints `ready` when it listens.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

from onlooker.daemon._lock import single_instance
from onlooker.daemon.client import RUN_DIR, SOCKET_NAME, read_frame


def main(home: Path, mode: str) -> None:
    with single_instance(home, "hookd"):
        os.chdir(home / RUN_DIR)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(SOCKET_NAME)
        listener.listen(16)
        print("ready", flush=True)
        held: list[socket.socket] = []
        while True:
            conn, _ = listener.accept()
            if mode == "silent":
                threading.Thread(target=read_frame, args=(conn,), daemon=True).start()
                held.append(conn)  # open, read, never answered
            else:
                conn.recv(4)  # the frame's header; the input itself stays unread
                conn.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
