"""Immediate feedback: rendered assessments, capped at 10,000 characters, never repeated."""

from __future__ import annotations

from onlooker import (
    FEEDBACK_LIMIT,
    Assessment,
    Engine,
    FixedClock,
    ObserverContext,
    Session,
    ToolCall,
    observer,
)
from onlooker.core.assessment import Finding
from onlooker.core.feedback import compose, immediate_feedback, tell
from onlooker.core.message import INTRODUCTION


def test_feedback_is_capped_keeping_the_most_severe() -> None:
    bulky = [
        Assessment(observer_name=f"O{i}", summary="x" * 3000, severity="info") for i in range(4)
    ]
    urgent = Assessment(observer_name="Urgent", summary="stop", severity="high")
    text = compose([*bulky, urgent])
    assert len(text) <= FEEDBACK_LIMIT
    assert "[Trajectory Assessment - Urgent]" in text
    assert text.endswith("more assessment omitted]") or text.endswith("more assessments omitted]")


def test_a_single_huge_assessment_is_clipped() -> None:
    text = compose([Assessment(observer_name="Huge", summary="y" * 50_000)])
    assert len(text) <= FEEDBACK_LIMIT and text.endswith("…[clipped]")


def test_nothing_already_delivered_is_delivered_again() -> None:
    session = Session("s")
    same = Assessment(observer_name="Plan Progress", summary="Completed 1/3 steps. 2 remaining.")
    assert immediate_feedback(session, [same]) == same.render()
    assert immediate_feedback(session, [same]) == ""
    other = Assessment(observer_name="Plan Progress", summary="Completed 2/3 steps. 1 remaining.")
    assert immediate_feedback(session, [same, other]) == other.render()


def test_delivered_state_survives_a_new_process(clock: FixedClock) -> None:
    constant = observer(name="Constant")(lambda ctx: "same text")
    session = Session("s")
    assert Engine([constant], session=session, clock=clock).dispatch(ToolCall(tool="A")).feedback
    resumed = Session.restore(session.snapshot())
    assert (
        Engine([constant], session=resumed, clock=clock).dispatch(ToolCall(tool="B")).feedback == ""
    )


def test_changing_text_is_delivered_each_time(clock: FixedClock) -> None:
    @observer(name="Count")
    def count(ctx: ObserverContext) -> str:
        return f"{ctx.tool_call_count} calls"

    engine = Engine([count], clock=clock)
    assert [engine.dispatch(ToolCall(tool="A")).feedback.split("\n")[-1] for _ in range(3)] == [
        "1 calls",
        "2 calls",
        "3 calls",
    ]


def repeat(observer: str, calls: str, level: str, content: str, episode: str) -> Assessment:
    finding = Finding(
        content=content, category="loop", evidence=calls, severity=level,  # type: ignore[arg-type]
        metadata={"episode": episode},
    )  # fmt: skip
    return Assessment(observer_name=observer, summary=f"{observer} says", findings=(finding,),
                      suggestions=(f"{observer} suggests",), severity=level)  # type: ignore[arg-type]  # fmt: skip


def test_observers_on_the_same_calls_speak_with_one_voice() -> None:
    session = Session("s")
    stall = repeat(
        "Stall", "calls 1, 2, 3, 4", "medium", "pytest failed 4 times (calls 1, 2, 3, 4).", "r"
    )
    cascade = repeat("Error Cascade", "calls 1, 2, 3, 4", "medium",
                     "The same error occurred 4 times (calls 1, 2, 3, 4): AssertionError", "e")  # fmt: skip
    telling = tell(session, [stall, cascade])
    (message,) = telling.messages
    assert message.observers == ("Stall", "Error Cascade")
    text = telling.render(ids={stall.findings[0].id: "a" * 32, cascade.findings[0].id: "b" * 32})
    assert text == (
        "[Trajectory Assessment - Stall, Error Cascade]\n\nStall says\n\n"
        "• loop [ids aaaaaaaa, bbbbbbbb]: pytest failed 4 times (calls 1, 2, 3, 4): AssertionError"
        f"\n\n→ Stall suggests\n\n{INTRODUCTION}"
    )


def test_an_episode_is_told_when_it_starts_once_when_it_escalates_then_not() -> None:
    session = Session("s")
    said = []
    for calls, level in (("calls 1, 2, 3, 4", "medium"), ("calls 1-5", "medium"),
                         ("calls 1-6", "high"), ("calls 1-11", "high"), ("calls 1-16", "critical")):  # fmt: skip
        said.append(
            immediate_feedback(session, [repeat("Stall", calls, level, f"x ({calls})", "r")])
        )
    assert [bool(text) for text in said] == [True, False, True, False, False]
    assert "→ Stall suggests" in said[0] and "→" not in said[2]  # the escalation adds no advice
    assert INTRODUCTION in said[0] and INTRODUCTION not in said[2]
    first_id = said[0].split("[id ")[1][:8]  # without a store, the escalation keeps the first id
    assert f"[id {first_id}]" in said[2]
    # The same pattern again on other calls is a new episode: told again.
    again = repeat("Stall", "calls 30, 31, 32, 33", "medium", "x", "r")
    assert immediate_feedback(session, [again]).startswith("[Trajectory Assessment - Stall]")


def test_another_observer_joining_a_told_episode_stays_quiet() -> None:
    session = Session("s")
    assert immediate_feedback(
        session, [repeat("Error Cascade", "calls 9, 13, 14, 15", "medium", "e", "e")]
    )
    assert (
        immediate_feedback(session, [repeat("Stall", "calls 13, 14, 15, 16", "medium", "s", "r")])
        == ""
    )


def test_the_told_episodes_survive_a_new_process() -> None:
    session = Session("s")
    assert immediate_feedback(session, [repeat("Stall", "calls 1, 2, 3, 4", "medium", "s", "r")])
    resumed = Session.restore(session.snapshot())
    assert immediate_feedback(resumed, [repeat("Stall", "calls 1-5", "medium", "s", "r")]) == ""
    assert immediate_feedback(resumed, [repeat("Stall", "calls 1-6", "high", "s", "r")])


def test_a_status_is_one_line_and_said_when_new() -> None:
    session = Session("s")
    status = Assessment(observer_name="Plan Progress", summary="Completed 1/2 steps.",
                        suggestions=("Next: Test it",), status=True)  # fmt: skip
    assert (
        immediate_feedback(session, [status])
        == "[Plan Progress] Completed 1/2 steps. Next: Test it"
    )
    assert immediate_feedback(session, [status]) == ""


def test_a_finding_about_a_file_says_where_it_points() -> None:
    finding = Finding(content="The token is logged.", category="security", severity="high",
                      source_type="file", source_ref="src/auth.py:42")  # fmt: skip
    text = Assessment(observer_name="Reviewer", summary="One issue.", findings=(finding,),
                      severity="high")  # fmt: skip
    line = immediate_feedback(Session("s"), [text]).splitlines()[4]
    assert line == f"• security [id {finding.id[:8]}]: The token is logged. (src/auth.py:42)"
