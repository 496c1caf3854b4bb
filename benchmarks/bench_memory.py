"""Memory extraction cost: model calls and input tokens per 100 tool events over recorded Claude
Code sessions (the fixtures and the example transcript), replayed as the hooks see them: each
tool call is captured (paths relative to the session's project), each new prompt follows a Stop
(full batches extracted), the session's end flushes the rest. Targets: at most 7 calls (per-event
extraction: 100) and 4,000 input tokens per 100 tool events.

Input tokens are what the `claude-code:` provider sends, estimated at 4 characters a token: the
system prompt with its JSON instruction and the batch's events, plus what Claude Code adds to every
request of its own (its system lines and environment block), measured by one run of the real CLI
against the scripted endpoint (counted as 0, and said so, when the CLI is not installed).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.hosts.recorded.transcripts import read_transcript, transcript_paths
from onlooker.llm.call import with_json_instruction
from onlooker.memory._memories import Memories
from onlooker.memory.capture import capture
from onlooker.memory.extract import SCHEMA, extract_session, extraction_due
from onlooker.memory.inject import estimate_tokens
from onlooker.store import Store
from onlooker.testing import ScriptedModel

from .claude_code_overhead import cli_overhead_tokens
from .measure import Result

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "tests" / "fixtures" / "claude-code", ROOT / "examples" / "transcripts")
TARGET_PER_100 = 7.0
TARGET_TOKENS_PER_100 = 4_000
REPLY = {
    "memories": [
        {
            "title": "Integration tests need the local database running first",
            "content": "tests/integration fail with a connection error until `docker compose up "
            "-d db` has run; the unit tests do not need it. Run them with `pytest -q`.",
        }
    ]
}
"""An answer of a realistic length (the next batch is shown the titles of the last ones)."""


def replay(store: Store, path: Path, model: ScriptedModel | None, project: str = "bench") -> int:
    """Replay one recorded session through capture and extraction (by rule when `model` is
    None); its tool events."""
    transcript = read_transcript(path)
    memories = Memories(store)
    session = transcript.session_id
    tools = 0
    prompts = 0
    root = ""
    events = sorted(
        (e for s in transcript.sessions() for e in s.events), key=lambda e: (e.at, e.seq)
    )
    for event in events:
        if isinstance(event, SessionStarted) and not root:
            root = event.cwd
        if isinstance(event, ToolCall):
            tools += 1
            capture(memories, event, project=project, session_id=session, root=root)
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
    sent = sum(
        estimate_tokens(
            "\n".join(m.content for m in with_json_instruction(list(r.messages), SCHEMA))
        )
        for r in model.requests
    )
    overhead, measured = cli_overhead_tokens()
    tokens = 100 * (sent + overhead * model.calls) / tools if tools else 0.0
    return [
        Result(
            "model calls per 100 tool events",
            f"{per_100:.1f}",
            f"{model.calls} calls for {tools} tool events in {sessions} recorded sessions "
            f"(target ≤ {TARGET_PER_100:g}; per-event extraction: 100)",
            per_100 <= TARGET_PER_100,
        ),
        Result(
            "input tokens per 100 tool events",
            f"{tokens:,.0f}",
            f"{sent:,} prompt tokens + {overhead} a call added by Claude Code ({measured}) "
            f"(target ≤ {TARGET_TOKENS_PER_100:,})",
            tokens <= TARGET_TOKENS_PER_100,
        ),
        Result("memories stored", f"{stored}", "one per batch from the scripted model"),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"  {result.name}  {result.value}  {result.note}")
