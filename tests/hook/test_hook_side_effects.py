"""Side effects through the installed hook command and a real worker process: a Write is archived
once even when its hook is sent again, a search becomes a redacted Markdown summary, Bash goes to
the activity log, and nothing is copied from outside the project."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, make_project, stop_service

import onlooker
from onlooker.daemon.worker import worker_pid
from onlooker.side_effects import JOB_KIND, Archive, Limits
from onlooker.store import SideEffectSaved, Store, project_for

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
COMMAND = f"{shlex.quote(sys.executable)} -I -S {shlex.quote(str(ENTRY))}"
SECRET = "sk-ant-api03-" + "Q" * 40
CONFIG = """
side_effects:
  rules:
    - action: save_work_product
      path: "work_products/*"
    - action: summarize_search
      tools: [WebSearch, "mcp__search__*"]
    - action: activity_log
"""


@pytest.fixture(autouse=True)
def worker(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
    yield
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


def hook(app: Path, event: str, **fields: Any) -> dict[str, Any]:
    """Run the installed hook command (`python -I -S .../entry.py`) with one input."""
    payload = {"session_id": "s-fx", "transcript_path": "/tmp/s-fx.jsonl", "cwd": str(app),
               "hook_event_name": event, **fields}  # fmt: skip
    done = subprocess.run(COMMAND, shell=True, input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def settled(home: Path, app: Path, count: int, timeout: float = 60) -> list[SideEffectSaved]:
    """What side effects recorded for `app`, once there are `count` records and no job waits."""
    deadline = time.monotonic() + timeout
    while True:
        with Store(home) as store:
            saved = store.effects.saved(project_for(app), "s-fx")
            backlog = store.jobs.backlog()
        if len(saved) >= count and backlog.queued == backlog.running == 0:
            return saved
        if time.monotonic() > deadline:
            log = home / "logs" / "worker.log"
            raise AssertionError(f"saved: {saved}; {log.read_text() if log.exists() else ''}")
        time.sleep(0.05)


def test_a_write_is_archived_once_even_when_its_hook_comes_again(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG, "work_products/report.md": "# Q3\n"})
    write = {"tool_name": "Write", "tool_use_id": "toolu_w1",
             "tool_input": {"file_path": f"{app}/work_products/report.md", "content": "# Q3\n"},
             "tool_response": {"type": "create", "filePath": f"{app}/work_products/report.md"}}  # fmt: skip
    assert hook(app, "PostToolUse", **write) == {}
    assert hook(app, "PostToolUse", **write) == {}  # the client gave up and Claude Code resent it
    stop_service(onlooker_home)  # a new service process: the session is loaded from the store
    assert hook(app, "PostToolUse", **write) == {}
    (app / "notes.md").write_text("# not a work product\n")
    hook(app, "PostToolUse", tool_name="Write", tool_use_id="toolu_w2",
         tool_input={"file_path": f"{app}/notes.md", "content": "x"})  # fmt: skip

    saved = settled(onlooker_home, app, 1)
    assert [(s.action, s.path, s.call_id) for s in saved] == [
        ("save_work_product", "files/work_products/report.md", "toolu_w1")
    ]
    folder = Archive(onlooker_home / "archive", project_for(app), "s-fx", Limits()).folder
    assert (folder / "files/work_products/report.md").read_text() == "# Q3\n"
    assert sorted(p.name for p in (folder / "files/work_products").iterdir()) == ["report.md"]
    with Store(onlooker_home) as store:
        assert store.jobs.counts() == {"done": 1}  # one job: the replays queued nothing
    listed = subprocess.run([ONLOOKER, "side-effects", "--project", "app", "--json"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    entries = json.loads(listed.stdout)["saved"]
    assert [(e["path"], e["archive"]) for e in entries] == [
        ("files/work_products/report.md", str(folder))
    ]


def test_search_summary_and_activity_log_are_redacted_and_nothing_leaves_the_project(
    tmp_path: Path, onlooker_home: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("private\n")
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG})
    (app / "work_products").mkdir()
    (app / "work_products" / "link.md").symlink_to(outside)
    results = {"results": [
        {"title": "Quarterly numbers", "url": "https://example.com/q3", "snippet": "Revenue up"},
        {"title": "Key leak", "url": "https://example.com/k", "snippet": f"token {SECRET}"},
    ]}  # fmt: skip
    hook(app, "PostToolUse", tool_name="mcp__search__web", tool_use_id="toolu_s1",
         tool_input={"query": "q3 revenue"}, tool_response=results)  # fmt: skip
    hook(app, "PostToolUse", tool_name="Bash", tool_use_id="toolu_b1",
         tool_input={"command": f"ANTHROPIC_API_KEY={SECRET} make report"},
         tool_response={"stdout": "built report.pdf", "stderr": ""})  # fmt: skip
    hook(app, "PostToolUse", tool_name="Write", tool_use_id="toolu_l1",
         tool_input={"file_path": f"{app}/work_products/link.md", "content": "x"})  # fmt: skip

    saved = {s.action: s for s in settled(onlooker_home, app, 3)}
    folder = Archive(onlooker_home / "archive", project_for(app), "s-fx", Limits()).folder
    summary = (folder / saved["summarize_search"].path).read_text()
    assert saved["summarize_search"].path.startswith("search_results/summary_")
    assert "# mcp__search__web: q3 revenue" in summary
    assert "- [Quarterly numbers](https://example.com/q3)\n  Revenue up" in summary
    log = (folder / "workbench_activity/activity.log").read_text()
    assert "make report" in log and "built report.pdf" in log
    everything = "".join(p.read_text() for p in folder.rglob("*") if p.is_file())
    assert SECRET not in everything
    assert saved["save_work_product"].path == ""
    assert "outside the project" in saved["save_work_product"].note
    assert "private" not in everything and not (folder / "files").exists()
    with Store(onlooker_home) as store:
        assert [j for j in (store.jobs.counts())] == ["done"]
        assert store.jobs.failures(kind=JOB_KIND)[0] == 0


def test_doctor_reports_side_effect_jobs_that_failed_for_good(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        store.enqueue(JOB_KIND, {"call": {"kind": "user_prompt"}}, project="app")
        job = store.jobs.claim("test:1")
        assert job is not None
        store.jobs.fail(job, "SideEffectError: a side-effect job holds a user_prompt", retry=False)
    done = subprocess.run([ONLOOKER, "doctor", "--json"], capture_output=True, text=True)
    assert done.returncode == 1 and json.loads(done.stdout)["healthy"] is False
    jobs = json.loads(done.stdout)["store"]["jobs"]
    assert jobs["side_effects_failed"] == 1
    assert jobs["side_effect_failures"] == [
        "SideEffectError: a side-effect job holds a user_prompt"
    ]
    text = subprocess.run([ONLOOKER, "doctor"], capture_output=True, text=True).stdout
    assert "side effects   1 failed for good" in text
    assert text.startswith("onlooker doctor: needs attention")


TOOLS = (
    Path(__file__).parents[1]
    / "fixtures/claude-code/claude-code-log/dev-docs/messages/claude-code/tools"
)


def recorded_call(tool: str) -> dict[str, Any]:
    """A PostToolUse payload as Claude Code sends it for a recorded call of `tool`: its
    tool_use's input and the structured result (`toolUseResult`) as `tool_response`."""
    use = json.loads((TOOLS / f"{tool}-tool_use.jsonl").read_text())
    result = json.loads((TOOLS / f"{tool}-tool_result.jsonl").read_text())
    (block,) = use["message"]["content"]
    return {"tool_name": tool, "tool_use_id": block["id"], "tool_input": block["input"],
            "tool_response": result["toolUseResult"]}  # fmt: skip


