"""`onlooker mcp` over stdio: `read` serves transcripts under the known roots and nothing else."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from mcp_harness import McpServer

SESSION = "0b6d1d0e-7f55-4a3e-9a51-3c1f1d2b8e11"
SECRET = "sk-ant-api03-" + "A" * 40


def claude_transcript(server: McpServer, fixtures: Path) -> Path:
    folder = server.projects / "-work-demo"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{SESSION}.jsonl"
    shutil.copy(fixtures / "transcripts" / f"{SESSION}.jsonl", target)
    return target


def numbered(server: McpServer, name: str, lines: int) -> Path:
    folder = server.projects / "-work-numbered"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    rows = (
        {"type": "user", "message": {"role": "user", "content": f"prompt {n}"}}
        for n in range(1, lines + 1)
    )
    target.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return target


def test_reads_a_claude_code_transcript_as_markdown(server: McpServer, fixtures: Path) -> None:
    path = claude_transcript(server, fixtures)
    total = len(path.read_text().splitlines())
    answer = server.data("read", {"path": str(path), "startLine": 2, "endLine": 4})
    assert (answer["start_line"], answer["end_line"], answer["total_lines"]) == (2, 4, total)
    assert answer["root"] == "claude-code"
    assert answer["next_start_line"] == 5
    text = answer["text"]
    headings = [line.split()[1] for line in text.splitlines() if line.startswith("### ")]
    assert headings == ["2", "3", "4"]
    result = server.call("read", {"path": str(path), "startLine": 2, "endLine": 4})
    assert result.content[0].text.startswith(f"# {path} (lines 2-4 of {total})")


def test_relative_paths_and_raw_lines(server: McpServer, fixtures: Path) -> None:
    path = claude_transcript(server, fixtures)
    relative = server.data("read", {"path": f"-work-demo/{SESSION}.jsonl", "endLine": 1})
    assert relative["path"] == str(path.resolve())
    raw = server.data("read", {"path": str(path), "startLine": 1, "endLine": 2, "format": "raw"})
    assert raw["text"].splitlines() == path.read_text().splitlines()[:2]


def test_reads_an_onlooker_journal(server: McpServer) -> None:
    server.data(
        "observations",
        {
            "operation": "create_batch",
            "observations": [{"observer": "drift", "content": "Edits outside the plan"}],
        },
    )
    answer = server.data("read", {"path": f"journals/{server.project}/_manual.jsonl"})
    assert answer["root"] == "onlooker"
    assert "Edits outside the plan" in answer["text"]
    assert answer["text"].startswith("### 1 · finding_created")


def test_secrets_are_redacted(server: McpServer) -> None:
    folder = server.projects / "-work-secret"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s.jsonl"
    line = {
        "type": "user",
        "message": {"role": "user", "content": f"use ANTHROPIC_API_KEY={SECRET}"},
    }
    path.write_text(json.dumps(line) + "\n")
    for form in ("markdown", "raw"):
        result = server.call("read", {"path": str(path), "format": form})
        assert not result.is_error
        assert SECRET not in result.content[0].text
        assert SECRET not in json.dumps(result.structured_content)
        assert "[REDACTED:" in result.content[0].text


def test_long_reads_stop_at_500_lines_and_say_where_to_go_on(server: McpServer) -> None:
    path = numbered(server, "long.jsonl", 700)
    first = server.data("read", {"path": str(path), "startLine": 1, "endLine": 700})
    assert (first["end_line"], first["next_start_line"]) == (500, 501)
    default = server.data("read", {"path": str(path), "startLine": 601})
    assert (default["end_line"], default["next_start_line"]) == (700, None)
    past = server.data("read", {"path": str(path), "startLine": 800})
    assert past["end_line"] == 799 and "none from line 800" in past["text"]


def test_refuses_paths_outside_the_roots(server: McpServer, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"type": "user", "message": {"content": "private"}}\n')
    link_folder = server.projects / "-work-links"
    link_folder.mkdir(parents=True, exist_ok=True)
    link = link_folder / "escape.jsonl"
    if not link.is_symlink():
        os.symlink(outside, link)
    (link_folder / "notes.txt").write_text("not a transcript\n")
    dotted = str(server.projects / ".." / ".." / ".." / outside.relative_to(outside.anchor))
    refused = {
        "/etc/passwd": "outside the transcript folders",
        str(outside): "outside the transcript folders",
        dotted: "outside the transcript folders",
        "../../outside.jsonl": "outside the transcript folders",
        str(link): "outside the transcript folders",
        str(link_folder / "missing.jsonl"): "no such transcript",
        str(link_folder / "notes.txt"): "only .jsonl",
        str(server.projects): "outside the transcript folders",
        str(server.claude / ".claude.json"): "outside the transcript folders",
    }
    for path, reason in refused.items():
        answer = server.refusal("read", {"path": path})
        assert answer["field"] == "path", path
        assert reason in answer["error"], (path, answer["error"])
    folder_as_file = link_folder / "dir.jsonl"
    folder_as_file.mkdir(exist_ok=True)
    assert "not a file" in server.refusal("read", {"path": str(folder_as_file)})["error"]


def test_refuses_bad_line_numbers_and_arguments(server: McpServer) -> None:
    path = str(numbered(server, "short.jsonl", 3))
    cases = [
        ({"path": path, "startLine": 0}, "startLine"),
        ({"path": path, "startLine": 3, "endLine": 2}, "endLine"),
        ({"path": path, "startLine": "2"}, "startLine"),
        ({"path": path, "startLine": True}, "startLine"),
        ({"path": path, "format": "html"}, "format"),
        ({"path": ""}, "path"),
        ({}, "path"),
        ({"path": path, "lines": 3}, "lines"),
    ]
    for arguments, field in cases:
        assert server.refusal("read", arguments)["field"] == field, arguments
