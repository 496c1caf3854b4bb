"""The viewer in a real headless Chromium, driven by the keyboard alone: every control is reached
by Tab (and back by Shift-Tab) with a visible focus; a memory is edited in a dialog opened with
Enter, closed with Escape, saved with Enter, and pinned with Space; the CLI then shows the new
text, and so does the MCP server's get_observations, and the next session's digest puts the
pinned memory first."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_viewer_browser import open_page, wait_for
from viewer import ONLOOKER, Agent, context, hook, running_viewer

from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for
from onlooker.testing.browser import HeadlessChromium

TAB, ENTER, SPACE, ESCAPE = ("Tab", "Tab", 9), ("Enter", "Enter", 13), (" ", "Space", 32), (
    "Escape", "Escape", 27)  # fmt: skip
FOCUSED = "document.activeElement"
CONTROLS = (
    "[...document.querySelectorAll('button, input, select, textarea, a[href]')]"
    ".filter(e => !e.disabled && !e.closest('dialog') && !e.closest('[hidden]')"
    " && (e.offsetParent !== null || e.classList.contains('skip')))"
)
"""Every control of the page outside the closed dialog."""


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    with HeadlessChromium() as chromium:
        yield chromium


def press(browser: HeadlessChromium, key: tuple[str, str, int], *, shift: bool = False) -> None:
    browser.press(key[0], key[1], key[2], shift=shift)


def tab_to(browser: HeadlessChromium, selector: str, limit: int = 200) -> int:
    """Press Tab until the element `selector` has the focus; the presses it took."""
    for presses in range(1, limit + 1):
        press(browser, TAB)
        if browser.evaluate(f"{FOCUSED}.matches({json.dumps(selector)})"):
            return presses
    raise AssertionError(f"Tab never reached {selector}")


def focus_is_visible(browser: HeadlessChromium) -> bool:
    return bool(browser.evaluate(
        f"(() => {{ const s = getComputedStyle({FOCUSED}); return {FOCUSED}.matches(':focus-visible')"
        " && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; })()"
    ))  # fmt: skip


def mcp_memory(home: Path, project: Path, memory_id: int) -> dict[str, Any]:
    """The memory as the real `onlooker mcp` server's get_observations gives it (real client)."""
    parameters = StdioServerParameters(
        command=ONLOOKER, args=["mcp"], cwd=str(project),
        env={**os.environ, "ONLOOKER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "claude")},
    )  # fmt: skip

    async def ask() -> dict[str, Any]:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as mcp:
            await mcp.initialize()
            result = await mcp.call_tool("get_observations", {"ids": [memory_id]})
            assert not result.is_error and isinstance(result.structured_content, dict)
            [found] = result.structured_content["observations"]
            return dict(found)

    return anyio.run(ask)


def cli(*args: str) -> dict[str, object]:
    done = subprocess.run([ONLOOKER, *args, "--json"], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_memory_is_edited_and_pinned_by_keyboard_alone(
    browser: HeadlessChromium, onlooker_home: Path, project: Path
) -> None:
    key = project_for(project)
    agent = Agent(project, "sess-keys")
    agent.start("Fix the login.")
    for _ in range(4):
        agent.failing_test_run()  # a Stall: a finding to act on
    with Store(onlooker_home) as store:
        first, last = Memories(store).remember(
            [Extracted("Login needs a token", "Refresh first.", store.clock.now()),
             Extracted("Docs build with mkdocs", "Run mkdocs build.", store.clock.now())],
            project=key, session_id="old",
        )  # fmt: skip
    edit = f"#memories li[data-memory='{first.id}'] button[data-action=edit]"
    pin = f"#memories li[data-memory='{first.id}'] button[data-action=pin]"
    with running_viewer() as viewer:
        open_page(browser, viewer)
        wait_for(browser, f"document.querySelector({json.dumps(edit)})")
        wait_for(browser, "document.querySelector('#findings button[data-action=resolve]')")
        # A session opens with Enter on its button (its project's improvements with it).
        tab_to(browser, "#sessions li[data-session$='/sess-keys'] button")
        press(browser, ENTER)
        wait_for(browser, "document.querySelector('#timeline article[data-kind=assessment]')")
        wait_for(browser, "document.querySelectorAll('#improvements button').length === 2")
        browser.evaluate(f"{FOCUSED} && {FOCUSED}.blur()")

        # Tab goes round every control, each with a visible focus; Shift-Tab comes back.
        controls = browser.evaluate(f"{CONTROLS}.length")
        assert controls >= 20
        browser.evaluate("window.seen = new Set()")
        invisible = []
        for _ in range(controls + 5):
            press(browser, TAB)
            browser.evaluate(f"window.seen.add({FOCUSED})")
            on_page = browser.evaluate(f"{FOCUSED} !== document.body")  # past the last: none
            if on_page and not focus_is_visible(browser):
                invisible.append(browser.evaluate(f"{FOCUSED}.outerHTML.slice(0, 80)"))
        missed = browser.evaluate(
            f"{CONTROLS}.filter(e => !window.seen.has(e)).map(e => e.outerHTML.slice(0, 80))"
        )
        assert missed == [] and invisible == []
        tab_to(browser, pin)
        press(browser, TAB, shift=True)
        assert browser.evaluate(f"{FOCUSED}.matches({json.dumps(edit)})")

        # The observer filter takes typed text.
        tab_to(browser, "#f-observer")
        browser.send("Input.insertText", text="NoSuchObserver")
        wait_for(browser, "!document.querySelector('#timeline article[data-kind=assessment]')")
        wait_for(browser, "document.querySelector('#timeline article[data-kind=tool_call]')")

        # Enter opens the edit dialog, Escape closes it with nothing changed, focus back.
        tab_to(browser, edit)
        press(browser, ENTER)
        wait_for(browser, "document.getElementById('memory-dialog').open")
        assert browser.evaluate(f"{FOCUSED}.id") == "memory-title"
        press(browser, ESCAPE)
        wait_for(browser, "!document.getElementById('memory-dialog').open")
        assert browser.evaluate(f"{FOCUSED}.matches({json.dumps(edit)})")

        # Space opens it again; typed text is saved with Enter on Save.
        press(browser, SPACE)
        wait_for(browser, "document.getElementById('memory-dialog').open")
        browser.evaluate("document.getElementById('memory-title').select()")
        browser.send("Input.insertText", text="Login needs a fresh token")
        press(browser, TAB)
        assert browser.evaluate(f"{FOCUSED}.id") == "memory-content"
        browser.evaluate("document.getElementById('memory-content').select()")
        browser.send("Input.insertText", text="Call /refresh before /login.")
        press(browser, TAB)
        assert browser.evaluate(f"{FOCUSED}.id") == "memory-save" and focus_is_visible(browser)
        press(browser, ENTER)
        wait_for(browser, "!document.getElementById('memory-dialog').open"
                          " || document.getElementById('memory-error').textContent",
                 timeout=30)  # a write on 2 busy shared cores  # fmt: skip
        assert browser.evaluate("document.getElementById('memory-error').textContent") == ""
        wait_for(browser, "!document.getElementById('memory-dialog').open")
        wait_for(browser, f"document.querySelector(\"#memories li[data-memory='{first.id}']\")"
                          ".textContent.includes('Call /refresh before /login.')")  # fmt: skip
        assert browser.evaluate(f"{FOCUSED}.matches({json.dumps(edit)})")

        # Space on Pin pins it: first in the list, and in the next session's digest.
        tab_to(browser, pin)
        press(browser, SPACE)
        wait_for(browser, "document.querySelector('#memories li').dataset.pinned === 'true'")
        assert browser.evaluate("document.querySelector('#memories li').dataset.memory") == str(
            first.id
        )
        # A list drawn again while a key's control has the focus gives it back to that control.
        wait_for(browser, f"{FOCUSED}.matches({json.dumps(pin)})")
        browser.evaluate(f"document.querySelector({json.dumps(pin)}).closest('li').drawn = 1")
        browser.evaluate("document.getElementById('memory-search').requestSubmit()")
        wait_for(browser, f"!document.querySelector({json.dumps(pin)}).closest('li').drawn")
        assert browser.evaluate(f"{FOCUSED}.matches({json.dumps(pin)})")

    shown = cli("memory", "show", str(first.id))
    [memory] = shown["memories"]  # type: ignore[misc]
    assert (memory["title"], memory["content"]) == (
        "Login needs a fresh token", "Call /refresh before /login.")  # fmt: skip
    said = mcp_memory(onlooker_home, project, first.id)  # the same id, the new text
    assert (said["title"], said["content"]) == (memory["title"], memory["content"])
    told = context(hook({**agent.base("SessionStart"), "session_id": "sess-next",
                         "source": "startup"}))  # fmt: skip
    assert told.index("Login needs a fresh token") < told.index("Docs build with mkdocs")
    del last
