"""The live feed: what a hook journals reaches an open event stream within a second, as items
the page can show (tool calls and failures, what an observer delivered, findings, reviewer runs);
a stream reconnecting with `Last-Event-ID` gets exactly the gap; an id it cannot resume from
gets a `reset`."""

from __future__ import annotations

import time
from pathlib import Path

from viewer import Agent, EventStream, hook, running_viewer

from onlooker.store import Store, project_for


def test_hook_events_reach_an_open_stream_within_a_second(
    onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "live-1")
    agent.start("Switch the token hash to sha512.")  # the data home exists before the viewer
    with running_viewer() as viewer:
        stream = EventStream(viewer)
        try:
            before = time.monotonic()
            agent.failing_test_run()
            done = time.monotonic()
            message = stream.until(lambda d: d.get("kind") == "tool_call")
            arrived = time.monotonic()
            item = message["data"]
            assert item["session"] == "live-1" and item["project"] == project_for(project)
            assert item["tool"] == "Bash" and item["ok"] is False and "sha512" in item["text"]
            assert arrived - done < 1.0, (done - before, arrived - done)
        finally:
            stream.close()


def test_a_reconnect_fills_the_gap_and_an_unknown_id_resets(
    onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "live-2")
    agent.start("Switch the token hash to sha512.")
    with running_viewer() as viewer:
        first = EventStream(viewer)
        agent.failing_test_run()
        seen = first.until(lambda d: d.get("kind") == "tool_call")
        first.close()

        told = [agent.failing_test_run() for _ in range(6)]  # while no page listens
        assert any(told), "the stall was never delivered"

        again = EventStream(viewer, last_event_id=seen["id"])
        gap = []
        while len([m for m in gap if m["data"]["kind"] == "tool_call"]) < 6:
            gap.append(again.next(5))
        again.close()
        calls = [m["data"]["call"] for m in gap if m["data"]["kind"] == "tool_call"]
        assert calls == [2, 3, 4, 5, 6, 7]  # the gap, each once, in order
        numbers = [int(m["id"].rpartition("-")[2]) for m in gap]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert numbers[0] == int(seen["id"].rpartition("-")[2]) + 1
        delivered = [m["data"] for m in gap if m["data"]["kind"] == "assessment"]
        assert "Stall" in {d["observer"] for d in delivered}
        assert all(d["text"] for d in delivered)  # the text the agent got

        stale = EventStream(viewer, last_event_id="0000-3")  # another server's id
        assert stale.next(5)["event"] == "reset"
        stale.close()


def test_reviewer_runs_reach_the_stream_with_tokens_and_cost(
    onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "live-3")
    agent.start("Review the token code.")
    with running_viewer() as viewer:
        stream = EventStream(viewer)
        with Store(onlooker_home) as store:
            store.record_observer_run(
                "security-review", session_id="live-3", project=project_for(project),
                status="ok", duration=2.5, model="openai:gpt-4o-mini", input_tokens=1200,
                output_tokens=300, cost_usd=0.0021, report="No secrets in the diff.",
            )  # fmt: skip
        item = stream.until(lambda d: d.get("kind") == "reviewer_run")["data"]
        stream.close()
    assert item["session"] == "live-3" and item["observer"] == "security-review"
    assert (item["input_tokens"], item["output_tokens"], item["cost_usd"]) == (1200, 300, 0.0021)
    assert item["model"] == "openai:gpt-4o-mini" and item["text"] == "No secrets in the diff."


def test_a_subagent_is_a_lane_of_its_session_live_and_in_the_timeline(
    onlooker_home: Path, project: Path
) -> None:
    agent = Agent(project, "lanes")
    agent.start("Explore the repository.")
    sub = {"agent_id": "agent7", "agent_type": "Explore"}
    with running_viewer() as viewer:
        stream = EventStream(viewer)
        hook({**agent.base("SubagentStart"), **sub})
        hook({**agent.base("PostToolUseFailure"), **sub, "error": "ls: cannot access 'nope'",
              "is_interrupt": False, "tool_name": "Bash", "tool_input": {"command": "ls nope"},
              "tool_use_id": "toolu_sub_1"})  # fmt: skip
        live = stream.until(lambda d: d.get("kind") == "tool_call")["data"]
        stream.close()
        assert (live["session"], live["lane"], live["ok"]) == ("lanes", "agent7", False)

        status, sessions = viewer.request("GET", "/api/sessions")
        assert status == 200
        assert [s["session_id"] for s in sessions["sessions"]] == ["lanes"]  # no row of its own
        key = project_for(project)
        status, timeline = viewer.request("GET", f"/api/timeline?project={key}&session=lanes")
    assert status == 200
    assert timeline["lanes"] == ["", "agent7"]
    kinds = [(i["lane"], i["kind"]) for i in timeline["items"]]
    assert ("", "subagent_started") in kinds and ("agent7", "tool_call") in kinds
    assert ("", "user_prompt") in kinds
