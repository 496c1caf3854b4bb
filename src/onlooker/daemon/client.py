"""The command every Claude Code hook runs: hand stdin to the hook service, print its answer.

Run as `python -I -S .../onlooker/hook/client.py`, it imports only built-in modules, so a hook
costs little more than starting Python. The service (`onlooker.daemon.hookd`) is started on demand.
It fails open: whatever goes wrong, it exits 0; the input is spooled for `onlooker doctor`.
"""

# No package imports, only built-in modules: this file runs on its own, by path, under -S. An
# answered hook imports nothing that Python has not loaded at start-up but `_socket`: `posix`
# stands in for `os` (importing `os` costs each hook 1-3 ms of CPU), which only the rare paths
# (starting the service, spooling) import.

import posix
import sys
import time

if False:  # for type checkers only; importing them at run time is not needed
    import _socket
    from typing import Any


def _env(name: str) -> str:
    """An environment variable, '' when unset: from `os.environ` when `os` is loaded (inside a
    process that may change it), else from `posix.environ` (bytes, as the process started)."""
    loaded = sys.modules.get("os")
    if loaded is not None:
        found: str = loaded.environ.get(name, "")
        return found
    value = posix.environ.get(name.encode())
    return value.decode("utf-8", "surrogateescape") if value else ""


HOME_VARIABLE = "ONLOOKER_HOME"
RUN_DIR = "run"
SOCKET_NAME = "hookd.sock"
SPOOL_DIR = "spool"
SERVICE_MODULE = "onlooker.daemon.hookd"
#: Seconds a hook waits for the service's answer before giving up (and spooling its input).
ANSWER_TIMEOUT = float(_env("ONLOOKER_HOOK_TIMEOUT") or "20")
#: Seconds a hook waits for a service it started to come up.
START_TIMEOUT = float(_env("ONLOOKER_HOOK_START_TIMEOUT") or "15")
HEADER = 4
MAX_FRAME = 64 * 1024 * 1024
MAX_INPUT = 8 * 1024 * 1024
REFUSED_DIR = "refused"
"""Spooled inputs that can never go through, kept apart and never replayed."""
"""Bytes of one hook input: a larger one is refused here, before it is sent (its head is kept)."""
SPOOL_HEAD = 64 * 1024
"""Bytes kept in the spool of an input refused for its size (it can never be replayed)."""
INPUT_ID = "onlooker_input_id"
"""The field the client adds to each hook input: an id of its own, the same when the input is
sent again after a reset or replayed from the spool, so the service records it once."""


def data_home() -> str:
    """`$ONLOOKER_HOME`, else the user data dir: what platformdirs gives onlooker.store.home,
    found here without it (`$XDG_DATA_HOME` counts on macOS too, when it is an absolute path)."""
    chosen = _env(HOME_VARIABLE)
    if chosen and not chosen.startswith("~"):
        return chosen
    user = _env("HOME")
    if sys.platform == "win32" or not user or (chosen not in ("", "~") and chosen[:2] != "~/"):
        import os  # the paths no hook on a usual POSIX setup takes

        user = os.path.expanduser("~")
        if chosen:
            return os.path.expanduser(chosen)
        if sys.platform == "win32":
            base = _env("LOCALAPPDATA") or os.path.join(user, "AppData", "Local")
            return os.path.join(base, "onlooker")
    if chosen:
        return user + chosen[1:]
    xdg = _env("XDG_DATA_HOME")
    if xdg.startswith("/"):
        base = xdg
    elif sys.platform == "darwin":
        base = user + "/Library/Application Support"
    else:
        base = user + "/.local/share"
    return base.rstrip("/") + "/onlooker"


def frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(HEADER, "big") + payload


def read_frame(sock: "_socket.socket") -> bytes:
    """One length-prefixed message from `sock`; ConnectionError if the peer closed early."""
    header = _read_exact(sock, HEADER)
    size = int.from_bytes(header, "big")
    if size > MAX_FRAME:
        raise ConnectionError(f"frame of {size} bytes is over the limit")
    return _read_exact(sock, size)


