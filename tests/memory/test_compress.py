"""Tool events compressed by rule, one line each, exactly as specs/memory.md's table; low-value tools
skipped; nothing is kept beyond the line."""

from __future__ import annotations

from typing import Any

import pytest

from onlooker import ToolCall
from onlooker.memory import SKIPPED_TOOLS, compress


def call(tool: str, input: dict[str, Any], *, ok: bool = True, **kw: Any) -> ToolCall:
    return ToolCall(tool=tool, input=input, ok=ok, **kw)


READ = call(
    "Read",
    {"file_path": "/src/auth.ts"},
    result={"type": "text", "file": {"filePath": "/src/auth.ts", "numLines": 245}},
)
TABLE = [
    (READ, "Read /src/auth.ts (245 lines)"),
    (
        call("Edit", {"file_path": "/src/auth.ts", "old_string": "old_string", "new_string": "new_string"}),
        "Edited /src/auth.ts: old_string → new_string",
    ),
    (
        call("Write", {"file_path": "/src/auth.ts", "content": "x\n" * 120}, result={"type": "create"}),
        "Created /src/auth.ts (120 lines)",
    ),
    (call("Bash", {"command": "npm test"}, output="ok"), "Ran `npm test` → exit 0"),
    (
        call("Bash", {"command": "npm test"}, ok=False,
             error="Exit code 1\n> jest\nFAIL src/auth.test.ts\nError: expected 200, got 401\n"),
        "Ran `npm test` → exit 1: FAIL src/auth.test.ts",
    ),
    (
        call("Grep", {"pattern": "pattern", "path": "/src"}, result={"mode": "content", "numLines": 5}),
        "Searched 'pattern' in /src → 5 matches",
    ),
    (call("WebSearch", {"query": "query text"}), "Searched: query text"),
    (call("WebFetch", {"url": "https://example.com/docs/page?x=1", "prompt": "p"}), "Fetched example.com"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("event", "line"), TABLE, ids=[t[0].tool + str(i) for i, t in enumerate(TABLE)]
)
def test_the_compression_table(event: ToolCall, line: str) -> None:
    found = compress(event)
    assert found is not None and found.line == line and "\n" not in found.line


def test_files_are_kept_for_file_tools() -> None:
    assert compress(READ).files == ("/src/auth.ts",)  # type: ignore[union-attr]
    assert compress(call("Bash", {"command": "ls"})).files == ()  # type: ignore[union-attr]


def test_bash_exit_code_and_summary_come_from_the_error() -> None:
    failed = call(
        "Bash", {"command": "make build"}, ok=False, error="Exit code 2\nmake: *** [all] Error 2"
    )
    assert compress(failed).line == "Ran `make build` → exit 2: make: *** [all] Error 2"  # type: ignore[union-attr]
    traceback = (
        'Exit code 1\nTraceback (most recent call last):\n  File "greet.py", line 1, in <module>\n'
        "    print(name)\nNameError: name 'name' is not defined"
    )
    crashed = call("Bash", {"command": "python3 greet.py"}, ok=False, error=traceback)
    assert compress(crashed).line == (  # type: ignore[union-attr]
        "Ran `python3 greet.py` → exit 1: NameError: name 'name' is not defined"
    )
    quiet = call("Bash", {"command": "false"}, ok=False, error="Exit code 1")
    assert compress(quiet).line == "Ran `false` → exit 1: no output"  # type: ignore[union-attr]


def test_long_inputs_are_cut_to_one_short_line() -> None:
    edit = call("Edit", {"file_path": "/a.py", "old_string": "x = 1\n" * 100, "new_string": "y"})
    line = compress(edit).line  # type: ignore[union-attr]
    assert len(line) < 120 and "\n" not in line and "…" in line


def test_grep_counts_from_the_result_or_the_output() -> None:
    files = call("Grep", {"pattern": "TODO"}, result={"mode": "files_with_matches", "numFiles": 3})
    assert compress(files).line == "Searched 'TODO' → 3 matches"  # type: ignore[union-attr]
    plain = call("Grep", {"pattern": "TODO", "path": "src"}, output="a.py\nb.py\n")
    assert compress(plain).line == "Searched 'TODO' in src → 2 matches"  # type: ignore[union-attr]


@pytest.mark.parametrize("tool", sorted(SKIPPED_TOOLS))
def test_low_value_tools_are_skipped(tool: str) -> None:
    assert compress(call(tool, {"todos": []})) is None


def test_the_skip_list_is_complete() -> None:
    assert {
        "Glob", "LSP", "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet",
        "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "NotebookEdit", "Skill",
    } == SKIPPED_TOOLS  # fmt: skip


def test_other_tools_and_failures_get_one_line() -> None:
    task = call("Task", {"description": "Find the login handler", "prompt": "..."})
    assert compress(task).line == "Task: Find the login handler"  # type: ignore[union-attr]
    missing = call(
        "Read",
        {"file_path": "/nope.py"},
        ok=False,
        error="File does not exist.",
        output="File does not exist.",
    )
    assert compress(missing).line == "Read /nope.py → failed: File does not exist."  # type: ignore[union-attr]


OPENCODE = [
    (call("bash", {"command": "npm test", "description": "Run the tests"}, output="ok"),
     "Ran `npm test` → exit 0"),
    (call("bash", {"command": "npm test", "description": "Run the tests"}, ok=False,
          error="FAIL src/auth.test.ts\nError: expected 200, got 401\n"),
     "Ran `npm test` → exit 1: FAIL src/auth.test.ts"),
    (call("edit", {"filePath": "/src/auth.ts", "oldString": "a", "newString": "b"}),
     "Edited /src/auth.ts: a → b"),
    (call("write", {"filePath": "/src/auth.ts", "content": "x\n" * 3}),
     "Created /src/auth.ts (3 lines)"),
    (call("read", {"filePath": "/src/auth.ts"}, output="1: a\n2: b\n"),
     "Read /src/auth.ts (2 lines)"),
    (call("webfetch", {"url": "https://example.com/a", "format": "text"}), "Fetched example.com"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("event", "line"), OPENCODE, ids=[t[0].tool + str(i) for i, t in enumerate(OPENCODE)]
)
def test_opencode_tools_read_as_the_claude_code_tools_they_match(
    event: ToolCall, line: str
) -> None:
    found = compress(event)
    assert found is not None and found.line == line
    assert found.tool_name == event.tool.title() or found.tool_name == "WebFetch"
    for skipped in ("todowrite", "glob", "list"):
        assert compress(call(skipped, {"pattern": "*.py"})) is None


def test_an_opencode_edit_names_its_file() -> None:
    edit = compress(call("edit", {"filePath": "/src/a.py", "oldString": "a", "newString": "b"}))
    assert edit is not None and edit.files == ("/src/a.py",)
