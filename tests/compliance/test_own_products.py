"""An agent is judged by its own work: the files its own calls wrote, the tools it used.

Two agents writing side by side each answer for their own files; what is new in the folder but
made by another agent neither passes nor appears in the reason.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from onlooker.compliance import Artifact, ComplianceRule, missing
from onlooker.compliance.products import products
from onlooker.core.events import ToolCall

RULE = ComplianceRule(
    "report-writer",
    artifacts=(Artifact("work_products/*.md", min_size=20, pattern="^# "),),
    tools=("Write",),
)
BRIEF = "# Q3 brief\n\nRevenue grew four percent.\n"


def write(root: Path, name: str, content: str, *, ok: bool = True, error: str = "") -> ToolCall:
    path = root / "work_products" / name
    if ok:
        path.parent.mkdir(exist_ok=True)
        path.write_text(content)
    return ToolCall(
        tool="Write", input={"file_path": str(path), "content": content}, ok=ok, error=error or None
    )


def test_a_file_another_agent_wrote_is_not_this_agents_product(tmp_path: Path) -> None:
    since = datetime.now(UTC) - timedelta(seconds=5)
    theirs = write(tmp_path, "q3-brief.md", BRIEF)
    assert missing(RULE, tmp_path, since=since, calls=[theirs]) == []
    assert missing(RULE, tmp_path, since=since, calls=[]) == [
        "work_products/*.md: no such file written by this agent",
        "a call of the tool Write: none was made",
    ]


def test_only_the_agents_own_wrong_products_are_named(tmp_path: Path) -> None:
    since = datetime.now(UTC) - timedelta(seconds=5)
    write(tmp_path, "q3-brief.md", BRIEF)  # another agent's, fine
    mine = write(tmp_path, "q4-outlook.md", "notes\n")
    assert missing(RULE, tmp_path, since=since, calls=[mine]) == [
        "work_products/q4-outlook.md: 6 bytes, at least 20 needed"
    ]


def test_a_refused_write_is_quoted_not_called_absent(tmp_path: Path) -> None:
    refusal = "Subagents should return findings as text, not write report files."
    refused = write(tmp_path, "REPORT.md", BRIEF, ok=False, error=refusal)
    assert missing(RULE, tmp_path, since=None, calls=[refused]) == [
        "work_products/*.md: no such file written by this agent",
        f"a call of the tool Write: none succeeded (1 failed, the last with: {refusal})",
    ]


def test_a_file_a_shell_command_of_the_agent_named_counts_once_changed(tmp_path: Path) -> None:
    since = datetime.now(UTC) - timedelta(seconds=5)
    (tmp_path / "work_products").mkdir()
    made = tmp_path / "work_products" / "notes.md"
    made.write_text(BRIEF)
    command = ToolCall(tool="Bash", input={"command": "pandoc in.txt -o work_products/notes.md"})
    rule = ComplianceRule("writer", artifacts=RULE.artifacts)
    assert missing(rule, tmp_path, since=since, calls=[command]) == []
    old = (since - timedelta(hours=1)).timestamp()
    os.utime(made, (old, old))  # named, but not changed since the agent started: not its work
    assert missing(rule, tmp_path, since=since, calls=[command]) == [
        "work_products/*.md: no such file written by this agent"
    ]


def test_what_the_calls_wrote(tmp_path: Path) -> None:
    calls = [
        write(tmp_path, "a.md", BRIEF),
        write(tmp_path, "b.md", BRIEF, ok=False),  # failed: wrote nothing
        ToolCall(tool="Edit", input={"file_path": "work_products/c.md"}),
        ToolCall(tool="Write", input={"file_path": "/etc/passwd"}),  # outside: never its product
        ToolCall(tool="Bash", input={"command": "cat > work_products/d.md <<'EOF'"}),
    ]
    made = products(calls, tmp_path)
    real = tmp_path.resolve() / "work_products"
    assert made.written == {real / "a.md", real / "c.md"}
    assert made.named == {real / "d.md"}
