"""Through the real `onlooker hook` command, the rule observers tell the agent only what is true.

Cancelled parallel calls are no failure streak, a falling failure count is no recurring error,
and a narrow task left for work elsewhere is noted within about ten calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hook_runner import answer

SESSION = "0c5a3d1e-2b7f-4e8a-9d6c-1f2e3a4b5c6d"


def base(event: str, cwd: Path) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/-work-app/{SESSION}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "acceptEdits",
        "hook_event_name": event,
    }


def start(cwd: Path, prompt: str) -> None:
    answer({**base("SessionStart", cwd), "source": "startup"})
    answer({**base("UserPromptSubmit", cwd), "prompt": prompt})


def failed(cwd: Path, n: int, tool: str, tool_input: dict[str, Any], error: str) -> dict[str, Any]:
    return {
        **base("PostToolUseFailure", cwd),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": f"toolu_01Prec{n:04d}",
        "error": error,
        "is_interrupt": False,
    }


def used(cwd: Path, n: int, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        **base("PostToolUse", cwd),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": {"success": True},
        "tool_use_id": f"toolu_01Prec{n:04d}",
    }


def context(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_parallel_calls_cancelled_by_a_sibling_are_no_failure_streak(tmp_path: Path) -> None:
    start(tmp_path, "Explain how invoices get their numbers.")
    told = []
    for batch in range(2):
        missing = f"{tmp_path}/src/billing/numbers{batch}.py"
        told.append(
            failed(tmp_path, 10 * batch, "Read", {"file_path": missing}, "File does not exist.")
        )
        for n in range(1, 6):
            sibling = {"file_path": f"{tmp_path}/src/billing/m{n}.py"}
            told.append(
                failed(tmp_path, 10 * batch + n, "Read", sibling, "Sibling tool call errored")
            )
    contexts = [context(answer(payload)) for payload in told]
    assert not any("Error Cascade" in c or "Stall" in c for c in contexts), contexts


def test_a_falling_failure_count_is_no_recurring_error(tmp_path: Path) -> None:
    start(tmp_path, "Fix the failing cart tests.")
    command = {"command": "pytest tests/test_cart.py -q", "description": "Cart tests"}
    contexts = []
    for n in range(5, 0, -1):
        error = (
            f"Exit code 1\nFAILED tests/test_cart.py::test_{n} - TypeError\n{n} failed, 3 passed"
        )
        contexts.append(context(answer(failed(tmp_path, 2 * n, "Bash", command, error))))
        fix = {
            "file_path": f"{tmp_path}/src/cart/m{n}.py",
            "old_string": "+ 0",
            "new_string": "+ z",
        }
        contexts.append(context(answer(used(tmp_path, 2 * n + 1, "Edit", fix))))
    assert not any("Error Cascade" in c for c in contexts), contexts


def test_a_narrow_task_left_for_other_work_is_noted(tmp_path: Path) -> None:
    start(tmp_path, "Fix the typo in docs/setup.md: 'recieve' should be 'receive'.")
    doc = f"{tmp_path}/docs/setup.md"
    answer(used(tmp_path, 1, "Read", {"file_path": doc}))
    answer(used(tmp_path, 2, "Edit", {"file_path": doc, "old_string": "ie", "new_string": "ei"}))
    contexts = []
    for n in range(12):
        path = f"{tmp_path}/src/payments/m{n}.py"
        change = {"file_path": path, "old_string": "a", "new_string": "b"}
        payload = (
            used(tmp_path, 3 + n, "Edit", change)
            if n % 3 == 2
            else used(tmp_path, 3 + n, "Read", {"file_path": path})
        )
        contexts.append(context(answer(payload)))
    noted = [n for n, c in enumerate(contexts, 1) if "[Trajectory Assessment - Drift]" in c]
    assert noted and noted[0] <= 11, contexts
    assert "docs/setup.md" in contexts[noted[0] - 1]
