"""The viewer in a real headless Chromium (the report's harness) while a session's real hooks run:
its Stall shows without a reload, within a second of the hook; resolving it from the page (a
note typed, the button clicked) changes the store and what the agent hears next. The page loads
with no console error, asks for nothing but its own files, and switches light and dark."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from viewer import Agent, Viewer, running_viewer

from onlooker.store import FindingQuery, Store, project_for
from onlooker.testing.browser import HeadlessChromium

STALL_ITEM = (
    "document.querySelector('#timeline article[data-kind=assessment][data-observer=Stall]')"
)
TOLD_ITEM = "[...document.querySelectorAll('#timeline article[data-kind=told]')].pop()"
STALL_ROW = (
    "[...document.querySelectorAll('#findings tr[data-finding]')]"
    ".find(r => r.cells[1].textContent === 'Stall')"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[HeadlessChromium]:
    with HeadlessChromium() as chromium:
        yield chromium


def wait_for(browser: HeadlessChromium, expression: str, timeout: float = 10.0) -> float:
    """Poll `expression` in the page until it is truthy; the wall-clock time it first was."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if browser.evaluate(f"!!({expression})"):
            return time.time()
        time.sleep(0.02)
    raise AssertionError(f"never true: {expression}")


def click(browser: HeadlessChromium, expression: str) -> None:
    """A real mouse click in the middle of the element."""
    box = browser.evaluate(f"(() => {{ const e = {expression}; e.scrollIntoView({{block: 'center'}});"
                           " const r = e.getBoundingClientRect();"
                           " return [r.x + r.width / 2, r.y + r.height / 2]; })()")  # fmt: skip
    browser.click(*box)


def open_page(browser: HeadlessChromium, viewer: Viewer) -> list[str]:
    browser.open("about:blank")  # no page of an earlier test's viewer is still reconnecting
    load = browser.open(viewer.url)
    assert browser.evaluate("window.onlookerReady") is True
    wait_for(browser, "document.getElementById('live').classList.contains('on')")
    return load.requests + load.errors


def test_a_stall_shows_live_and_resolving_it_reaches_the_agent(
    browser: HeadlessChromium, onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "sess-live")
    agent.start("Switch the token hash from sha256 to sha512.")
    with running_viewer() as viewer:
        browser.open("about:blank")
        load = browser.open(viewer.url)
        assert browser.evaluate("window.onlookerReady") is True
        wait_for(browser, "document.getElementById('live').classList.contains('on')")
        assert load.errors == []
        assert all(url.startswith(viewer.url) for url in load.requests), load.requests
        browser.evaluate("window.notReloaded = true")
        click(
            browser, "document.querySelector('#sessions li[data-session$=\"/sess-live\"] button')"
        )
        wait_for(browser, "document.querySelector('#timeline article[data-kind=session_started]')")

        for _ in range(3):
            agent.failing_test_run()
        assert browser.evaluate(f"!!{STALL_ITEM}") is False
        told = agent.failing_test_run()  # the fourth: the stall
        delivered = time.time()
        assert "[Trajectory Assessment - Stall" in told  # with Error Cascade: one voice
        shown = wait_for(browser, STALL_ITEM)
        assert shown - delivered < 1.0, f"{shown - delivered:.3f} s from the hook to the page"
        assert browser.evaluate("window.notReloaded") is True
        wait_for(browser, TOLD_ITEM)
        text = browser.evaluate(f"{TOLD_ITEM}.querySelector('pre').textContent")
        assert text == told  # exactly what the agent got
        assert browser.evaluate(
            "document.querySelectorAll('#timeline article[data-kind=tool_call].failed').length"
        ) == 4  # fmt: skip

        wait_for(browser, STALL_ROW)
        hears = agent.prompt("Why do the tests still fail?")
        assert "**Stall**" in hears

        browser.evaluate(f"{STALL_ROW}.querySelector('input').focus()")
        browser.send("Input.insertText", text="Hash switched; the fixture was stale.")
        click(browser, f"{STALL_ROW}.querySelector('button[data-action=resolve]')")
        wait_for(browser, f"!{STALL_ROW}")  # left the list of open findings
        assert browser.evaluate("window.notReloaded") is True

        shown_at = browser.evaluate("location.href")
        browser.open("about:blank")
        browser.open(shown_at)  # opened again, the page shows the same session
        assert browser.evaluate("window.onlookerReady") is True
        wait_for(browser, STALL_ITEM)

    with Store(onlooker_home) as store:
        page = store.query(FindingQuery(project=project_for(project), observers=("Stall",)))
    [stall] = page.observations
    assert stall.finding.status == "resolved"
    assert stall.finding.resolution_note == "Hash switched; the fixture was stale."
    after = agent.prompt("And now?")
    assert "**Stall**" not in after and "**Error Cascade**" in after


def test_the_page_switches_light_and_dark_and_draws_its_charts(
    browser: HeadlessChromium, onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "sess-look")
    agent.start("Look around.")
    for _ in range(4):
        agent.failing_test_run()
    with running_viewer("--read-only") as viewer:
        browser.emulate_dark(False)
        problems = open_page(browser, viewer)
        assert [p for p in problems if not p.startswith(viewer.url)] == []
        wait_for(browser, "document.querySelector('figure[data-chart=severity] svg rect')")
        charts = browser.evaluate(
            "[...document.querySelectorAll('figure[data-chart]')].map(f => f.dataset.chart)"
        )
        assert {"severity", "observer"} <= set(charts)
        assert browser.evaluate("document.querySelectorAll('button[data-action]').length") == 0
        background = "getComputedStyle(document.body).backgroundColor"
        light = browser.evaluate(background)
        browser.emulate_dark(True)
        assert browser.evaluate(background) != light
        browser.emulate_dark(False)
        browser.evaluate("(() => { const s = document.getElementById('f-theme'); s.value = 'dark';"
                         " s.dispatchEvent(new Event('change')); })()")  # fmt: skip
        assert browser.evaluate(background) != light  # the page's own switch
        browser.evaluate("(() => { const s = document.getElementById('f-theme'); s.value = '';"
                         " s.dispatchEvent(new Event('change')); })()")  # fmt: skip

        browser.evaluate("document.activeElement && document.activeElement.blur()")
        focused = []
        for _ in range(12):
            browser.press("Tab", key_code=9)
            focused.append(
                browser.evaluate("document.activeElement.id || document.activeElement.tagName")
            )
        assert "f-project" in focused and "BUTTON" in focused  # filters, then the sessions


def test_a_second_tab_shares_the_first_tabs_stream(
    browser: HeadlessChromium, onlooker_home: Path, project: Path
) -> None:
    """A browser opens at most 6 connections to one host: tabs share one event stream."""
    agent = Agent(project, "sess-tabs")
    agent.start("Open two tabs.")
    with running_viewer() as viewer:
        open_page(browser, viewer)
        browser.send("Runtime.evaluate", expression=f"window.tab = window.open('{viewer.url}')",
                     userGesture=True)  # fmt: skip
        wait_for(browser, "window.tab && window.tab.onlookerReady")
        assert browser.evaluate("window.tab.onlookerReady") is True
        wait_for(
            browser, "window.tab.document.getElementById('live').textContent === 'live (shared)'"
        )
        assert browser.evaluate("document.getElementById('live').textContent") == "live"
        agent.failing_test_run()
        calls = ("[...(window.tab.document.querySelectorAll('#sessions li .counts'))]"
                 ".map(e => e.textContent).join()")  # fmt: skip
        wait_for(browser, f"{calls}.includes('1 calls · 1 failed')")
        browser.evaluate("window.tab.close()")
