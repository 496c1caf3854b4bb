"""One non-interactive run of the user's own agent CLI as a model call (`claude-code:`,
`opencode:`): in a fresh empty folder, in a process group of its own, with `ONLOOKER_NESTED=1` in
its environment so onlooker's hooks inside it do nothing (specs/llm.md)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
from collections.abc import Mapping

NESTED_VARIABLE = "ONLOOKER_NESTED"
"""Set to 1 in a nested run's environment: onlooker's hooks and plugin see it and do nothing."""


async def run_nested(
    command: list[str], prompt: str, *, prefix: str, env: Mapping[str, str] | None = None
) -> tuple[int | None, bytes, bytes]:
    """Run `command` with `prompt` on stdin; its exit code, stdout and stderr. A cancellation
    (the call's timeout) kills the run's whole process group before it propagates."""
    environment = {**os.environ, **(env or {}), NESTED_VARIABLE: "1"}
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=folder,
            env={**environment, "PWD": folder},
            start_new_session=True,
        )
        try:
            out, err = await process.communicate(prompt.encode())
        except BaseException:  # the timeout cancelled us: the run must not go on alone
            _stop(process)
            with contextlib.suppress(Exception):
                await asyncio.shield(process.wait())
            raise
    return process.returncode, out, err


def _stop(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
