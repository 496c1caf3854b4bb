"""Transcript import: Claude Code JSONL (with subagents) and OpenAI messages become events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from onlooker import (
    AssistantMessage,
    Plan,
    Session,
    SessionStarted,
    ToolCall,
    TranscriptError,
    UserPrompt,
)
from onlooker.core.events import OUTPUT_LIMIT
from onlooker.hosts.recorded.transcripts import (
    Tally,
    Transcript,
    iter_claude_code,
    read_claude_code,
    read_openai_messages,
    read_transcript,
    transcript_paths,
)

SESSION_ID = "0b6d1d0e-7f55-4a3e-9a51-3c1f1d2b8e11"


@pytest.fixture
def session_file(fixtures: Path) -> Path:
    return fixtures / "transcripts" / f"{SESSION_ID}.jsonl"


@pytest.fixture
def transcript(session_file: Path) -> Transcript:
    return read_claude_code(session_file)


def calls(transcript: Transcript) -> list[ToolCall]:
    return [e for e in transcript.events if isinstance(e, ToolCall)]


def line(**fields: object) -> str:
    envelope = {"sessionId": "s1", "cwd": "/work/app", "timestamp": "2026-02-12T16:00:00.000Z"}
    return json.dumps({**envelope, **fields})


def use(call_id: str, tool: str, at: str, **arguments: object) -> str:
    block = {"type": "tool_use", "id": call_id, "name": tool, "input": arguments}
    message = {"id": f"msg_{call_id}", "role": "assistant", "content": [block]}
    return line(type="assistant", message=message, timestamp=at)


def result(call_id: str, content: object, at: str, **extra: object) -> str:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    block.update({k: v for k, v in extra.items() if k == "is_error"})
    fields = {k: v for k, v in extra.items() if k != "is_error"}
    message = {"role": "user", "content": [block]}
    return line(type="user", message=message, timestamp=at, **fields)


# -- Claude Code: what becomes what -----------------------------------------------------------


def test_the_session_starts_where_the_first_line_with_a_cwd_is(transcript: Transcript) -> None:
    started = transcript.events[0]
    assert isinstance(started, SessionStarted)
    assert (started.cwd, started.project, started.source) == (
        "/home/dev/src/inventory",
        "inventory",
        "startup",
    )
    assert started.at == datetime(2026, 2, 12, 16, 0, 0, 200000, tzinfo=UTC)
    assert transcript.session_id == SESSION_ID
    assert all(e.session_id == SESSION_ID for e in transcript.events)
    assert [e.seq for e in transcript.events] == list(range(1, len(transcript.events) + 1))


def test_prompts_are_what_the_user_typed_without_harness_noise(transcript: Transcript) -> None:
    prompts = [e.text for e in transcript.events if isinstance(e, UserPrompt)]
    assert prompts == [
        "Add a --dry-run flag to the restock command.",
        "Pass dry_run through to apply_orders too.",
    ]


def test_a_task_command_is_a_prompt_but_session_commands_are_not() -> None:
    def prompt(text: str) -> list[str]:
        lines = [line(type="user", message={"role": "user", "content": text})]
        return [e.text for e in iter_claude_code(lines) if isinstance(e, UserPrompt)]

    command = "<command-message>review</command-message>\n<command-name>/review</command-name>"
    assert prompt(f"{command}\n<command-args>12</command-args>") == ["/review 12"]
    assert prompt("<command-name>/clear</command-name><command-args></command-args>") == []
    assert prompt("<bash-input>uv run pytest</bash-input>") == ["! uv run pytest"]
    assert prompt("<bash-stdout>3 passed</bash-stdout><bash-stderr></bash-stderr>") == []


def test_one_assistant_message_split_over_lines_is_one_message(transcript: Transcript) -> None:
    messages = [e for e in transcript.events if isinstance(e, AssistantMessage)]
    assert messages[0].text == "I'll plan this first."
    assert messages[0].reasoning == "A flag on one command. Plan it, read the command, edit, test."
    assert [m.text for m in messages] == ["I'll plan this first.", "Now the tests."]
    first_call = next(i for i, e in enumerate(transcript.events) if isinstance(e, ToolCall))
    assert transcript.events.index(messages[0]) < first_call


def test_tool_calls_pair_use_and_result(transcript: Transcript) -> None:
    todo, read, edit, *_ = calls(transcript)
    assert [c.tool for c in calls(transcript)] == ["TodoWrite", "Read", "Edit", "Bash", "Task"]
    assert [c.index for c in calls(transcript)] == [1, 2, 3, 4, 5]
    assert read.call_id == "toolu_01READ0000000000000000001"
    assert read.input == {"file_path": "/home/dev/src/inventory/inventory/cli.py"}
    assert read.output.startswith("     1→import click")
    assert read.ok and read.error is None
    assert read.duration_ms == pytest.approx(120.0)
    assert read.at == datetime(2026, 2, 12, 16, 0, 8, 120000, tzinfo=UTC)
    assert read.result is not None and read.result["file"]["numLines"] == 5
    assert edit.result is not None and edit.result["structuredPatch"][0]["newLines"] == 3
    assert todo.result is not None and len(todo.result["newTodos"]) == 2


def test_an_error_result_is_a_failed_call_with_its_text(transcript: Transcript) -> None:
    bash = calls(transcript)[3]
    assert not bash.ok
    assert bash.error is not None and "unexpected keyword argument 'dry_run'" in bash.error
    assert bash.output == bash.error
    assert bash.result is None  # toolUseResult is the string "Error: …" on failures


def test_a_result_written_before_its_tool_use_still_pairs(transcript: Transcript) -> None:
    task = calls(transcript)[4]
    assert task.tool == "Task" and task.input["subagent_type"] == "Explore"
    assert task.output.startswith("apply_orders is defined in inventory/orders.py")
    assert task.duration_ms == pytest.approx(20000.0)


def test_skipped_malformed_and_unanswered_lines_are_counted(transcript: Transcript) -> None:
    # snapshot, caveat (isMeta), /model, local-command-stdout, progress, queue-operation,
    # system, custom-title, "[Request interrupted …]", summary
    assert transcript.skipped == 10
    assert transcript.malformed == 3
    assert transcript.malformed_lines == (13, 14, 15)
    assert transcript.unanswered == 1  # the last Read never got its result
    assert transcript.tool_calls == 5


def test_the_plan_comes_from_todowrite_calls(transcript: Transcript) -> None:
    session = Session(transcript.session_id)
    for event in transcript.events:
        session.append(event)
    plan = session[Plan].latest()
    assert plan is not None
    assert [s.content for s in plan.steps] == ["Read the restock command", "Add the --dry-run flag"]


def test_subagents_are_their_own_transcripts(transcript: Transcript) -> None:
    explore, warmup = transcript.subagents
    assert explore.agent_id == "a1b2c3d"
    assert explore.agent_type == "Explore"  # from the parent's Task call: no meta.json
    assert warmup.agent_type == "Plan"  # from agent-a9e8f7d.meta.json
    assert explore.parent_session_id == SESSION_ID
    assert explore.session_id == f"{SESSION_ID}-agent-a1b2c3d"
    started = explore.events[0]
    assert isinstance(started, SessionStarted)
    assert (started.agent_name, started.agent_type, started.parent_session_id) == (
        "a1b2c3d",
        "Explore",
        SESSION_ID,
    )
    assert [c.tool for c in calls(explore)] == ["Grep"]
    assert [t.session_id for t in transcript.sessions()] == [
        SESSION_ID,
        explore.session_id,
        warmup.session_id,
    ]


def test_long_outputs_and_result_strings_are_clipped() -> None:
    long = "x" * (OUTPUT_LIMIT * 3)
    lines = [
        use("t1", "Bash", "2026-02-12T16:00:00.000Z", command="cat big.log"),
        result(
            "t1",
            long,
            "2026-02-12T16:00:01.000Z",
            toolUseResult={"stdout": long, "stderr": "", "lines": [long]},
        ),
    ]
    (call,) = [e for e in iter_claude_code(lines) if isinstance(e, ToolCall)]
    assert len(call.output) < OUTPUT_LIMIT + 100
    assert "characters clipped" in call.output
    assert call.result is not None
    assert len(call.result["stdout"]) < OUTPUT_LIMIT + 100
    assert len(call.result["lines"][0]) < OUTPUT_LIMIT + 100
    assert call.result["stderr"] == ""


def test_result_content_blocks_become_text() -> None:
    content = [
        {"type": "text", "text": "found it"},
        {"type": "image", "source": {"type": "base64", "data": "…"}},
        {"type": "tool_reference", "tool_name": "TaskStop"},
    ]
    lines = [
        use("t1", "ToolSearch", "2026-02-12T16:00:00.000Z", query="stop"),
        result("t1", content, "2026-02-12T16:00:00.500Z"),
    ]
    (call,) = [e for e in iter_claude_code(lines) if isinstance(e, ToolCall)]
    assert call.output == "found it\n[image]\n[tool TaskStop]"


def test_wrong_field_types_are_malformed_not_fatal() -> None:
    tally = Tally()
    lines = [
        line(type="user", message={"role": "user", "content": 42}),
        line(type="assistant", message={"content": [{"type": "tool_use", "id": 7}]}),
        line(type="user", message={"content": ["not a block"]}),
        json.dumps({"no": "type"}),
        "\xff\xfe not json",
        line(type="user", message={"role": "user", "content": "still here"}),
    ]
    events = list(iter_claude_code(lines, tally=tally))
    assert tally.malformed == 5
    assert tally.malformed_lines == [1, 2, 3, 4, 5]
    assert [e.text for e in events if isinstance(e, UserPrompt)] == ["still here"]


def test_sidechain_lines_in_a_main_file_are_skipped() -> None:
    tally = Tally()
    lines = [
        line(type="user", message={"role": "user", "content": "main task"}, isSidechain=False),
        line(type="user", message={"role": "user", "content": "side task"}, isSidechain=True),
    ]
    events = list(iter_claude_code(lines, tally=tally))
    assert [e.text for e in events if isinstance(e, UserPrompt)] == ["main task"]
    assert tally.skipped == 1


def test_reading_streams_events_as_lines_arrive() -> None:
    consumed: list[int] = []

    def lines() -> Iterator[str]:
        for number, text in enumerate(
            [
                line(type="user", message={"role": "user", "content": "first"}),
                use("t1", "Read", "2026-02-12T16:00:01.000Z", file_path="a.py"),
                result("t1", "text", "2026-02-12T16:00:02.000Z"),
                line(type="user", message={"role": "user", "content": "second"}),
            ],
            1,
        ):
            consumed.append(number)
            yield text

    events = iter_claude_code(lines())
    assert isinstance(next(events), SessionStarted)
    assert isinstance(next(events), UserPrompt)
    assert consumed == [1]
    assert isinstance(next(events), ToolCall)
    assert consumed == [1, 2, 3]


def test_a_file_without_session_id_or_cwd_is_named_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "demo.jsonl"
    path.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n"
    )
    transcript = read_transcript(path)
    assert transcript.session_id == "demo"
    assert isinstance(transcript.events[0], SessionStarted)
    assert transcript.events[0].cwd == ""
    assert transcript.events[1].session_id == "demo"


# -- errors -------------------------------------------------------------------------------------


def test_a_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    with pytest.raises(TranscriptError, match=r"gone\.jsonl: no such file"):
        read_transcript(missing)
    with pytest.raises(TranscriptError, match="no such file or folder"):
        transcript_paths(missing)


def test_a_folder_or_a_non_transcript_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="is a folder"):
        read_claude_code(tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("# Notes\nnot a transcript\n")
    with pytest.raises(TranscriptError, match=r"notes\.txt: not a Claude Code transcript"):
        read_transcript(notes)
    with pytest.raises(TranscriptError, match=r"no \*\.jsonl transcripts"):
        transcript_paths(tmp_path)


def test_a_project_folder_lists_its_sessions_without_subagent_files(fixtures: Path) -> None:
    found = transcript_paths(fixtures / "transcripts")
    assert [p.name for p in found] == [f"{SESSION_ID}.jsonl"]


def test_a_folder_lists_its_sessions_at_any_depth_in_path_order(tmp_path: Path) -> None:
    for relative in ("b/s2.jsonl", "a/s1.jsonl", "a-b/s3.jsonl", "a/s1/subagents/agent-x.jsonl",
                     "top.jsonl", "a/notes.txt", "a/dir.jsonl/inner.jsonl"):  # fmt: skip
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("{}\n")
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    outside.mkdir()
    (outside / "linked.jsonl").write_text("{}\n")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)  # not entered, as rglob
    (tmp_path / "alias.jsonl").symlink_to(tmp_path / "top.jsonl")  # a file: listed
    found = [p.relative_to(tmp_path).as_posix() for p in transcript_paths(tmp_path)]
    assert found == [
        "a/dir.jsonl/inner.jsonl", "a/s1.jsonl", "a-b/s3.jsonl", "alias.jsonl", "b/s2.jsonl",
        "top.jsonl",
    ]  # fmt: skip
    assert found == [
        p.relative_to(tmp_path).as_posix()
        for p in sorted(tmp_path.rglob("*.jsonl"))
        if "subagents" not in p.relative_to(tmp_path).parts and p.is_file()
    ]


# -- OpenAI messages --------------------------------------------------------------------------


def test_openai_messages_become_prompts_messages_and_tool_calls(fixtures: Path) -> None:
    transcript = read_transcript(fixtures / "transcripts" / "openai-chat.json")
    assert transcript.session_id == "chat-weather-7"
    kinds = [e.kind for e in transcript.events]
    assert kinds == [
        "session_started",
        "user_prompt",
        "tool_call",
        "tool_call",
        "assistant_message",
        "tool_call",
        "assistant_message",
    ]
    started = transcript.events[0]
    assert isinstance(started, SessionStarted) and started.project == "weather-bot"
    lisbon, porto, retry = calls(transcript)
    assert (lisbon.tool, lisbon.input, lisbon.ok) == (
        "get_forecast",
        {"city": "Lisbon", "day": "tomorrow"},
        True,
    )
    assert not porto.ok and porto.error == '{"error": "upstream timeout after 10s"}'
    assert not retry.ok and retry.call_id == "call_porto_2"
    assert transcript.skipped == 1  # the system message
    assert (transcript.malformed, transcript.malformed_lines) == (1, (9,))
    assert transcript.unanswered == 1


def test_a_bare_messages_list_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hello", "timestamp": "2026-02-12T16:00:00Z"},
                {"role": "assistant", "content": "hi", "timestamp": "2026-02-12T16:00:05Z"},
            ]
        )
    )
    transcript = read_openai_messages(path)
    assert transcript.session_id == "chat"
    assert [e.kind for e in transcript.events] == [
        "session_started",
        "user_prompt",
        "assistant_message",
    ]
    assert transcript.events[2].at == datetime(2026, 2, 12, 16, 0, 5, tzinfo=UTC)


def test_a_json_file_that_is_not_a_messages_list_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{\n  "name": "x"\n}\n')
    with pytest.raises(TranscriptError, match=r"config\.json"):
        read_transcript(path)


# -- real Claude Code transcripts (tests/fixtures/claude-code, see SOURCES.md) ---------------


def real(fixtures: Path, relative: str) -> Transcript:
    return read_transcript(fixtures / "claude-code" / relative)


def test_every_real_transcript_reads_without_malformed_lines(fixtures: Path) -> None:
    for path in transcript_paths(fixtures / "claude-code"):
        transcript = read_transcript(path)
        for session in transcript.sessions():
            assert session.malformed == 0, path


def test_a_real_session_with_subagents(fixtures: Path) -> None:
    transcript = real(fixtures, "cctx-cli/with-compaction/with-compaction.jsonl")
    assert transcript.session_id == "ec1e5445-0086-48e5-876e-91ada9fde9e5"
    assert transcript.tool_calls == 136
    assert transcript.unanswered == 0
    assert len(transcript.subagents) == 13
    assert all(s.agent_type for s in transcript.subagents)
    assert sum(s.tool_calls for s in transcript.subagents) == 218
    failed = [c for c in calls(transcript) if not c.ok]
    assert len(failed) == 2 and all(c.tool == "Bash" for c in failed)


def test_a_real_session_that_stops_mid_call(fixtures: Path) -> None:
    transcript = real(
        fixtures, "sniffly/-Users-chip-dev-ai-music/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
    )
    assert (transcript.tool_calls, transcript.unanswered) == (58, 1)
    assert sum(1 for c in calls(transcript) if not c.ok) == 4
    assert sum(1 for c in calls(transcript) if c.tool == "TodoWrite") == 13


def test_a_real_session_of_only_a_summary_line(fixtures: Path) -> None:
    transcript = real(
        fixtures, "sniffly/-Users-chip-dev-ai-music/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl"
    )
    assert (transcript.events, transcript.skipped, transcript.malformed) == ((), 1, 0)


def test_a_real_plan_from_taskcreate_and_taskupdate(fixtures: Path) -> None:
    transcript = real(fixtures, "cctx-cli/with-attachments/with-attachments.jsonl")
    session = Session(transcript.session_id)
    for event in transcript.events:
        session.append(event)
    plan = session[Plan].latest()
    assert plan is not None and plan.total >= 10
