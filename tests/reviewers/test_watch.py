"""Change detection: file state by (path, mtime, size) of globbed files, conversation by messages."""

from __future__ import annotations

import os
from pathlib import Path

from onlooker import Session
from onlooker.core.events import AssistantMessage, ToolCall, UserPrompt
from onlooker.reviewers.watch import (
    ConversationTarget,
    FilesTarget,
    WatchState,
    conversation_state,
    files_state,
    watch_state,
    watched_files,
)


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_globs_walk_below_their_prefix_and_skip_git_and_ignored_files(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            ".gitignore": "build/\n*.gen.py\n",
            "src/a.py": "a",
            "src/pkg/b.py": "b",
            "src/pkg/c.gen.py": "generated",
            "src/pkg/.gitignore": "secret_*.py\n",
            "src/pkg/secret_x.py": "s",
            "src/notes.txt": "n",
            "build/out.py": "o",
            ".git/hooks/pre.py": "g",
            "top.py": "t",
            "tests/test_a.py": "t",
        },
    )
    paths = [f.path for f in watched_files(tmp_path, ["src/**/*.py"])]
    assert paths == ["src/a.py", "src/pkg/b.py"]
    assert [f.path for f in watched_files(tmp_path, ["*.py"])] == ["top.py"]
    assert [f.path for f in watched_files(tmp_path, ["**/*.py"])] == [
        "src/a.py",
        "src/pkg/b.py",
        "tests/test_a.py",
        "top.py",
    ]
    both = watched_files(tmp_path, ["src/*.py", "tests/**/*.py", "src/a.py"])
    assert [f.path for f in both] == ["src/a.py", "tests/test_a.py"]
    assert watched_files(tmp_path, ["build/**/*.py"]) == []
    assert watched_files(tmp_path, ["missing/**"]) == []


def test_the_file_hash_changes_with_content_size_mtime_and_membership(tmp_path: Path) -> None:
    tree(tmp_path, {"src/a.py": "a", "src/b.py": "b"})
    first = files_state(tmp_path, ["src/**/*.py"])
    assert files_state(tmp_path, ["src/**/*.py"]) == first
    (tmp_path / "src/a.py").write_text("aa")
    second = files_state(tmp_path, ["src/**/*.py"])
    assert second != first
    stat = (tmp_path / "src/b.py").stat()
    os.utime(tmp_path / "src/b.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    third = files_state(tmp_path, ["src/**/*.py"])
    assert third != second
    (tmp_path / "src/c.py").write_text("c")
    assert files_state(tmp_path, ["src/**/*.py"]) != third
    (tmp_path / "src/c.py").unlink()
    assert files_state(tmp_path, ["src/**/*.py"]) == third
    (tmp_path / "src/ignored.txt").write_text("not watched")
    assert files_state(tmp_path, ["src/**/*.py"]) == third


def test_the_conversation_hash_follows_the_flags() -> None:
    session = Session("s")
    everything = ConversationTarget()
    messages_only = ConversationTarget(include_tool_calls=False, include_reasoning=False)
    session.append(UserPrompt(text="fix the bug"))
    a, b = conversation_state(session, everything), conversation_state(session, messages_only)
    session.append(ToolCall(tool="Read", input={"file_path": "x.py"}, output="print(1)"))
    assert conversation_state(session, everything) != a
    assert conversation_state(session, messages_only) == b
    a = conversation_state(session, everything)
    session.append(AssistantMessage(text="", reasoning="maybe the loop"))
    assert conversation_state(session, everything) != a
    assert conversation_state(session, messages_only) != b  # a new message, even without text


def test_watch_state_combines_targets_and_survives_a_snapshot(tmp_path: Path) -> None:
    tree(tmp_path, {"src/a.py": "a"})
    session = Session("s")
    session.append(UserPrompt(text="hi"))
    targets = (FilesTarget(("src/**/*.py",)), ConversationTarget())
    digest = watch_state(targets, tmp_path, session)
    state = WatchState().seen("Reviewer", digest)
    session[WatchState].seed(state)
    restored = Session.restore(session.snapshot())
    kept = restored[WatchState].latest()
    assert kept is not None and not kept.changed("Reviewer", digest)
    session.append(UserPrompt(text="more"))
    assert kept.changed("Reviewer", watch_state(targets, tmp_path, session))
    assert kept.changed("Other", digest)


def test_the_conversation_has_the_turns_last_message_once_and_what_subagents_answered() -> None:
    from onlooker.core.events import SubagentStopped, TurnEnded
    from onlooker.reviewers.watch import conversation_messages

    session = Session("s")
    target = ConversationTarget()
    session.append(UserPrompt(text="fix the bug"))
    session.append(AssistantMessage(text="Looking at the loop.", reasoning="off by one?"))
    session.append(TurnEnded(last_message="Fixed the off-by-one."))  # not in the transcript yet
    session.append(SubagentStopped(agent_id="a1", agent_type="Explore", last_message="3 callers"))
    said = [(m["role"], m["content"]) for m in conversation_messages(session, target)]
    assert said == [
        ("user", "fix the bug"),
        ("assistant", "Looking at the loop."),
        ("assistant", "Fixed the off-by-one."),
        ("subagent Explore", "3 callers"),
    ]
    before = conversation_state(session, target)
    session.append(AssistantMessage(text="Fixed the off-by-one."))  # read at the next hook
    session.append(TurnEnded(last_message=""))
    roles = [m["content"] for m in conversation_messages(session, target)]
    assert roles.count("Fixed the off-by-one.") == 1
    assert conversation_state(session, target) != before
    plain = ConversationTarget(include_reasoning=False)
    assert all("reasoning" not in m for m in conversation_messages(session, plain))


def test_words_read_after_the_call_they_led_to_come_before_it() -> None:
    """A transcript line can reach its file after the tool call's hook: the words go back to
    where they were written, before the calls that started later, and no further."""
    from datetime import UTC, datetime, timedelta

    from onlooker.reviewers.watch import conversation_messages

    t0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    session = Session("s")
    session.append(UserPrompt(at=t0, text="why is it flaky?"))
    session.append(AssistantMessage(at=t0 + timedelta(seconds=1), text="First, the port."))
    call = {"tool": "Bash", "input": {"command": "echo checked"}, "duration_ms": 2000.0}
    session.append(ToolCall(at=t0 + timedelta(seconds=5), **call))  # began at 0:03
    late = AssistantMessage(at=t0 + timedelta(seconds=2), text="The fixture reuses port 8731.")
    session.append(late)  # read at the next hook, though written before the call began
    session.append(AssistantMessage(at=t0 + timedelta(seconds=4), text="Mid-call words stay."))
    session.append(AssistantMessage(text="No time: stays where it arrived."))
    order = [m["content"] for m in conversation_messages(session, ConversationTarget())]
    assert order == [
        "why is it flaky?",
        "First, the port.",
        "The fixture reuses port 8731.",
        "",  # the call's output
        "Mid-call words stay.",
        "No time: stays where it arrived.",
    ]
