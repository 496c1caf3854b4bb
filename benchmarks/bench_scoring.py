"""Session scoring: judge calls per 100 sessions (through Claude Code's hook handler, so the
debounce is the real one), the judge's prompt size at each detail level on a realistic session, and
apply / rollback latency through the observer commands side by side with the bare file writer.

Tokens are estimated as characters / 4 (no tokenizer offline); the ratios between detail levels are
what to watch.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from onlooker.core.events import SessionStarted, TurnEnded, UserPrompt
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.improvement import InstructionTarget, apply_instructions, rollback
from onlooker.scoring import (
    DETAIL_LEVELS,
    JOB_KIND,
    ObserverCommands,
    ScorerInput,
    ScoringSettings,
    ToolUse,
    eval_messages,
    score_session,
)
from onlooker.scoring.run import settings_from
from onlooker.store import Store
from onlooker.testing import ScriptedModel

from .measure import Result, report

SESSIONS = 100
TURNS = 4
"""Turns (prompt, tool calls, Stop) per session."""
RUNS = 20
NAMES = ("instruction_following", "completeness", "proactiveness", "code_quality", "communication")


def card(score: float, weaknesses: list[str]) -> dict[str, Any]:
    return {"overall_score": score, "categories": dict.fromkeys(NAMES, score),
            "strengths": ["clear"], "weaknesses": weaknesses}  # fmt: skip


def judge_calls(root: Path, sessions: int) -> tuple[int, int, int]:
    """(Stops and ends the hooks saw, judge calls the worker made, calls on a second pass)."""
    (root / "proj" / ".onlooker").mkdir(parents=True)
    (root / "proj" / ".onlooker" / "config.yaml").write_text(
        "scoring:\n  model: openai:gpt-4o-mini\n"
    )
    model = ScriptedModel([card(0.8, [])])
    ends = 0
    with Store(root / "home") as store:
        handler = HookHandler(store, wake_worker=lambda home: None)
        for n in range(sessions):

            def hook(name: str, n: int = n, **fields: Any) -> None:
                raw = {"hook_event_name": name, "session_id": f"s{n}",
                       "cwd": str(root / "proj"), **fields}  # fmt: skip
                handler.handle(json.dumps(raw).encode())

            hook("SessionStart", source="startup")
            for turn in range(TURNS):
                hook("UserPromptSubmit", prompt=f"step {turn}")
                hook("PostToolUse", tool_name="Bash", tool_use_id=f"t{turn}",
                     tool_input={"command": "pytest"}, tool_response={"stdout": "ok"})  # fmt: skip
                hook("Stop", stop_hook_active=False, last_assistant_message="Done.")
            hook("SessionEnd", reason="other")
            ends += TURNS + 1
        handler.close()
        first = _run_jobs(store, model)
        for n in range(sessions):  # the worker again, every session: nothing new to score
            payload = {"project": "proj", "session_id": f"s{n}", "settings": {"model": "x"}}
            _score(store, model, payload)
        return ends, first, model.calls - first


def _run_jobs(store: Store, model: ScriptedModel) -> int:
    while (job := store.jobs.claim("bench")) is not None:
        if job.kind == JOB_KIND:  # (the other jobs, memory extraction, are not this benchmark's)
            _score(store, model, job.payload)
        store.jobs.complete(job)
    return model.calls


def _score(store: Store, model: ScriptedModel, payload: dict[str, Any]) -> None:
    score_session(store, model, project=str(payload["project"]),
                  session_id=str(payload["session_id"]), root=None,
                  settings=settings_from(dict(payload["settings"])), automatic=True)  # fmt: skip


def realistic_session() -> ScorerInput:
    """A session of 30 tool calls with outputs of 0.3-6 KB, a 4 KB AGENTS.md, a 1 KB prompt."""
    calls = []
    for n in range(30):
        tool = ("Read", "Bash", "Edit", "Grep")[n % 4]
        args = json.dumps({"file_path": f"src/pkg/module_{n}.py", "limit": 400})
        calls.append(ToolUse(tool, args, f"line {n} of output: " * (20 + 25 * (n % 10))))
    return ScorerInput(
        session_id="bench", instruction="Refactor the parser into modules, keep tests green. " * 4,
        response="I split the parser into three modules and ran the tests: all pass. " * 10,
        tool_calls=tuple(calls), agents_md="- Keep functions short and tested.\n" * 110,
        agent_prompt="You are the build agent. Prefer small diffs.\n" * 24, agent_name="build",
    )  # fmt: skip


def prompt_tokens(given: ScorerInput) -> dict[str, int]:
    sizes = {}
    for level in DETAIL_LEVELS:
        text = "".join(m.content for m in eval_messages(given, level, nonce="0" * 16))
        sizes[level] = len(text) // 4
    return sizes


def median_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def apply_latency(root: Path, runs: int) -> tuple[float, float, float, float]:
    """(accept, rollback) through ObserverCommands, then apply, rollback with the bare writer."""
    project = root / "latency"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Rules\n" + "- Keep the build green.\n" * 150)
    settings = ScoringSettings(model="scripted:j", backup_max_versions=runs + 5)
    groups = -(-runs // 5)  # a judge names at most 5 weaknesses; each needs 3 low sessions
    model = ScriptedModel(
        [
            card(0.2, [f"misses{g}{k} case{g}{k} rule{g}{k}" for k in range(5)])
            for g in range(groups)
            for _ in "abc"
        ]
    )
    with Store(root / "home2") as store:
        for n in range(3 * groups):
            at = store.clock.now()
            store.append([SessionStarted(session_id=f"w{n}", seq=1, at=at, source="startup"),
                          UserPrompt(session_id=f"w{n}", seq=2, at=at, text="go"),
                          TurnEnded(session_id=f"w{n}", seq=3, at=at)],
                         project="latency", session_id=f"w{n}")  # fmt: skip
            score_session(store, model, project="latency", session_id=f"w{n}", root=project,
                          settings=settings, automatic=True)  # fmt: skip
        commands = ObserverCommands(store, "latency", project, settings)
        accept = median_ms(lambda: commands.accept(1), runs)
        back = median_ms(lambda: commands.rollback(), runs)
    target = InstructionTarget.project(project)
    counter = iter(range(10**6))
    bare_apply = median_ms(lambda: apply_instructions(target, [f"bare {next(counter)}"]), runs)
    bare_back = median_ms(lambda: rollback(target), runs)
    return accept, back, bare_apply, bare_back


def run(sessions: int = SESSIONS, runs: int = RUNS) -> list[Result]:
    with tempfile.TemporaryDirectory() as folder:
        ends, calls, again = judge_calls(Path(folder), sessions)
        accept, back, bare_apply, bare_back = apply_latency(Path(folder), runs)
    per_100 = calls * 100 / sessions
    tokens = prompt_tokens(realistic_session())
    results = [
        Result("turn/session ends seen", f"{ends}", f"{sessions} sessions × {TURNS} Stops + end"),
        Result(
            "judge calls per 100 sessions",
            f"{per_100:.0f}",
            "debounced: target 100",
            per_100 == 100,
        ),
        Result("calls ÷ ends", f"{calls / ends:.2f}", "without the debounce: 1.00"),
        Result("re-run with nothing new", f"{again} calls", "target 0", again == 0),
    ]
    results += [
        Result(f"tokens per score, {level}", f"~{n:,}", "prompt, chars / 4")
        for level, n in tokens.items()
    ]
    results += [
        Result("thorough ÷ minimal tokens", f"{tokens['thorough'] / tokens['minimal']:.1f}×"),
        Result("accept N (p50)", f"{accept:.2f} ms", "observer command: store + file writer"),
        Result("rollback (p50)", f"{back:.2f} ms", "observer command: store + file writer"),
        Result(
            "bare apply / rollback (p50)",
            f"{bare_apply:.2f} / {bare_back:.2f} ms",
            "onlooker.improvement alone",
        ),
        Result("accept ÷ bare apply", f"{accept / bare_apply:.1f}×", "the commands' overhead"),
    ]
    return results


def main(argv: list[str]) -> int:
    """`python -m benchmarks.bench_scoring [sessions]`"""
    return report(run(int(argv[0]) if argv else SESSIONS))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
