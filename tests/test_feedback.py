"""Immediate feedback: rendered assessments, capped at 10,000 characters, never repeated."""

from __future__ import annotations

from onlooker import FEEDBACK_LIMIT, Assessment, Engine, FixedClock, ObserverContext, Session, ToolCall
from onlooker.core.observer import observer
from onlooker.core.feedback import compose, immediate_feedback


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
