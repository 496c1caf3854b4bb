"""Memories never copy a secret (specs/redaction.md): the rule-based memories ("Commands that
worked", "Commands still failing", "Errors fixed") are made from compressed lines that were
redacted before they were cut, through the real store and the extraction the worker runs."""

from __future__ import annotations

import sys
from pathlib import Path

from onlooker import FixedClock, ToolCall
from onlooker.memory import MemoryFilter
from onlooker.memory._memories import Memories
from onlooker.memory.capture import capture
from onlooker.memory.compress import PIECE, compress
from onlooker.memory.extract import MIN_EVENTS, extract_session
from onlooker.store import Store

sys.path.insert(0, str(Path(__file__).parents[1] / "text"))
import families_corpus


def _fragments(secret: str, size: int = 10) -> list[str]:
    """Pieces of the secret long enough to matter if a cut kept them."""
    return [secret[at : at + size] for at in range(0, max(1, len(secret) - size + 1))]


def test_a_secret_cut_by_the_line_length_is_redacted_before_the_cut() -> None:
    token = "ghp_" + "Ab3dEfGh1jKlMn0pQrStUvWxYz0123456789"
    command = (
        "cd /work/app/services/billing && " + "x" * 20 + f" && gh auth login --with-token {token}"
    )
    line = compress(ToolCall(tool="Bash", input={"command": command}, ok=True)).line  # type: ignore[union-attr]
    assert len(line) <= PIECE + 20
    assert not any(piece in line for piece in _fragments(token))


def test_commands_that_worked_hold_no_secret(tmp_path: Path) -> None:
    """Every Bash command line of the families corpus, captured and turned into memories by
    rule (no model), through the real store. A session keeps a few command lines
    (digest.MOST_COMMANDS), so the commands run MIN_EVENTS to a session."""
    commands = [case for case in families_corpus.CASES if case.carrier == "bash_command"]
    assert len(commands) >= 50
    clock = FixedClock()
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        for number, case in enumerate(commands):
            clock.advance(1)
            call = ToolCall(tool="Bash", input={"command": case.text}, ok=number % 3 != 0,
                            output="" if number % 3 else "Error: exit code 1", at=clock.now())  # fmt: skip
            session = f"s{number // MIN_EVENTS}"
            capture(memories, call, project="shop", session_id=session)
            if number % MIN_EVENTS == MIN_EVENTS - 1:
                extract_session(memories, None, project="shop", session_id=session, final=True)
        stored = memories.recent(MemoryFilter(projects=("shop",)), limit=1000)
    text = "\n".join(f"{m.title}\n{m.content}" for m in stored)
    lines = [m for m in stored if m.title.startswith("`")]
    assert len(lines) >= len(commands) // 2, (len(lines), len(commands))
    assert "passes" in text and "fails (1×)" in text
    leaked = [s for case in commands for s in case.secrets if any(p in text for p in _fragments(s))]
    assert leaked == []
