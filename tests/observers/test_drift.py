"""Drift: most recent file activity away from the task's first files and prompt, said once."""

from __future__ import annotations

import pytest

from onlooker import Dispatch, Engine, FixedClock, Session, SessionStarted, ToolCall, UserPrompt
from onlooker.core.events import Event
from onlooker.observers import get_observer
from onlooker.observers.call_paths import activity_paths, command_paths
from onlooker.observers.drift import DriftObserver
from onlooker.observers.task_scope import names_file, task_ground, task_scope

PROMPT = "Fix the off-by-one error in the CSV parser (src/shop/parser.py)."


def read(path: str) -> ToolCall:
    return ToolCall(tool="Read", input={"file_path": path}, output="...")


def bash(command: str) -> ToolCall:
    return ToolCall(tool="Bash", input={"command": command}, output="")


def start() -> list[Event]:
    """The task, then ten calls that explore it: their files are the task's first files."""
    names = ("parser", "dialect", "rows", "errors", "quoting")
    return [
        SessionStarted(cwd="/repo"),
        UserPrompt(text=PROMPT),
        *(read(f"/repo/src/shop/{name}.py") for name in names),
        *(read(f"/repo/tests/test_{name}.py") for name in names),
        bash("pytest tests/test_parser.py -q"),
    ]


def replay(events: list[Event], clock: FixedClock) -> list[Dispatch]:
    engine = Engine([DriftObserver()], session=Session("s"), clock=clock)
    return [engine.dispatch(event) for event in events]


def told(results: list[Dispatch]) -> list[tuple[int, str]]:
    return [
        (r.event.index, r.assessments[0].severity)
        for r in results
        if r.assessments and isinstance(r.event, ToolCall)
    ]


def edit(path: str) -> ToolCall:
    return ToolCall(
        tool="Edit", input={"file_path": path, "old_string": "a", "new_string": "b"}, output="ok"
    )


def test_drift_is_noted_once_then_once_more_if_it_stays(clock: FixedClock) -> None:
    """Reading elsewhere: noted when 70% of the last 20 calls naming files are away."""
    away = [read(f"/repo/website/blog/post{n}.md") for n in range(50)]
    results = replay(start() + away, clock)
    assert told(results) == [(25, "low"), (45, "medium")]  # not again in between, nor after
    first, again = (r for r in results if r.assessments)
    assert again.assessments[0].summary == (
        "Recent work is still mostly away from the files the task started with."
    )
    assert first.assessments[0].render() == (
        "[Trajectory Assessment - Drift]\n\n"
        "Recent work is mostly away from the files the task started with.\n\n"
        "• drift: 14 of the last 20 calls that name files work on paths unrelated to the task's "
        "first files (src/shop/parser.py, src/shop/dialect.py, src/shop/rows.py): "
        "mostly website/blog (14); calls 12-25.\n\n"
        "→ 70% of recent file activity is outside the task's initial context; this is fine if the "
        "task required it, otherwise the original goal may be waiting."
    )


def test_changing_files_elsewhere_is_noted_after_ten_calls(clock: FixedClock) -> None:
    """A run of calls away from the task that changes files there needs no whole window."""
    away = [(read if n % 2 else edit)(f"/repo/website/blog/post{n}.md") for n in range(40)]
    results = replay(start() + away, clock)
    assert told(results) == [(21, "low"), (41, "medium")]
    assert results[-40 + 9].assessments[0].findings[0].content == (
        "The last 10 calls that name files all work on paths unrelated to the task's first files "
        "(src/shop/parser.py, src/shop/dialect.py, src/shop/rows.py): mostly website/blog (10); "
        "calls 12-21."
    )
    assert results[-40 + 9].assessments[0].findings[0].evidence == "calls 12-21"


def test_what_the_agent_did_first_after_a_narrow_task_is_not_its_ground(
    clock: FixedClock,
) -> None:
    """The first files touched are the task's, up to where the work leaves the task."""
    events: list[Event] = [
        SessionStarted(cwd="/repo"),
        UserPrompt(text="Fix the typo in docs/setup.md: 'recieve' should be 'receive'."),
        read("/repo/docs/setup.md"),
        edit("/repo/docs/setup.md"),
    ]
    events += [(edit if n % 3 == 0 else read)(f"/repo/src/payments/m{n}.py") for n in range(12)]
    assert told(replay(events, clock)) == [(12, "low")]
    scope = task_ground(
        "Fix the typo in docs/setup.md",
        ("/repo/docs/setup.md", "/repo/src/payments/m0.py"),
        (),
        "/repo",
    )
    assert scope.first_paths == ("/repo/docs/setup.md",)
    assert not scope.related("/repo/src/payments/m1.py")
    assert task_scope(
        "Fix the typo in docs/setup.md",
        ("/repo/docs/setup.md", "/repo/src/payments/m0.py"),
        (),
        "/repo",
    ).related("/repo/src/payments/m1.py")


