"""`onlooker replay PATH...`: run observers over recorded sessions and show what they would say.

Per tool call, the text that would have been injected, then a summary per session; or `--json`.
"""

from __future__ import annotations

import gc
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import msgspec

from ..display import SEVERITY_STYLE
from ..errors import ConfigError, TranscriptError
from ..hosts.recorded.replay import Injection, ObserverFactory, SessionReplay, observers_named
from ..hosts.recorded.replay_pool import replaying

#: Above this many bytes in all, a single input shows a progress bar too.
BIG_INPUT = 4_000_000
#: New objects between two looks of the garbage collector over the youngest ones, while replaying.
REPLAY_GC_THRESHOLD = 100_000

_EVENT_LABELS = {
    "session_started": "session start",
    "user_prompt": "prompt",
}


@click.command(name="replay")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array, one object a session.")
@click.option(
    "--observer",
    "observer_names",
    multiple=True,
    metavar="NAME",
    help="Run only this observer (repeatable; e.g. stall, 'error-cascade', deadline, or one a "
    "plugin adds).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="MINUTES",
    help="Give each session a deadline this many minutes after it started.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="PATH",
    help="Use the observers (built-in and plugins'), thresholds and deadline of this onlooker "
    "config file "
    "(--observer and --deadline still narrow or override it).",
)
@click.option("--quiet", "-q", is_flag=True, help="Only the summaries, not the injected texts.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    metavar="N",
    help="Replay N session files at a time, each in a process of its own (default: one a core "
    "when several files hold 8 MB or more; 1: this process alone). The output is the same.",
)
def command(
    paths: Sequence[str],
    as_json: bool,
    observer_names: Sequence[str],
    deadline: float | None,
    config_path: Path | None,
    quiet: bool,
    jobs: int | None,
) -> None:
    """Run observers over recorded sessions as if live.

    PATH is a Claude Code transcript (.jsonl, with its subagents), an OpenAI chat messages file
    (.json), or a folder: every *.jsonl session in it. Prints, per tool call, what would have been
    injected into the agent's context, then a summary per session.
    """
    from ..hosts.recorded.transcripts import transcript_paths

    try:
        if config_path is not None:
            observers, configured = configured_observers(config_path, observer_names)
            deadline = deadline if deadline is not None else configured
        else:
            observers = observers_named(observer_names)
        files = [file for path in paths for file in transcript_paths(path)]
    except (ConfigError, TranscriptError) as exc:
        _fail(str(exc))
    out = None if as_json else _console()
    encoded: list[str] = []  # each session as JSON text, made where it was replayed
    # What is loaded by now lives as long as the process: the collector need not go over it
    # again and again, and workers forked from here do not copy its pages by touching it.
    gc.freeze()
    # Replay makes objects by the million and keeps few cycles: the collector's youngest
    # generation is looked over far less often (at REPLAY_GC_THRESHOLD new objects, not 700),
    # which saves some 5 % of the time for a few megabytes more (specs/replay.md, "Speed").
    thresholds = gc.get_threshold()
    gc.set_threshold(REPLAY_GC_THRESHOLD, *thresholds[1:])
    try:
        # The workers fork before the progress bar starts its thread.
        with (
            replaying(
                files,
                observers,
                deadline_minutes=deadline,
                workers=jobs,
                each=json_item if as_json else None,
            ) as replayed,
            _progress(files) as advance,
        ):
            for file, sessions in replayed:
                if as_json:
                    encoded.extend(sessions)
                else:
                    for result in sessions:
                        show_session(out, result, quiet=quiet)
                advance(file)
    except TranscriptError as exc:
        _fail(str(exc))
    finally:
        gc.set_threshold(*thresholds)
    if as_json:
        sys.stdout.write("[\n" + ",\n".join(encoded) + "\n]\n" if encoded else "[]\n")


def json_item(result: SessionReplay) -> str:
    """One session as an item of the `--json` array: what `json.dumps(array, indent=2)` prints
    for it (JSON text has no raw newline inside a string, so indenting lines is exact)."""
    return "  " + indented_json(result.to_dict()).replace("\n", "\n  ")


