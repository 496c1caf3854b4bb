"""The compliance verifier: check an agent's rule when it stops, and decide pass, retry or
gave_up (bounded: after `max_retries` the agent is let go). Runs inside the stop hook, so it is
cheap: artifact checks read file metadata and at most PATTERN_BYTES of a file; the check command
has its own timeout."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..text.clipping import clip
from ..text.redact import redact
from .rules import Artifact, ComplianceRule, ComplianceSettings, Verdict

PATTERN_BYTES = 1024 * 1024
"""Bytes of an artifact searched for its pattern."""
MATCHES = 200
"""Files of one glob looked at."""
CHECK_OUTPUT = 600
"""Characters of a failed check's output put into the reason."""


def missing(
    rule: ComplianceRule, root: Path, *, since: datetime | None, tools: Sequence[str]
) -> list[str]:
    """What the agent has not done of `rule`, one line each ([] when it complied)."""
    found = [problem for a in rule.artifacts if (problem := _artifact(a, root, since))]
    for pattern in rule.tools:
        if not any(fnmatch.fnmatchcase(tool, pattern) for tool in tools):
            found.append(f"a call of the tool {pattern}: none was made")
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


def _artifact(artifact: Artifact, root: Path, since: datetime | None) -> str:
    matches = sorted(p for _, p in zip(range(MATCHES), root.glob(artifact.glob), strict=False))
    files = [p for p in matches if p.is_file()]
    if not files:
        return f"{artifact.glob}: no such file"
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
