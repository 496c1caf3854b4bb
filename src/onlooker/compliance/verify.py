"""The compliance verifier: check an agent's rule when it stops, and decide pass, retry or
gave_up (bounded: after `max_retries` the agent is let go). Runs inside the stop hook, so it is
cheap: artifact checks read file metadata and at most PATTERN_BYTES of a file; the check command
has its own timeout. An agent is judged by its own calls: the files they wrote, the tools they
used (products.py)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..core.events import ToolCall
from ..text.clipping import clip
from ..text.redact import redact
from .products import Products, products
from .rules import Artifact, ComplianceRule, ComplianceSettings, Verdict

PATTERN_BYTES = 1024 * 1024
"""Bytes of an artifact searched for its pattern."""
MATCHES = 200
"""Files of one glob looked at."""
CHECK_OUTPUT = 600
"""Characters of a failed check's output put into the reason."""
REFUSAL = 300
"""Characters of a failed call's error quoted when no call of a required tool succeeded."""


def missing(
    rule: ComplianceRule, root: Path, *, since: datetime | None, calls: Sequence[ToolCall]
) -> list[str]:
    """What the agent has not done of `rule`, one line each ([] when it complied).

    `calls` are the agent's own (a subagent's, or the main agent's since the turn's prompt): an
    artifact holds only in a file they wrote, and a problem names only such files.
    """
    made = products(calls, root)
    found = [problem for a in rule.artifacts if (problem := _artifact(a, root, since, made))]
    for pattern in rule.tools:
        if problem := _tool(pattern, calls):
            found.append(problem)
    if rule.check and not found:  # the command is the slow part: only when the rest holds
        problem = _check(rule.check, root, rule.timeout)
        if problem:
            found.append(problem)
    return found


def decide(
    settings: ComplianceSettings, rule: ComplianceRule, lacking: list[str], retries: int
) -> Verdict:
    """pass when nothing is missing; retry (with the reason to block with) while fewer than
    `max_retries` retries were given; else gave_up."""
    attempt = retries + 1
    if not lacking:
        return Verdict("pass", (), attempt)
    if retries >= settings.max_retries:
        return Verdict("gave_up", tuple(lacking), attempt)
    items = "\n".join(f"- {line}" for line in lacking)
    reason = (
        f"The {rule.agent} agent is not done: onlooker's compliance check found missing\n{items}\n"
        f"Do what is missing, then finish (retry {attempt} of {settings.max_retries})."
    )
    return Verdict("retry", tuple(lacking), attempt, redact(reason))


def _tool(pattern: str, calls: Sequence[ToolCall]) -> str:
    """'' when a call of the agent matching `pattern` succeeded; else what happened."""
    made = [call for call in calls if fnmatch.fnmatchcase(call.tool, pattern)]
    if any(call.ok for call in made):
        return ""
    if not made:
        return f"a call of the tool {pattern}: none was made"
    error = (made[-1].error or made[-1].output or "").strip()
    failed = f"{len(made)} failed" + (f", the last with: {clip(error, REFUSAL)}" if error else "")
    return f"a call of the tool {pattern}: none succeeded ({failed})"


def _artifact(artifact: Artifact, root: Path, since: datetime | None, made: Products) -> str:
    matches = sorted(p for _, p in zip(range(MATCHES), root.glob(artifact.glob), strict=False))
    files = [p for p in matches if p.is_file() and made.own(p, since)]
    if not files:
        return f"{artifact.glob}: no such file written by this agent"
    problems: list[str] = []
    for path in files:
        problem = _file_problem(path, artifact, since)
        if not problem:
            return ""
        problems.append(f"{path.relative_to(root).as_posix()}: {problem}")
    return problems[0] if len(problems) == 1 else f"{artifact.glob}: " + "; ".join(problems[:3])


def _file_problem(path: Path, artifact: Artifact, since: datetime | None) -> str:
    stat = path.stat()
    if since is not None and stat.st_mtime < since.timestamp() - 1.0:  # a clock's rounding
        return "not written since the agent started"
    if stat.st_size < artifact.min_size:
        return f"{stat.st_size} bytes, at least {artifact.min_size} needed"
    if artifact.pattern:
        with path.open("rb") as file:
            text = file.read(PATTERN_BYTES).decode("utf-8", "replace")
        if not re.search(artifact.pattern, text, re.MULTILINE):
            return f"does not contain {artifact.pattern!r}"
    return ""


def _check(command: str, root: Path, timeout: float) -> str:
    try:
        done = subprocess.run(
            command, shell=True, cwd=root, capture_output=True, text=True, timeout=timeout,
            stdin=subprocess.DEVNULL, errors="replace",
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"the check `{command}` did not finish within {timeout:g} s"
    except OSError as exc:
        return f"the check `{command}` could not run: {exc}"
    if done.returncode == 0:
        return ""
    output = clip((done.stdout + done.stderr).strip(), CHECK_OUTPUT)
    return f"the check `{command}` failed (exit {done.returncode})" + (
        f": {output}" if output else ""
    )
