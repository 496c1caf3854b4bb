"""The task's first files taken one at a time (`_task_files`, extending the scopes of all but the
newest) give the scopes that taking them all at once gives (`_all_task_files`), over every real
and labeled session and over first files chosen to move the ground's start."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker.core.session import Session, TaskContext
from onlooker.hosts.recorded.transcripts import read_transcript
from onlooker.observers.task_scope import (
    TaskScope,
    _all_task_files,
    _prompt_words,
    _task_files,
    prompt_stems,
)

TESTS = Path(__file__).parents[1]
CORPUS = [TESTS / "fixtures" / "claude-code", TESTS / "fixtures" / "labeled"]


def fields(scope: TaskScope) -> tuple[object, ...]:
    return (
        scope.root,
        scope.first_paths,
        scope.folders,
        scope.areas,
        scope.words,
        scope.names,
        scope.dirs,
        scope.by_area,
    )


def assert_same_as_all_at_once(prompt: str, paths: tuple[str, ...], root: str | None) -> None:
    for end in range(1, len(paths) + 1):  # each prefix in turn, as a session grows
        bare = TaskScope(root.rstrip("/") or "/" if root else None, words=prompt_stems(prompt))
        grown = _task_files(prompt, paths[:end], root)
        whole = _all_task_files(bare, prompt, paths[:end])
        assert [fields(s) for s in grown] == [fields(s) for s in whole], (prompt, paths[:end])


def task_contexts() -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    """Each session's task as it was when its first files were all known."""
    for folder in CORPUS:
        for path in sorted(folder.rglob("*.jsonl")):
            if "subagents" in path.parts:
                continue
            for transcript in read_transcript(path).sessions():
                session = Session(transcript.session_id)
                root = None
                for event in transcript.events:
                    session.append(event)
                    root = getattr(event, "cwd", root) or root
                task = session[TaskContext].latest()
                if task is not None and task.first_paths:
                    yield task.first_prompt, task.first_paths, root


def test_the_first_files_of_every_real_session_one_at_a_time() -> None:
    found = list(task_contexts())
    assert len(found) > 20
    for prompt, paths, root in found:
        _task_files.cache_clear()  # each prefix made by extending the one before, or afresh
        assert_same_as_all_at_once(prompt, paths, root)


FILES = (
    "/repo/src/shop/cart.py",  # spoken of ("cart")
    "/repo/docs/setup.md",  # named by the prompt
    "/repo/src/shop/tests/test_cart.py",
    "/repo/web/app.js",  # unrelated
    "src/shop/cart.py",  # the first file again, relative
    "~/notes.txt",  # says nothing about the task
    "/tmp/scratch.py",
    "/repo/README.md",  # a conventional name the prompt uses
    "/repo/src/billing",  # a folder
    "/repo/other/ab.md",  # named by the prompt, and tied to the ground by that alone
)


@pytest.mark.parametrize(
    "prompt",
    [
        "fix the cart total and update setup.md",
        "fix the cart, then ab.md",
        "update setup.md, then ab.md",
        "the cart is wrong",
        "see the README please",
        "nothing in common here",
        "",
    ],
)
def test_first_files_in_every_order_that_moves_the_grounds_start(prompt: str) -> None:
    for paths in itertools.islice(itertools.permutations(FILES, 5), 0, None, 29):
        assert_same_as_all_at_once(prompt, paths, "/repo")
    assert_same_as_all_at_once(prompt, FILES, None)


def test_the_prompts_words_as_prompts_come_slide_and_change() -> None:
    prompts = [f"prompt {i}: fix the module{i} parser and its tests{i % 3}" for i in range(30)]
    asked = [tuple(prompts[:n]) for n in range(1, 26)]  # growing by one
    asked += [tuple(prompts[n : n + 20]) for n in range(10)]  # a window sliding
    asked += [("other task",), tuple(prompts[:3]), ("other task", "and more")]
    for texts in asked:
        _prompt_words.cache_clear()
        expected = frozenset(word for text in texts for word in prompt_stems(text))
        assert _prompt_words(texts) == expected
    for texts in asked:  # in turn, each from the one asked before it when it can
        assert _prompt_words(texts) == frozenset().union(*map(prompt_stems, texts))