def _read_exact(sock: "_socket.socket", size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed before the whole message arrived")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_stdin() -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = posix.read(0, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def ask(run_dir: str, payload: bytes, timeout: float) -> bytes:
    """Send `payload` to the service listening in `run_dir`; its answer (bytes)."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        cwd = posix.getcwd()
        posix.chdir(run_dir)  # a relative address keeps long data-home paths within AF_UNIX limits
        try:
            sock.connect(SOCKET_NAME)
        finally:
            posix.chdir(cwd)
        sock.sendall(frame(payload))
        return read_frame(sock)
    finally:
        sock.close()


def start_service(home: str) -> None:
    """Start the service detached from this process (it outlives the hook); returns at once."""
    import os

    logs = os.path.join(home, "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    log = os.path.join(logs, "hookd.log")
    argv = [sys.executable, "-m", SERVICE_MODULE]
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    env = dict(os.environ)
    env[HOME_VARIABLE] = home
    os.posix_spawn(sys.executable, argv, env, file_actions=actions, setsid=True)


RESETS = 2
"""Connections a hook lets the service end without an answer before it spools its input: each
time the input goes again, with its id, so a service that journaled it before dying (or one
dying as the hook connected) records it once."""


def answer(payload: bytes, home: str, resets: int = 0) -> bytes:
    """The service's answer to `payload`, starting the service if it is not running. A session's
    start does not wait for a service it started: once the service listens, the input is sent
    and handed over (`hand_over`), and the hook answers nothing."""
    run_dir = home + "/" + RUN_DIR
    try:
        return ask(run_dir, payload, ANSWER_TIMEOUT)
    except (FileNotFoundError, ConnectionRefusedError):
        pass  # not running: start one and ask again
    except ConnectionError:
        resets += 1  # it died (or was stopping) with the input: start one and send it again
    import os

    os.makedirs(run_dir, mode=0o700, exist_ok=True)
    wait_for_handed_over(run_dir)
    start_service(home)
    marked = None if resets else unanswered(payload)
    started = time.monotonic()
    deadline = started + START_TIMEOUT
    while True:
        try:
            if marked is not None:
                return hand_over(run_dir, marked, home)
            return ask(run_dir, payload, ANSWER_TIMEOUT)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise
        except ConnectionError:
            resets += 1
            if resets > RESETS:
                raise
            payload = marked or payload  # (once sent, the same bytes go again)
            marked = None
        if time.monotonic() - started > 1.0:  # the one started may have met a dying one's lock
            start_service(home)  # (a second start exits at once while one runs)
            started = time.monotonic()
        time.sleep(0.01)


UNANSWERED = "onlooker_unanswered"
"""The field a handed-over input carries: its hook has returned, so what the service has to say
about it is held for the session's next hook (UserPromptSubmit, before the first request)."""
HAND_OVER_FLAG = "--answer-handed-over"
"""Runs this file as the process that waits for a handed-over input's answer (`hand_over`)."""
HANDED_OVER_SOCKET = 3
"""The handed-over connection's file descriptor in that process."""


def unanswered(payload: bytes) -> bytes | None:
    """A SessionStart input marked UNANSWERED, or None for any other input (or one too large to
    hand over through a pipe at once)."""
    if len(payload) > 32 * 1024 or b"SessionStart" not in payload:
        return None
    import json  # only when no service answered: starting one costs far more than this

    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("hook_event_name") != "SessionStart":
        return None
    return b'{"' + UNANSWERED.encode() + b'":true,' + payload.lstrip()[1:]


def hand_over(run_dir: str, payload: bytes, home: str) -> bytes:
    """Send `payload` to the service that is starting (it listens before it imports what answers
    hooks, about a second), then leave the wait for its answer to a detached process of this
    file (HAND_OVER_FLAG), which sends it again or spools it as any hook does: so the session
    starts at once, and the input, sent before this hook returns, comes before the session's
    next hook. Answers nothing; the service holds what it has to say for that next hook."""
    import _socket
    import os

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(ANSWER_TIMEOUT)
        cwd = posix.getcwd()
        posix.chdir(run_dir)
        try:
            sock.connect(SOCKET_NAME)
        finally:
            posix.chdir(cwd)
        sock.sendall(frame(payload))
        try:
            read_end, write_end = os.pipe()
            os.write(write_end, payload)  # well within a pipe's buffer (see `unanswered`)
            os.close(write_end)
            argv = [sys.executable, "-I", "-S", os.path.abspath(__file__), HAND_OVER_FLAG]
            actions = [
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_DUP2, sock.fileno(), HANDED_OVER_SOCKET),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ]
            env = dict(os.environ)
            env[HOME_VARIABLE] = home
            pid = os.posix_spawn(sys.executable, argv, env, file_actions=actions, setsid=True)
            os.close(read_end)
        except OSError:  # no process to leave it to: wait here, as for any hook
            read_frame(sock)
            return b""
        try:  # noqa: SIM105 - its mark, which a hook that finds no service waits on
            os.close(os.open(f"{run_dir}/{WAITING}{pid}", os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            pass
        return b""
    finally:
        sock.close()


def answer_handed_over(home: str) -> int:
    """The detached process of `hand_over`: wait for the answer on the connection it was given;
    when the service ends it without one, send the input again (it carries its id: recorded
    once), and spool it when that fails too. What the service answers is dropped: it holds it
    for the session's next hook."""
    import _socket

    payload = read_stdin()
    try:
        sock = _socket.socket(fileno=HANDED_OVER_SOCKET)
        try:
            sock.settimeout(ANSWER_TIMEOUT)
            read_frame(sock)
        finally:
            sock.close()
    except ConnectionError:
        try:
            answer(payload, home, resets=1)
        except Exception as exc:
            spool(home, payload, f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a timeout: the input waits in the spool, as any hook's
        spool(home, payload, f"{type(exc).__name__}: {exc}")
    finally:
        try:  # noqa: SIM105 - contextlib is one import too many on this path
            posix.unlink(f"{home}/{RUN_DIR}/{WAITING}{posix.getpid()}")
        except OSError:
            pass
    return 0


WAITING = "handed-over-"
"""`run/handed-over-<pid>`: a process of `hand_over` still waits for its session start's answer."""


def wait_for_handed_over(run_dir: str) -> None:
    """Wait (at most START_TIMEOUT) for the processes of `hand_over` still waiting: a hook that
    finds no service answering may follow a session start that a dying service took, which such
    a process sends again; the start then comes before the session's next hook, as it was sent."""
    import os

    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            names = [n for n in os.listdir(run_dir) if n.startswith(WAITING)]
        except OSError:
            return
        waiting = False
        for name in names:
            pid = name[len(WAITING) :]
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:  # it ended without its mark (or before it was made)
                try:  # noqa: SIM105
                    os.unlink(f"{run_dir}/{name}")
                except OSError:
                    pass
                continue
            except OSError:
                pass  # alive, another user's
            waiting = True
        if not waiting:
            return
        time.sleep(0.01)


def spool(home: str, payload: bytes, reason: str, head: int = 0) -> None:
    """Keep an input the service could not take: in the spool, which the service replays; or,
    cut to its first `head` bytes, apart in `spool/refused/`, since it can never go through."""
    import os

    try:
        folder = (
            os.path.join(home, SPOOL_DIR, REFUSED_DIR) if head else os.path.join(home, SPOOL_DIR)
        )
        os.makedirs(folder, mode=0o700, exist_ok=True)
        name = f"{time.time_ns()}-{os.getpid()}-{os.urandom(3).hex()}.hook"
        note = reason.replace("\n", " ")[:500].encode("utf-8", "replace")
        kept = _without_secrets(payload, head)
        fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"# " + note + b"\n" + kept)
        finally:
            os.close(fd)
    except OSError:
        pass  # nowhere to keep it: still never block the agent


def _without_secrets(payload: bytes, head: int = 0) -> bytes:
    """The payload (or its first `head` bytes) redacted as decoded values
    (`onlooker.text.spooled`); the redaction modules are loaded here, so only a spooled input
    pays for them."""
    try:
        kept: bytes = _redaction().redact_payload(payload, head)
        return kept
    except Exception:  # a secret must not be kept: keep the reason alone
        return b"[input dropped: it could not be redacted]\n"


TEXT_PACKAGE = "_onlooker_spool_text"
"""The name `onlooker/text/` is loaded under when this file runs by path, outside its package."""


def _redaction() -> "Any":
    """The module `onlooker.text.spooled`. Run by path (the installed hook), this file has no
    package,
    so `onlooker/text/` beside it is loaded on its own, by file path, under TEXT_PACKAGE: its
    modules import only each other and the standard library, and onlooker itself is not imported.
    """
    if __package__:
        from ..text import spooled

        return spooled
    import os

    loaded = sys.modules.get(f"{TEXT_PACKAGE}.spooled")
    if loaded is None:
        import importlib
        import importlib.util

        folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "text")
        spec = importlib.util.spec_from_file_location(
            TEXT_PACKAGE, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the redaction module from {folder}")
        package = importlib.util.module_from_spec(spec)
        sys.modules[TEXT_PACKAGE] = package
        spec.loader.exec_module(package)
        loaded = importlib.import_module(f"{TEXT_PACKAGE}.spooled")
    return loaded


def with_input_id(payload: bytes, input_id: str) -> bytes:
    """`payload` with INPUT_ID set first in its JSON object (unchanged when it is not an object:
    the service refuses it anyway). No JSON is parsed: the field is written in front."""
    body = payload.lstrip()
    if body[:1] != b"{":
        return payload
    empty = body[1:].lstrip()[:1] == b"}"
    field = b'{"' + INPUT_ID.encode() + b'":"' + input_id.encode() + (b'"' if empty else b'",')
    return field + body[1:]


NESTED_VARIABLE = "ONLOOKER_NESTED"
"""Set in a model call onlooker makes through the user's Claude Code (onlooker.llm.claude_code):
a hook there does nothing, so onlooker never observes its own model calls (no recursion)."""


def main() -> int:
    if _env(NESTED_VARIABLE):
        return 0
    home = data_home()
    if sys.argv[1:] == [HAND_OVER_FLAG]:
        return answer_handed_over(home)
    try:
        payload = read_stdin()
    except OSError:
        return 0
    if len(payload) > MAX_INPUT:
        reason = f"hook input is {len(payload):,} bytes; at most {MAX_INPUT:,} are taken"
        spool(home, payload, f"{reason} (its first {SPOOL_HEAD:,} bytes are kept)", SPOOL_HEAD)
        return 0
    payload = with_input_id(payload, posix.urandom(12).hex())
    try:
        reply = answer(payload, home)
    except Exception as exc:  # fail open: the agent goes on, the input waits in the spool
        spool(home, payload, f"{type(exc).__name__}: {exc}")
        return 0
    if reply:
        try:  # noqa: SIM105 - contextlib is one import too many on this path
            posix.write(1, reply)
        except OSError:
            pass
    return 0


def leave(code: int) -> None:
    """End the hook process with `code` at once, skipping the interpreter's teardown (freeing
    every module and object: about 1.4 ms of CPU, a sixth of a bare start). Nothing is left to
    finish by then: the answer went out with `posix.write`, the connection and any spool file
    are closed, and the service a hook starts is a process of its own; what Python itself may
    still buffer is flushed first."""
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib is one import too many on this path
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    posix._exit(code)


if __name__ == "__main__":
    sys.exit(main())
