"""The assistant's words read from a Claude Code transcript, a tail at a time."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from onlooker.hosts.claude_code.transcript_tail import FIRST_READ, TranscriptTails

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _line(uuid: str, message_id: str, *blocks: dict[str, object], sidechain: bool = False) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": uuid,
            "isSidechain": sidechain,
            "timestamp": "2026-11-02T08:59:00.000Z",
            "message": {"id": message_id, "role": "assistant", "content": list(blocks)},
        }
    )


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text}


def _thinking(text: str) -> dict[str, object]:
    return {"type": "thinking", "thinking": text, "signature": "x"}


def _append(path: Path, *lines: str, end: str = "\n") -> None:
    with path.open("a") as file:
        file.write("\n".join(lines) + end)


def test_each_read_takes_only_what_was_appended_since_the_last(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    prompt = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
    _append(path, prompt, _line("u1", "m1", _thinking("first I think"), _text("I will look.")))
    tails = TranscriptTails()

    (first,) = tails.new_messages(str(path), reasoning=True, now=NOW)
    assert (first.text, first.reasoning) == ("I will look.", "first I think")
    assert first.input_id == "transcript:u1"
    assert first.at == datetime(2026, 11, 2, 8, 59, tzinfo=UTC)
    assert tails.new_messages(str(path), reasoning=True, now=NOW) == []

    # a message split over lines is one message; a line still being written waits
    _append(path, _line("u2", "m2", _text("Found it.")), _line("u3", "m2", _text("Fixing.")))
    _append(path, _line("u4", "m3", _text("Half"))[:30], end="")
    (second,) = tails.new_messages(str(path), reasoning=False, now=NOW)
    assert second.text == "Found it.\n\nFixing."
    with path.open("a") as file:
        file.write(_line("u4", "m3", _text("Half written."))[30:] + "\n")
    (third,) = tails.new_messages(str(path), reasoning=False, now=NOW)
    assert third.text == "Half written."


def test_thinking_is_read_only_when_asked_and_sidechains_are_apart(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    _append(
        path,
        _line("u1", "m1", _thinking("private musing")),
        _line("u2", "m2", _text("a subagent's line"), sidechain=True),
        _line("u3", "m3", _thinking("more musing"), _text("Visible.")),
    )
    (message,) = TranscriptTails().new_messages(str(path), reasoning=False, now=NOW)
    assert (message.text, message.reasoning) == ("Visible.", "")
    (sub,) = TranscriptTails().new_messages(str(path), reasoning=True, now=NOW, sidechain=True)
    assert sub.text == "a subagent's line"


def test_a_first_read_of_a_large_transcript_takes_only_its_end(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    filler = _line("old", "old", _text("x" * 1000))
    with path.open("w") as file:
        for n in range(20_000):  # about 21 MB
            file.write(filler.replace('"old"', f'"old{n}"') + "\n")
    _append(path, _line("new", "new", _text("The newest words.")))
    tails = TranscriptTails()

    began = time.perf_counter()
    found = tails.new_messages(str(path), reasoning=True, now=NOW)
    first = time.perf_counter() - began
    assert found[-1].text == "The newest words."
    assert len(found) <= FIRST_READ // 1000 + 1
    _append(path, _line("next", "next", _text("One more.")))
    began = time.perf_counter()
    (more,) = tails.new_messages(str(path), reasoning=True, now=NOW)
    later = time.perf_counter() - began
    assert more.text == "One more."
    assert first < 0.5 and later < 0.05, (first, later)


def test_a_missing_or_shrunk_transcript_is_no_failure(tmp_path: Path) -> None:
    tails = TranscriptTails()
    assert tails.new_messages(str(tmp_path / "none.jsonl"), reasoning=True, now=NOW) == []
    assert tails.new_messages("", reasoning=True, now=NOW) == []
    path = tmp_path / "session.jsonl"
    _append(path, _line("u1", "m1", _text("One.")), _line("u2", "m2", _text("Two.")))
    assert len(tails.new_messages(str(path), reasoning=True, now=NOW)) == 2
    path.write_text(_line("u9", "m9", _text("Rewritten.")) + "\n")  # shorter than the offset
    (again,) = tails.new_messages(str(path), reasoning=True, now=NOW)
    assert again.text == "Rewritten."
