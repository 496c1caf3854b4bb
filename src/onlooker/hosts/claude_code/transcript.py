"""Claude Code transcript lines (~/.claude/projects/<project>/<session>.jsonl) read into events.

One JSON decode a line (`json_lines.decode_line`: the fields used, as `json.loads` gives them,
faster), a dispatch on its `type`; `iter_claude_code` says what becomes what.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from msgspec import UNSET

from ...core.clock import utc
from ...core.events import (
    EPOCH,
    OUTPUT_LIMIT,
    AssistantMessage,
    Event,
    SessionStarted,
    ToolCall,
    UserPrompt,
    clip,
)
from ...core.record_maker import maker
from ...text.clipping import clip_values
from .content import prompt_text, result_text
from .json_lines import Line, Message, decode_line

MALFORMED_KEPT = 20
"""How many malformed line numbers a tally keeps (the count is always complete)."""


@dataclass(slots=True)
class Tally:
    """What the reader did with the lines it was given; filled in while iterating."""

    lines: int = 0
    malformed: int = 0
    malformed_lines: list[int] = field(default_factory=list)
    skipped: int = 0
    unanswered: int = 0
    """tool_use blocks that never got a result (dropped)."""
    session_id: str = ""
    typed_lines: int = 0
    """Lines that were JSON objects with a string `type` (zero: probably not a transcript)."""

    def bad(self, number: int) -> None:
        self.malformed += 1
        if len(self.malformed_lines) < MALFORMED_KEPT:
            self.malformed_lines.append(number)


def iter_claude_code(
    lines: Iterable[str | bytes],
    *,
    tally: Tally | None = None,
    session_id: str = "",
    default_session_id: str = "",
    agent_id: str = "",
    agent_type: str = "",
    parent_session_id: str = "",
) -> Iterator[Event]:
    """Events from Claude Code transcript lines, as they come; `tally` receives the counts.

    `session_id` overrides the transcript's own `sessionId` (a subagent's lines carry its parent's);
    `default_session_id` is used when no line has one.

    - `user` lines with a string or text content → UserPrompt. Not prompts, and counted as skipped:
      `isMeta` lines (caveats, skill bodies), `isCompactSummary` lines (the summary Claude Code
      writes after compacting), local command output and caveats (`<local-command-stdout>`,
      `<bash-stdout>` …), "[Request interrupted by user]" notes, and Claude Code's own session
      commands (`/model`, `/clear`, `/exit` …: HOUSEKEEPING_COMMANDS). `<system-reminder>` blocks
      are cut out of prompts. Other slash commands state a task and are kept as their command
      line (`/init`, `/review 12`); a `!` shell input becomes `! command`.
    - `assistant` lines: one API message is split over several lines that share `message.id` (one
      content block per line); their text and thinking blocks make one AssistantMessage, emitted
      when the message is complete. tool_use blocks wait, by id, for their tool_result.
    - tool_result blocks (in `user` lines) → ToolCall, at the result's time, with the line's
      `toolUseResult` as `result` when it is an object (long strings clipped). Lines are not always
      in order: a result that comes before its tool_use waits for it. A tool_use still without a
      result at the end is dropped and counted (`Tally.unanswered`); a result without a tool_use is
      skipped.
    - Every other line type (`progress`, `file-history-snapshot`, `queue-operation`, `system`,
      `summary`, `attachment`, titles, unknown types) is skipped and counted. In a main session
      file, sidechain lines (`isSidechain` differing from the file's first message) are skipped too.
    - Lines that are not JSON, not an object, or have fields of the wrong type are malformed:
      counted, their line numbers kept (the first MALFORMED_KEPT), never fatal.
    - A SessionStarted (source "startup", project = last part of cwd) is made from the first line
      that has a `cwd`, or just before the first event when no line has one.
    """
    reader = _Reader(
        tally if tally is not None else Tally(),
        session_id,
        default_session_id,
        SessionStarted(
            agent_name=agent_id, agent_type=agent_type, parent_session_id=parent_session_id
        ),
    )
    out = reader.out
    for number, line in enumerate(lines, 1):
        reader.line(number, line)
        if out:
            yield from out
            out.clear()
    reader.finish()
    yield from out


@dataclass(slots=True)
class _PendingUse:
    tool: str
    input: dict[str, Any]
    timestamp: Any


class _Reader:
    """The state of one pass over a transcript."""

    __slots__ = (
        "_message_at",
        "_message_id",
        "_reasoning",
        "_sidechain",
        "_size",
        "_started",
        "_template",
        "_texts",
        "default_session_id",
        "early",
        "fixed_id",
        "index",
        "out",
        "pending",
        "seq",
        "session_id",
        "tally",
    )

    def __init__(
        self, tally: Tally, session_id: str, default_session_id: str, template: SessionStarted
    ) -> None:
        self.tally = tally
        self.session_id = session_id
        self.fixed_id = bool(session_id)
        self.default_session_id = default_session_id
        self.out: list[Event] = []
        self.pending: dict[str, _PendingUse] = {}
        self.early: dict[str, tuple[Any, dict[str, Any], Any]] = {}
        self.seq = 0
        self.index = 0
        self._template = template
        self._started = False
        self._sidechain: bool | None = None
        self._size = 0
        self._message_id: Any = None
        self._message_at: Any = None
        self._texts: list[str] = []
        self._reasoning: list[str] = []

    # -- lines -----------------------------------------------------------------------------------

    def line(self, number: int, raw: str | bytes) -> None:
        tally = self.tally
        tally.lines += 1
        self._size = len(raw)
        try:
            data = decode_line(raw)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            if raw.strip():  # a blank line is not malformed
                tally.bad(number)
            return
        if data is None:  # not an object
            tally.bad(number)
            return
        kind = data.type
        if type(kind) is not str:
            tally.bad(number)
            return
        tally.typed_lines += 1
        if not self.fixed_id:
            found = data.sessionId
            if type(found) is str and found:
                self.session_id = found
                self.fixed_id = True
        if not self._started and data.cwd is not UNSET:
            self._start(data.cwd, data.timestamp)
        if kind == "assistant" or kind == "user":
            sidechain = data.isSidechain is True
            if self._sidechain is None:
                self._sidechain = sidechain
            elif sidechain is not self._sidechain:
                tally.skipped += 1
                return
            ok = self._assistant(data) if kind == "assistant" else self._user(data)
            if not ok:
                tally.bad(number)
        else:
            tally.skipped += 1

    def finish(self) -> None:
        self._flush_message()
        self.tally.unanswered += len(self.pending)
        self.tally.skipped += len(self.early)  # results whose tool_use is not in this file
        self.pending.clear()
        self.early.clear()
        if not self.session_id:
            self.session_id = self.default_session_id
        self.tally.session_id = self.session_id

    def _assistant(self, data: Line) -> bool:
        message = data.message
        if type(message) is not Message:
            return False
        content = message.content
        message_id = message.id or data.uuid
        if message_id != self._message_id:
            self._flush_message()
            self._message_id = message_id
            self._message_at = data.timestamp
        if type(content) is str:
            self._texts.append(content)
            return True
        if type(content) is not list:
            return False
        for block in content:
            if type(block) is not dict:
                return False
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if type(text) is str:
                    self._texts.append(text)
            elif kind == "tool_use":
                call_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
                if type(call_id) is not str or type(name) is not str:
                    return False
                if type(arguments) is not dict:
                    arguments = {}
                use = _PendingUse(name, arguments, data.timestamp)
                if call_id in self.early:
                    self._call(call_id, use, *self.early.pop(call_id))
                else:
                    self.pending[call_id] = use
            elif kind == "thinking":
                thought = block.get("thinking")
                if type(thought) is str and thought:
                    self._reasoning.append(thought)
        return True

    def _user(self, data: Line) -> bool:
        message = data.message
        if type(message) is not Message:
            return False
        content = message.content
        if data.isMeta or data.isCompactSummary:
            self.tally.skipped += 1
            return type(content) is str or type(content) is list
        if type(content) is str:
            self._prompt(data.timestamp, (content,))
            return True
        if type(content) is not list:
            return False
        texts: list[str] = []
        results: list[dict[str, Any]] = []
        for block in content:
            if type(block) is not dict:
                return False
            kind = block.get("type")
            if kind == "tool_result":
                results.append(block)
            elif kind == "text":
                text = block.get("text")
                if type(text) is str:
                    texts.append(text)
        if results:
            structured = data.toolUseResult if len(results) == 1 else None
            if type(structured) is not dict:
                structured = None
            elif self._size > OUTPUT_LIMIT:  # else no string in it can be longer than the limit
                structured = clip_values(structured, clip_text=clip)
            for block in results:
                if not self._tool_result(data.timestamp, block, structured):
                    return False
        if texts or not results:
            self._prompt(data.timestamp, texts)
        return True

    # -- events ----------------------------------------------------------------------------------

    def _prompt(self, timestamp: Any, texts: Iterable[str]) -> None:
        text = "\n".join(t for t in (prompt_text(t) for t in texts) if t)
        if not text:
            self.tally.skipped += 1
            return
        self._flush_message()
        self._emit(_user_prompt, timestamp, text)

    def _tool_result(self, timestamp: Any, block: dict[str, Any], structured: Any) -> bool:
        call_id = block.get("tool_use_id")
        if type(call_id) is not str:
            return False
        use = self.pending.pop(call_id, None)
        if use is None:  # lines are not always in order: the tool_use may come later
            self.early[call_id] = (timestamp, block, structured)
            return True
        self._flush_message()
        self._call(call_id, use, timestamp, block, structured)
        return True

    def _call(
        self, call_id: str, use: _PendingUse, timestamp: Any, block: dict[str, Any], structured: Any
    ) -> None:
        text = clip(result_text(block.get("content")))
        failed = block.get("is_error") is True
        at = _time(timestamp)
        began = _time(use.timestamp)
        duration = None
        if at is not None and began is not None and at >= began:
            duration = (at - began).total_seconds() * 1000
        self.index += 1
        self._emit(
            _tool_call,
            at,
            call_id,
            use.tool,
            use.input,
            text,
            not failed,
            text if failed else None,
            duration,
            structured,
            self.index,
        )

    def _flush_message(self) -> None:
        if self._message_id is None:
            return
        text = "\n\n".join(t for t in self._texts if t.strip())
        reasoning = "\n\n".join(self._reasoning)
        at = self._message_at
        self._message_id = None
        self._texts = []
        self._reasoning = []
        if text or reasoning:
            self._emit(_assistant_message, at, text, reasoning)

    def _start(self, cwd: Any, timestamp: Any) -> None:
        cwd = cwd if type(cwd) is str else ""
        project = cwd.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        template = self._template
        self._started = True
        self._emit(
            _session_started,
            timestamp,
            "startup",
            cwd,
            project,
            template.agent_name,
            template.agent_type,
            template.parent_session_id,
        )

    def _emit(self, make: Any, timestamp: Any, *fields: Any) -> None:
        """Make an event (`make`: one of the makers below, given `fields` after the session id,
        seq and time), numbered and stamped, and queue it for the caller."""
        if not self._started:
            self._start("", timestamp)
        if not self.session_id:
            self.session_id = self.default_session_id
            self.fixed_id = True
        self.seq += 1
        at = timestamp if type(timestamp) is datetime else _time(timestamp)
        self.out.append(make(self.session_id, self.seq, at or EPOCH, *fields))


# Events made as `kind(session_id=…, seq=…, at=…, field=…)` makes them, at a third of the cost.
_STAMP = ("session_id", "seq", "at")
_CALL = ("call_id", "tool", "input", "output", "ok", "error", "duration_ms", "result", "index")
_START = ("source", "cwd", "project", "agent_name", "agent_type", "parent_session_id")
_tool_call = maker(ToolCall, *_STAMP, *_CALL)
_user_prompt = maker(UserPrompt, *_STAMP, "text")
_assistant_message = maker(AssistantMessage, *_STAMP, "text", "reasoning")
_session_started = maker(SessionStarted, *_STAMP, *_START)


def _time(value: Any) -> datetime | None:
    if type(value) is not str:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo is UTC else utc(when)  # Claude Code's `…Z` is UTC already