def indented_json(data: Any) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False)`, at a fifth of the cost: with an indent,
    `json` encodes in Python; without one, in C, and msgspec indents that text, copying every
    string and number as it was written. What msgspec does not take (NaN or Infinity, which
    JSON has not; a lone surrogate, which UTF-8 has not) is left to `json` alone."""
    try:
        return msgspec.json.format(json.dumps(data, ensure_ascii=False), indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.dumps(data, indent=2, ensure_ascii=False)


def _console() -> Any:
    from rich.console import Console  # only the text view needs rich

    return Console(highlight=False, soft_wrap=True)


def configured_observers(path: Path, names: Sequence[str]) -> tuple[ObserverFactory, float | None]:
    """The trajectory observers a config file turns on (only `names`, when given) and its
    deadline in minutes."""
    from ..config import load_config
    from ..observers import find_observer

    options = load_config(path).trajectory
    chosen = list(options.observers)
    if names:
        observers_named(names)  # unknown names fail here, with the list of known ones
        wanted = {found.display for name in names if (found := find_observer(name))}
        chosen = [o for o in chosen if o.name in wanted]
    return (lambda: list(chosen)), options.deadline_minutes


def _fail(message: str) -> None:
    click.echo(f"onlooker replay: {message}", err=True)
    raise SystemExit(2)


@contextmanager
def _progress(files: list[Path]) -> Iterator[Any]:
    """A progress bar on stderr for long inputs, when stderr is a terminal; else a no-op."""
    if not sys.stderr.isatty():
        yield lambda file: None
        return
    sizes = {file: file.stat().st_size for file in files}
    if len(files) < 2 and sum(sizes.values()) < BIG_INPUT:
        yield lambda file: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    progress = Progress(
        TextColumn("replaying"),
        BarColumn(),
        DownloadColumn(),
        TextColumn("{task.fields[name]}"),
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=sys.stdout.isatty(),
        redirect_stderr=False,
    )
    with progress:
        task = progress.add_task("replay", total=sum(sizes.values()), name="")
        yield lambda file: progress.update(task, advance=sizes[file], name=file.name)


def show_session(out: Any, result: SessionReplay, *, quiet: bool = False) -> None:
    """One session: the injections (unless quiet), then its summary."""
    from rich.text import Text

    title = f"session {result.session_id}"
    if result.agent_id:
        kind = f" ({result.agent_type})" if result.agent_type else ""
        title = f"subagent {result.agent_id}{kind} of session {result.parent_session_id}"
    out.print(Text(f"══ {title} ══", style="bold"))
    out.print(Text(result.path, style="dim"))
    if not quiet:
        for injection in result.injections:
            out.print()
            out.print(Text(f"── {injection_label(injection)} ──", style="bold cyan"))
            out.print(Text(injection.text))
    out.print()
    out.print(Text("summary", style="bold"))
    out.print(summary_text(result))
    out.print()


def injection_label(injection: Injection) -> str:
    """`call 37 · Bash · 16:02:29`, or `prompt · after call 12 · 16:05:00` for other events."""
    clock = injection.at.strftime("%H:%M:%S")
    if injection.tool:
        return f"call {injection.call_index} · {injection.tool} · {clock}"
    label = _EVENT_LABELS.get(injection.event_kind, injection.event_kind.replace("_", " "))
    if injection.call_index:
        return f"{label} · after call {injection.call_index} · {clock}"
    return f"{label} · {clock}"


def summary_text(result: SessionReplay) -> Any:
    """The summary block of one session."""
    from rich.text import Text

    text = Text()
    rows: list[tuple[str, Text | str]] = [("tool calls", str(result.tool_calls))]
    by_observer: dict[str, Counter[str]] = {}
    for assessment in result.assessments:
        by_observer.setdefault(assessment.observer_name, Counter())[assessment.severity] += 1
    rows.append(("assessments", str(len(result.assessments))))
    for name, counts in by_observer.items():
        line = Text()
        for i, (level, count) in enumerate(sorted(counts.items(), key=_by_severity)):
            if i:
                line.append(", ")
            line.append(f"{count} {level}", style=SEVERITY_STYLE.get(level, ""))
        rows.append((f"  {name}", line))
    warnings = Text(str(result.warnings), style="yellow" if result.warnings else "")
    rows.append(("warnings", warnings))
    failures = Counter(f.observer for f in result.failures)
    rows.append(("failures", ", ".join(f"{n} × {name}" for name, n in failures.items()) or "none"))
    malformed = str(result.malformed)
    if result.malformed_lines:
        malformed += f" (lines {', '.join(map(str, result.malformed_lines))})"
    rows.append(("malformed lines", f"{malformed} (could not be read)"))
    rows.append(
        ("skipped lines", f"{result.skipped} (read, but no event: metadata, progress, snapshots)")
    )
    if result.unanswered:
        rows.append(("unanswered calls", str(result.unanswered)))
    width = max(len(label) for label, _ in rows)
    for i, (label, value) in enumerate(rows):
        if i:
            text.append("\n")
        text.append(f"  {label.ljust(width)}  ")
        text.append(value)
    return text


def _by_severity(item: tuple[str, int]) -> int:
    from ..core.assessment import severity_rank

    return -severity_rank(item[0])
