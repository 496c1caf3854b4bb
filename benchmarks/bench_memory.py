"""Memory extraction cost: model calls per 100 tool events over recorded Claude Code sessions
(the fixtures and the example transcript), replayed as the hooks see them: each tool call is
captured, each new prompt follows a Stop (full batches extracted), the session's end flushes the
rest. The target: at most 7 calls per 100 tool events (per-event extraction: 100).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from onlooker.core.events import ToolCall, UserPrompt
from onlooker.hosts.recorded.transcripts import read_transcript, transcript_paths
from onlooker.memory._memories import Memories
from onlooker.memory.capture import capture
from onlooker.memory.extract import extract_session, extraction_due
from onlooker.store import Store
from onlooker.testing import ScriptedModel

from .measure import Result

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "tests" / "fixtures" / "claude-code", ROOT / "examples" / "transcripts")
TARGET_PER_100 = 7.0
REPLY = {"memories": [{"title": "A fact", "content": "What the batch showed."}]}


def replay(store: Store, path: Path, model: ScriptedModel) -> int:
    """Replay one recorded session through capture and extraction; its tool events."""
    transcript = read_transcript(path)
    memories = Memories(store)
    session, project = transcript.session_id, "bench"
    tools = 0
    prompts = 0
    events = sorted(
        (e for s in transcript.sessions() for e in s.events), key=lambda e: (e.at, e.seq)
    )
    for event in events:
        if isinstance(event, ToolCall):
            tools += 1
            capture(memories, event, project=project, session_id=session)
        elif isinstance(event, UserPrompt):
            prompts += 1
            if prompts > 1 and extraction_due(
                memories, project=project, session_id=session, final=False
            ):
                extract_session(memories, model, project=project, session_id=session, final=False)
    extract_session(memories, model, project=project, session_id=session, final=True)
    return tools


def run() -> list[Result]:
    paths = [p for root in SOURCES for p in transcript_paths(root)]
    model = ScriptedModel([REPLY])
    tools = sessions = 0
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        for path in paths:
            found = replay(store, path, model)
            sessions += found > 0
            tools += found
        stored = Memories(store).count()
    per_100 = 100 * model.calls / tools if tools else 0.0
    return [
        Result(
            "model calls per 100 tool events",
            f"{per_100:.1f}",
            f"{model.calls} calls for {tools} tool events in {sessions} recorded sessions "
            f"(target ≤ {TARGET_PER_100:g}; per-event extraction: 100)",
            per_100 <= TARGET_PER_100,
        ),
        Result("memories stored", f"{stored}", "one per batch from the scripted model"),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"  {result.name}  {result.value}  {result.note}")
