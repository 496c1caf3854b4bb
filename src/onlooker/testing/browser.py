"""A real headless Chromium driven over the DevTools protocol, to check pages onlooker writes (the
report) as a person's browser shows them: console errors, network requests, script results,
keyboard input and screenshots.

It runs the system's Chromium (`chromium`, Debian's package; or `$ONLOOKER_CHROMIUM`) and
downloads nothing. The protocol runs over one WebSocket (`websockets`, a dev dependency).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ChromiumMissing, OnlookerError

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = (
    "install Debian's chromium (`make chromium`, or `apt-get install -y chromium` as root), "
    "or set $ONLOOKER_CHROMIUM to a Chromium or Chrome executable"
)


def find_chromium() -> str:
    """The Chromium to run: `$ONLOOKER_CHROMIUM`, else the first of CANDIDATES on PATH."""
    named = os.environ.get("ONLOOKER_CHROMIUM")
    if named:
        return named
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise ChromiumMissing(f"no Chromium found: {INSTALL_HINT}")


@dataclass(slots=True)
class PageLoad:
    """What happened while a page loaded and since: console errors, requests, load time."""

    url: str
    errors: list[str] = field(default_factory=list)
    """Console errors, uncaught exceptions and browser log errors (CSP violations among them)."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for, the page itself included."""
    load_ms: float = 0.0
    """Navigation start to the load event, as the page measured it."""


class HeadlessChromium:
    """`with HeadlessChromium() as browser: load = browser.open(url)`; one page at a time."""

    def __init__(self, executable: str | None = None, *, width: int = 1200, height: int = 900):
        self.executable = executable or find_chromium()
        self.width, self.height = width, height
        self._profile = tempfile.TemporaryDirectory(prefix="onlooker-chromium-")
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: Any = None
        self._next_id = 0
        self._load: PageLoad | None = None

    def __enter__(self) -> HeadlessChromium:
        args = [
            self.executable, "--headless=new", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-extensions", "--remote-debugging-port=0",
            f"--user-data-dir={self._profile.name}", f"--window-size={self.width},{self.height}",
            "about:blank",
        ]  # fmt: skip
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run its sandbox as root
        self._process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )  # its own process group: its helpers are ended with it
        try:
            self._connect(self._port())
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._socket is not None:
            self._socket.close()
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            with contextlib.suppress(OSError):  # none left
                os.killpg(self._process.pid, signal.SIGKILL)  # helpers outliving the browser
        self._remove_profile()

    def _remove_profile(self) -> None:
        """Remove the profile folder, again while a helper that was ending still wrote to it."""
        for _ in range(50):
            try:
                self._profile.cleanup()
                return
            except OSError:
                time.sleep(0.1)
        shutil.rmtree(self._profile.name, ignore_errors=True)

    def _port(self, timeout: float = 60.0) -> int:
        marker = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise ChromiumMissing(f"{self.executable} exited ({self._process.returncode})")
            if marker.exists() and marker.read_text().strip():
                return int(marker.read_text().split()[0])
            time.sleep(0.05)
        raise ChromiumMissing(f"{self.executable} did not open its DevTools port in {timeout} s")

    def _connect(self, port: int) -> None:
        from websockets.sync.client import connect

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            targets = json.load(answer)
        page = next(t for t in targets if t.get("type") == "page")
        self._socket = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    # -- the protocol ----------------------------------------------------------------------------

    def send(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        """Call a DevTools method and return its result; events met meanwhile are recorded."""
        self._next_id += 1
        ask = self._next_id
        self._socket.send(json.dumps({"id": ask, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._socket.recv(timeout=max(deadline - time.monotonic(), 0)))
            if message.get("id") == ask:
                if "error" in message:
                    raise OnlookerError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._event(message)

    def _wait_for(self, event: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._socket.recv(timeout=max(deadline - time.monotonic(), 0)))
            self._event(message)
            if message.get("method") == event:
                return

    def _event(self, message: dict[str, Any]) -> None:
        load, method, params = self._load, message.get("method"), message.get("params", {})
        if load is None:
            return
        if method == "Network.requestWillBeSent":
            load.requests.append(params["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            load.errors.append(details.get("exception", {}).get("description") or details["text"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            load.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in
                                        params["args"]))  # fmt: skip
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            load.errors.append(params["entry"]["text"])

    # -- what a test does ------------------------------------------------------------------------

    def open(self, url: str, settle: float = 0.2) -> PageLoad:
        """Navigate to `url`, wait for its load event (and `settle` seconds for late errors)."""
        self._load = PageLoad(url)
        self.send("Page.navigate", url=url)
        self._wait_for("Page.loadEventFired")
        end = time.monotonic() + settle
        while time.monotonic() < end:
            try:
                self._event(json.loads(self._socket.recv(timeout=end - time.monotonic())))
            except TimeoutError:
                break
        self._load.load_ms = float(self.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0];"
            " return n.loadEventEnd - n.startTime; })()"
        ))  # fmt: skip
        return self._load

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        answer = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in answer:
            raise OnlookerError(f"{expression[:80]}: {answer['exceptionDetails'].get('text')}")
        return answer["result"].get("value")

    def press(self, key: str, code: str = "", key_code: int = 0, *, shift: bool = False) -> None:
        """Press and release one key in the focused element (`Tab`, `Enter`, ` `, `Escape`),
        with Shift held when `shift` (Shift-Tab)."""
        text = key if len(key) == 1 else ("\r" if key == "Enter" else "")
        common: dict[str, Any] = {
            "key": key,
            "code": code or key,
            "windowsVirtualKeyCode": key_code,
            "modifiers": 8 if shift else 0,
        }
        self.send("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
        self.send("Input.dispatchKeyEvent", type="keyUp", **common)

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      clickCount=1)  # fmt: skip

    def screenshot(self, *, full_page: bool = False) -> bytes:
        """A PNG of the viewport (or the whole page)."""
        answer = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=full_page)
        return base64.b64decode(answer["data"])

    def emulate_dark(self, dark: bool = True) -> None:
        """Make the page see `prefers-color-scheme: dark` (or light)."""
        scheme = "dark" if dark else "light"
        self.send("Emulation.setEmulatedMedia",
                  features=[{"name": "prefers-color-scheme", "value": scheme}])  # fmt: skip
