"""Drift when a task about one module is done and the work spreads; quiet when the task led there.

The ground is the task's own files (no top folder shared with the whole package), the task's
searches and failures lead to files, and looking back at the task's check is no return to it.
"""

from __future__ import annotations

from onlooker import Dispatch, Engine, FixedClock, Session, SessionStarted, ToolCall, UserPrompt
from onlooker.core.events import Event
from onlooker.observers.drift import DriftObserver
from onlooker.observers.task_leads import leads, output_paths, task_leads
from onlooker.observers.task_scope import prompt_stems, task_ground

ROOT = "/repo"
PROMPT = "The retry backoff in src/shipit/http/retry.py doubles the delay. Fix it."


def call(tool: str, output: str = "", ok: bool = True, **arguments: str) -> ToolCall:
    return ToolCall(tool=tool, input=dict(arguments), output=output, ok=ok)


def read(path: str) -> ToolCall:
    return call("Read", "...", file_path=f"{ROOT}/{path}")


def edit(path: str) -> ToolCall:
    return call("Edit", "ok", file_path=f"{ROOT}/{path}", old_string="a", new_string="b")


def bash(command: str, output: str = "", ok: bool = True) -> ToolCall:
    return call("Bash", output, ok, command=command)


def task_done() -> list[Event]:
    return [
        SessionStarted(cwd=ROOT),
        UserPrompt(text=PROMPT),
        read("src/shipit/http/retry.py"),
        read("tests/http/test_retry.py"),
        edit("src/shipit/http/retry.py"),
        bash("python -m pytest tests/http/test_retry.py -q", "7 passed"),
    ]


MODULES = ("cli/main", "store/sqlite", "report/html", "config/schema", "auth/tokens", "x/y")


def spread() -> list[Event]:
    return [step(f"src/shipit/{m}.py") for m in MODULES for step in (read, edit)]


def told(events: list[Event], clock: FixedClock) -> list[tuple[int, str]]:
    engine = Engine([DriftObserver()], session=Session("s"), clock=clock)
    results: list[Dispatch] = [engine.dispatch(event) for event in events]
    return [
        (r.event.index, r.assessments[0].findings[0].content)
        for r in results
        if r.assessments and isinstance(r.event, ToolCall)
    ]


def test_a_fix_in_one_module_then_edits_across_its_package_is_drift(clock: FixedClock) -> None:
    """Every path is under src/shipit/: sharing that folder ties nothing to the task."""
    found = told(task_done() + spread(), clock)
    assert found, "the spread was missed"
    index, content = found[0]
    assert index == 14  # the tenth call away
    assert content.startswith("The last 10 calls that name files all work on paths unrelated")
    assert "src/shipit/http/retry.py" in content


def test_looking_back_at_the_tasks_check_is_no_return(clock: FixedClock) -> None:
    again = bash("python -m pytest tests/http/test_retry.py -q", "7 passed")
    events = spread()
    for at in (9, 5, 2):
        events.insert(at, again)
    found = told(task_done() + events, clock)
    assert found, "passing over the checks, the spread was missed"
    index, content = found[0]
    assert index <= 17
    assert " of the last " in content  # the checks between are counted, not hidden


def test_a_search_for_the_tasks_words_leads_wherever_it_lists(clock: FixedClock) -> None:
    users = [f"src/shipit/{m}.py" for m in MODULES]
    listing = "\n".join(f"{u}:3:from shipit.http.retry import backoff" for u in users)
    search = call("Grep", listing, pattern="shipit.http.retry")
    assert told([*task_done(), search, *spread()], clock) == []
    unrelated = call("Grep", listing, pattern="TODO")
    assert told([*task_done(), unrelated, *spread()], clock) != []


def test_a_failing_run_leads_to_what_it_names(clock: FixedClock) -> None:
    failures = "\n".join(f"FAILED src/shipit/{m}.py::test_x - KeyError" for m in MODULES)
    suite = bash("python -m pytest -q", failures, ok=False)
    assert told([*task_done(), suite, *spread()], clock) == []


def test_what_leads() -> None:
    ground = task_ground(PROMPT, (f"{ROOT}/src/shipit/http/retry.py",), (), ROOT)
    assert leads(call("Grep", pattern="retry_after"), ground)
    assert leads(bash("git grep -n 'backoff('"), ground)
    assert not leads(call("Grep", pattern="TODO|FIXME"), ground)
    assert leads(bash("mypy src", "src/a.py:1: error", ok=False), ground)
    assert leads(bash("pytest tests/http/test_retry.py", "", ok=False), ground)
    assert not leads(bash("pytest tests/web/test_pages.py", "", ok=False), ground)
    assert not leads(bash("pytest -q", "1 passed"), ground)  # passing: points nowhere
    found = task_leads([bash("git grep backoff", "src/a.py:1:backoff\n/etc/x.py:2:")], ground)
    assert found == {f"{ROOT}/src/a.py": 0, "/etc/x.py": 0}


def test_paths_in_output() -> None:
    text = (
        'File "src/a/b.py", line 3, in f\n'
        "FAILED tests/test_x.py::test_y - assert 1\n"
        "libs/geo/distance.py:1:1: F401 unused\n"
        "/abs/path/mod.ts\n"
        "see https://example.com/x.html and version 1.2.3"
    )
    assert output_paths(text) == (
        "src/a/b.py",
        "tests/test_x.py",
        "libs/geo/distance.py",
        "/abs/path/mod.ts",
    )


def test_a_path_in_the_prompt_speaks_of_its_file_not_its_folders() -> None:
    assert prompt_stems("Fix src/shipit/http/retry.py") == frozenset({"fix", "retry"})
    assert "auth" in prompt_stems("the limit in the auth module")
