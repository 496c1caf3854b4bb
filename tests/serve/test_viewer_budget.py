"""Tokens and cost per day against the memory budget: extraction's model use per UTC day beside
the project's `memory.dailyTokens`, with the reviewers' tokens and cost that day; counted from the
journaled records (so a reindex gives the same), shown as a table in the real Chromium."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from test_viewer_browser import open_page, wait_for
from viewer import ONLOOKER, Agent, Viewer, running_viewer

from onlooker.llm.model import Usage
from onlooker.memory._memories import Memories
from onlooker.memory.budget import used
from onlooker.store import Store, project_for
from onlooker.testing.browser import HeadlessChromium


def test_tokens_and_cost_per_day_are_shown_against_the_memory_budget(
    onlooker_home: Path, project: Path
) -> None:
    (project / ".onlooker").mkdir()
    (project / ".onlooker" / "config.yaml").write_text("memory:\n  dailyTokens: 1000\n")
    Agent(project, "s1").start("Remember things.")  # the project's folder, as journaled
    key = project_for(project)
    with Store(onlooker_home) as store:
        memories = Memories(store)
        for day, tokens_in, tokens_out, cost in (("2026-11-23", 200, 100, 0.002),
                                                 ("2026-11-24", 700, 500, 0.012),
                                                 ("2026-11-24", 0, 0, None)):  # fmt: skip
            memories.record_model_use(used(project=key, session_id="s1", model="m", day=day,
                                           usage=Usage(tokens_in, tokens_out, cost)))  # fmt: skip
        memories.record_model_use(used(project=key, session_id="s1", model="m", day="2026-11-24",
                                       usage=None, skipped="day"))  # fmt: skip
        store.record_observer_run("security-review", session_id="s1", project=key, status="ok",
                                  duration=1.0, model="openai:gpt-4o-mini", input_tokens=1500,
                                  output_tokens=200, cost_usd=0.25)  # fmt: skip
        today = store.clock.now().strftime("%Y-%m-%d")

    def read(viewer: Viewer, query: str = "") -> dict[str, Any]:
        status, answer = viewer.request("GET", f"/api/budget{query}")
        assert status == 200
        return dict(answer)

    with running_viewer() as viewer:
        mine = read(viewer, f"?project={key}")
        assert mine["daily_tokens"] == 1000  # the project's memory.dailyTokens
        days = {d["day"]: d for d in mine["days"]}
        assert days["2026-11-23"]["memory_tokens"] == 300
        assert not days["2026-11-23"]["over_budget"] and days["2026-11-23"]["budget_share"] == 0.3
        assert days["2026-11-24"]["memory_tokens"] == 1200 and days["2026-11-24"]["over_budget"]
        assert round(days["2026-11-24"]["memory_cost_usd"], 6) == 0.012
        assert days[today]["reviewer_input"] == 1500 and days[today]["reviewer_cost_usd"] == 0.25
        assert read(viewer)["daily_tokens"] == 500_000  # no project: the default
        assert read(viewer, "?project=nope-00000000")["days"][-1]["reviewer_input"] == 0

        with HeadlessChromium() as browser:
            open_page(browser, viewer)
            browser.evaluate("(() => { const s = document.getElementById('f-project');"
                             f" s.value = '{key}'; s.dispatchEvent(new Event('change')); }})()")  # fmt: skip
            over = "document.querySelector('#budget tr[data-day=\"2026-11-24\"]')"
            wait_for(browser, f"{over} && {over}.classList.contains('over')")
            meter = f"{over}.querySelector('meter')"
            assert browser.evaluate(f"{meter}.getAttribute('value')") == "1200"
            assert (
                browser.evaluate(f"{meter}.max") == 1000
                and browser.evaluate(f"{meter}.value") == 1000
            )  # full, and the row says by how much it is over
            assert "120.0% over" in browser.evaluate(f"{over}.textContent")
            assert "$0.2500" in browser.evaluate(
                f"document.querySelector('#budget tr[data-day=\"{today}\"]').textContent"
            )

    done = subprocess.run([ONLOOKER, "reindex"], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with running_viewer() as viewer:
        assert read(viewer, f"?project={key}") == mine  # rebuilt from the journal alike