def test_work_around_the_task_is_not_drift(clock: FixedClock) -> None:
    related = [
        read("/repo/src/shop/models.py"),  # under src/, like the first file
        read("/repo/tests/test_models.py"),  # under tests/, like the second
        read("/repo/docs/csv-format.md"),  # "CSV" is in the prompt
        bash("python -m pytest tests/test_parser.py"),
        read("/tmp/scratch.txt"),  # scratch space says nothing
        read("/repo/README.md"),
    ]
    assert told(replay(start() + related * 10, clock)) == []


def test_a_later_prompt_widens_the_task(clock: FixedClock) -> None:
    later = [UserPrompt(text="Now update the blog post about the release")]
    away = [read(f"/repo/website/blog/post{n}.md") for n in range(40)]
    assert told(replay(start() + later + away, clock)) == []


def test_a_short_detour_is_not_drift(clock: FixedClock) -> None:
    detour = [read(f"/repo/website/blog/post{n}.md") for n in range(10)]
    back = [read("/repo/src/shop/parser.py") for _ in range(20)]
    assert told(replay(start() + detour + back + detour, clock)) == []


def test_what_counts_as_related() -> None:
    scope = task_scope(PROMPT, ("/repo/src/shop/parser.py",), (), "/repo")
    assert scope.related("/repo/src/shop/parser.py")
    assert scope.related("/repo/src/billing/invoice.py")  # shares /repo/src
    assert scope.related("/repo/tests/test_parser.py")  # the first file's name
    assert scope.related("/repo/docs/csv.md")  # a word of the prompt
    assert not scope.related("/repo/website/blog/post.md")
    assert not scope.related("/etc/nginx/nginx.conf")
    assert scope.resolve("/tmp/x.txt") is None
    in_tmp = task_scope(PROMPT, ("/tmp/p/src/shop/parser.py",), (), "/tmp/p")
    assert in_tmp.resolve("/tmp/p/src/x.py") == "/tmp/p/src/x.py"  # the project is there
    assert in_tmp.resolve("/tmp/other.txt") is None
    assert scope.resolve("/repo") is None
    assert scope.resolve("/home/u/.claude/projects/x/memory.md") is None
    assert scope.resolve("src/a/../b.py") == "/repo/src/b.py"


def test_where_a_tasks_ground_starts() -> None:
    readme = task_ground(
        "The README's install line is missing a bracket",
        ("/repo/README.md", "/repo/infra/main.tf", "/repo/deploy/app.yaml"),
        (),
        "/repo",
    )
    assert readme.first_paths == ("/repo/README.md",)  # named by the prompt, though at the root
    explored = task_ground(
        "Add a --dry-run flag to the sync command",
        ("/repo/README.md", "/repo/src/tool/cli.py", "/repo/src/tool/sync.py", "/repo/.ci.yml"),
        (),
        "/repo",
    )
    # The first file whose path the prompt speaks of, and what ties in with it; not the root
    # file the agent glanced at first.
    assert explored.first_paths == ("/repo/src/tool/sync.py", "/repo/src/tool/cli.py")
    vague = task_ground("Make it faster", ("/repo/src/a.py", "/repo/lib/b.py"), (), "/repo")
    assert vague.first_paths == ()  # nothing ties the files to the prompt: no ground to leave
    assert names_file("see src/api/upload.py.", "/repo/src/api/upload.py")
    assert not names_file("load the data", "/repo/src/load.py")


def test_paths_in_shell_commands() -> None:
    assert command_paths("pytest tests/test_parser.py::test_one -q") == ("tests/test_parser.py",)
    assert command_paths("cat /etc/hosts | grep local > out.txt") == ("/etc/hosts", "out.txt")
    assert command_paths("git push origin main && gh pr create --fill") == ()
    assert command_paths("curl https://example.com/a.json -o ./a.json") == ("./a.json",)
    assert activity_paths(read("/repo/a.py")) == ("/repo/a.py",)


def test_named_and_soft() -> None:
    observer = get_observer("drift")
    assert isinstance(observer, DriftObserver)
    assert observer.name == "Drift"
    assert observer.trigger.every_n_calls == 10
    assert observer.trigger.tools == ("Read", "Write", "*Edit")


def test_bad_settings_fail_when_built() -> None:
    with pytest.raises(ValueError, match="unrelated_share"):
        DriftObserver(unrelated_share=1.5)
