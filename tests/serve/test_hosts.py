"""Sessions name the host that ran them: real hooks from two hosts' adapters (Claude Code's
`onlooker hook`, and opencode's plugin forwarding through the same hook client) journal their
host on the session's start; an older journal that names none reads as unknown. The viewer
shows the host per session and filters sessions and findings by it."""

from __future__ import annotations

import json
import time
from pathlib import Path

from viewer import Agent, OpencodeAgent, running_viewer

from onlooker.core.events import SessionStarted
from onlooker.core.records import encode
from onlooker.store import project_for
from onlooker.store.home import journal_path


def run_two_hosts(onlooker_home: Path, project: Path) -> str:
    claude = Agent(project, "sess-claude")
    claude.start("Fix the hash.")
    opencode = OpencodeAgent(project, "ses_open")
    opencode.start()
    said = ""
    for _ in range(4):
        claude.failing_test_run()
        said = opencode.failing_test_run()
    assert "[Trajectory Assessment - Stall" in said  # the opencode session was observed
    key = project_for(project)
    old = journal_path(onlooker_home, key, "sess-old")  # written before hosts were recorded
    start = SessionStarted(session_id="sess-old", seq=1, cwd=str(project))
    old.write_text(json.dumps(encode(start), separators=(",", ":")) + "\n")
    assert '"host"' not in old.read_text()
    return key


def test_sessions_and_findings_are_filtered_by_the_host_that_ran_them(
    onlooker_home: Path, project: Path
) -> None:
    key = run_two_hosts(onlooker_home, project)
    journal = journal_path(onlooker_home, key, "sess-claude").read_text()
    assert '"host":"claude-code"' in journal.splitlines()[0]
    with running_viewer() as viewer:
        status, listed = viewer.request("GET", "/api/sessions")
        assert status == 200
        hosts = {row["session_id"] or row["session"]: row["host"] for row in listed["sessions"]}
        assert hosts == {"sess-claude": "claude-code", "ses_open": "opencode",
                         "sess-old": "unknown"}  # fmt: skip
        assert {"claude-code", "opencode", "amplifier", "unknown"} <= set(listed["hosts"])
        for host, wanted in (("opencode", ["ses_open"]), ("claude-code", ["sess-claude"]),
                             ("unknown", ["sess-old"]), ("amplifier", [])):  # fmt: skip
            _, only = viewer.request("GET", f"/api/sessions?host={host}")
            assert [r["session_id"] or r["session"] for r in only["sessions"]] == wanted
            assert only["total"] == len(wanted)
        status, answer = viewer.request("GET", "/api/sessions?host=vim")
        assert status == 400 and answer["error"].startswith("host: one of claude-code")

        _, every = viewer.request("GET", f"/api/findings?project={key}")
        assert {f["session_id"] for f in every["findings"]} == {"sess-claude", "ses_open"}
        _, opencode = viewer.request("GET", f"/api/findings?project={key}&host=opencode")
        assert opencode["count"] >= 1 and opencode["count"] < every["count"]
        assert {f["session_id"] for f in opencode["findings"]} == {"ses_open"}
        assert opencode["by_observer"].get("Stall") == 1

        _, timeline = viewer.request("GET", f"/api/timeline?project={key}&session=ses_open")
        [start] = [i for i in timeline["items"] if i["kind"] == "session_started"]
        assert start["host"] == "opencode"


def test_the_page_shows_each_sessions_host_and_filters_by_it(
    onlooker_home: Path, project: Path
) -> None:
    from test_viewer_browser import open_page, wait_for

    from onlooker.testing.browser import HeadlessChromium

    run_two_hosts(onlooker_home, project)
    rows = ("[...document.querySelectorAll('#sessions li')].map(li =>"
            " li.querySelector('b').textContent + '@' + li.querySelector('.host').textContent)"
            ".sort().join()")  # fmt: skip
    findings = ("[...document.querySelectorAll('#findings tr[data-finding]')]"
                ".map(r => r.cells[1].textContent).join()")  # fmt: skip
    with HeadlessChromium() as browser, running_viewer("--read-only") as viewer:
        open_page(browser, viewer)
        wait_for(browser, f"{rows} === 'ses_open@opencode,sess-claude@claude-code,"
                          "sess-old@unknown'")  # fmt: skip
        wait_for(browser, f"{findings}.split(',').filter(o => o === 'Stall').length === 2")
        # The answers for the passing choice come last, as they may on a busy machine: the page
        # must still end on what the select shows, not on whichever answer arrived last.
        browser.evaluate("(() => { const real = window.fetch; window.fetch = (url, options) =>"
                         " String(url).includes('host=claude-code') ? new Promise((done) =>"
                         " setTimeout(done, 700)).then(() => real(url, options))"
                         " : real(url, options); })()")  # fmt: skip
        browser.evaluate("document.getElementById('f-host').focus()")
        for _ in range(2):  # all -> claude-code -> opencode, by keyboard
            browser.press("ArrowDown", "ArrowDown", 40)
        assert browser.evaluate("document.getElementById('f-host').value") == "opencode"
        wait_for(browser, f"{rows} === 'ses_open@opencode'")
        wait_for(browser, f"{findings}.split(',').filter(o => o === 'Stall').length === 1")
        time.sleep(1.5)  # the slow answers for claude-code have come and gone
        assert browser.evaluate(rows) == "ses_open@opencode"
        assert browser.evaluate(f"{findings}.split(',').filter(o => o === 'Stall').length") == 1