def test_web_fetch_and_web_search_summaries_read_as_what_the_agent_saw(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = make_project(tmp_path, {"onlooker.yaml": "side_effects:\n  rules:\n"
                                  "    - action: summarize_search\n"})  # fmt: skip
    fetch, search = recorded_call("WebFetch"), recorded_call("WebSearch")
    hook(app, "PostToolUse", **fetch)
    hook(app, "PostToolUse", **search)

    saved = {s.tool: s for s in settled(onlooker_home, app, 2)}
    folder = Archive(onlooker_home / "archive", project_for(app), "s-fx", Limits()).folder
    fetched = (folder / saved["WebFetch"].path).read_text()
    assert fetched.startswith("# WebFetch: https://docs.github.com/en/rest/pulls/comments\n")
    assert "- prompt: What fields are returned in the response" in fetched
    assert "## What it returned" in fetched
    assert '- `diff_hunk` - "The diff of the line that the comment refers to"' in fetched
    searched = (folder / saved["WebSearch"].path).read_text()
    assert searched.startswith(f"# WebSearch: {search['tool_input']['query']}\n")
    first = search["tool_response"]["results"][0]["content"][0]
    assert f"- [{first['title']}]({first['url']})" in searched
    assert "I found information about the GitHub API pull request comments" in searched
    for summary in (fetched, searched):  # the tool's JSON is read, never pasted
        assert not any(key in summary for key in ('"codeText"', '"bytes"', '"tool_use_id"',
                                                  '{"', '\\n'))  # fmt: skip
