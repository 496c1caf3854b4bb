"""Answer one Claude Code hook on the Runtime: parse its stdin JSON into an Arrival, hand it over,
and print the Delivery as Claude Code reads it (additionalContext, or a block with its reason).

Input that is unreadable, over a limit (input_limits.py) or fails is logged, spooled, not answered.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...config import ProjectConfigs
from ...core.clock import Clock, SystemClock
from ...daemon.client import REFUSED_DIR, SPOOL_DIR, SPOOL_HEAD
from ...memory.settings import MemorySettings
from ...runtime import WARM_SESSIONS, Runtime
from ...store import Store
from ...text.spooled import redact_payload
from .assistant_words import AssistantWords
from .hook_input import (
    HOST,
    HookInput,
    HookInputError,
    hook_answer,
    parse_hook_input,
    read_hook_input,
)
from .input_limits import MAX_INPUT_BYTES

if TYPE_CHECKING:
    from ...llm.model import Model
    from ...reviewers.config import ReviewSetup


log = logging.getLogger("onlooker.hook")
log.addHandler(logging.NullHandler())  # the service configures real handlers

SPOOL_AT_ONCE = 256 * 1024
"""Bytes of input spooled before the hook answers; a larger input is spooled in the background."""

HostAnswer = Callable[[Mapping[str, Any], Runtime, datetime], dict[str, Any]]
"""Another host's translator behind the same service: (its input, the Runtime, now) -> the JSON
answer its plugin reads. Chosen by the input's `host` field."""


@dataclass
class HookHandler:
    """Turns hook inputs into answers; the Runtime keeps sessions warm between hooks."""

    store: Store
    clock: Clock = field(default_factory=SystemClock)
    configs: ProjectConfigs = field(default_factory=ProjectConfigs)
    """Project configs by working directory: which observers run, with what options."""
    warm_limit: int = WARM_SESSIONS
    reviewers: Callable[[str], ReviewSetup | None] | None = None
    """Project root -> its reviewer observers and execution settings (None: no reviewers);
    by default the project config's (`configs`)."""
    models: Callable[[str], Model] | None = None
    """Model string -> Model for reviewers; default `onlooker.llm.model_from_string`, cached."""
    review_budget: float | None = None
    """Seconds parallel reviewers may take in one hook (the hook service sets its own)."""
    memory: MemorySettings = field(default_factory=MemorySettings)
    wake_worker: Callable[[Path], None] | None = None
    """Starts the worker for queued jobs; default `onlooker.daemon.worker.ensure_worker`."""
    hosts: Mapping[str, HostAnswer] = field(default_factory=dict)
    """Translators of other hosts' plugins that forward to this service (`{"host": name}`)."""

    def __post_init__(self) -> None:
        if self.wake_worker is None:
            from ...daemon.worker import ensure_worker

            self.wake_worker = ensure_worker
        self.runtime = Runtime(
            self.store, clock=self.clock, configs=self.configs, reviewers=self.reviewers,
            models=self.models, review_budget=self.review_budget, memory=self.memory,
            wake_worker=self.wake_worker, warm_limit=self.warm_limit, host=HOST,
        )  # fmt: skip
        self.words = AssistantWords()

    def handle(self, raw: bytes) -> bytes:
        """The bytes to print for this hook input ('' for nothing). Never raises: an input over
        a limit, one that is not what Claude Code sends, and any failure while handling it are
        logged and spooled (to be replayed, or refused for good), and the hook answers nothing."""
        try:
            answer, failure, lasting = self._answer(raw)
        except Exception as exc:  # the last line: nothing a hook sends takes the service down
            log.error("hook input failed: %s", traceback.format_exc())
            answer, failure, lasting = b"", f"{type(exc).__name__}: {exc}", False
        if failure:
            self._spool_quietly(raw, failure, refused=lasting)
        return answer

    def replay(self, raw: bytes, at: datetime | None = None) -> tuple[str, bool]:
        """Handle a spooled input again, spooling nothing: ('', _) when it went through, else
        (why not, whether it can never go through). `at`: when it was spooled, the time its
        events are stamped with (the host sent it then, not now)."""
        try:
            _, failure, lasting = self._answer(raw, at)
        except Exception as exc:
            log.error("replayed hook input failed: %s", traceback.format_exc())
            return f"{type(exc).__name__}: {exc}", False
        return failure, lasting

    def _answer(self, raw: bytes, at: datetime | None = None) -> tuple[bytes, str, bool]:
        """(what to print, why it failed or '', whether that failure is for good)."""
        now = at or self.clock.now()
        try:
            data = read_hook_input(raw)
            host = data.get("host")
            if host is not None:
                return self._answer_host(host, data, now)
            where, event = parse_hook_input(data, now)
        except HookInputError as exc:
            return b"", str(exc), True
        self._assistant_words(where, data, now)
        try:
            delivery = self.runtime.handle(where.arrival(event))
        except Exception as exc:
            log.error("hook %s failed: %s", where.event_name, traceback.format_exc())
            return b"", f"{type(exc).__name__}: {exc}", False
        answer = hook_answer(
            where.event_name, delivery.context, block_reason=delivery.block,
            notice=delivery.notice,
        )  # fmt: skip
        return (json.dumps(answer, ensure_ascii=False).encode() if answer else b""), "", False

    def _assistant_words(self, where: HookInput, data: Mapping[str, Any], now: datetime) -> None:
        """Record what the assistant wrote since the last hook, when reviewers read it; a
        failure here is logged, and the hook's own event goes on."""
        try:
            setup = self.runtime.review_setup(where.cwd)
            for arrival in self.words.before(where, data, setup, now):
                self.runtime.handle(arrival)
        except Exception:
            log.error("reading the assistant's words failed: %s", traceback.format_exc())

    def _answer_host(
        self, host: Any, data: Mapping[str, Any], now: datetime
    ) -> tuple[bytes, str, bool]:
        translate = self.hosts.get(host) if isinstance(host, str) else None
        if translate is None:
            raise HookInputError(
                f"hook input names host {host!r}, which this service does not take"
            )
        try:
            answer = translate(data, self.runtime, now)
        except HookInputError:
            raise
        except Exception as exc:
            log.error("%s hook %s failed: %s", host, data.get("hook"), traceback.format_exc())
            return b"", f"{type(exc).__name__}: {exc}", False
        return json.dumps(answer, ensure_ascii=False).encode(), "", False

    def _spool_quietly(self, raw: bytes, reason: str, *, refused: bool = False) -> None:
        """Spool in the background when the input is large (redacting it takes a while), so the
        hook's empty answer goes back at once; a failure to spool is logged, never raised."""
        if len(raw) <= SPOOL_AT_ONCE:
            self._spool_logged(raw, reason, refused)
            return
        log.warning("spooling a hook input of %d bytes in the background: %s", len(raw), reason)
        threading.Thread(
            target=self._spool_logged, args=(raw, reason, refused), name="spool"
        ).start()

    def _spool_logged(self, raw: bytes, reason: str, refused: bool) -> None:
        try:
            self.spool(raw, reason, refused=refused)
        except Exception:
            log.error("a hook input could not be spooled: %s", traceback.format_exc())

    def close(self) -> None:
        """Save every warm session (the service calls this before it exits)."""
        self.runtime.close()

    def spool(self, raw: bytes, reason: str, *, refused: bool = False) -> Path | None:
        """Keep an input that could not be handled, with the reason: in the spool, which the
        hook service drains; or, `refused`, apart (`spool/refused/`) for `onlooker doctor`. Only
        its head is kept when it is over the size limit: it can never be replayed."""
        head = SPOOL_HEAD if len(raw) > MAX_INPUT_BYTES else 0
        refused = refused or bool(head)
        log.warning("spooled a hook input%s: %s", " as refused" if refused else "", reason)
        try:
            folder = self.store.home / SPOOL_DIR
            if refused:
                folder = folder / REFUSED_DIR
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = folder / f"{time.time_ns()}-{os.getpid()}-{os.urandom(3).hex()}.hook"
            note = reason.replace("\n", " ")[:500]
            writing = path.with_suffix(
                ".writing"
            )  # doctor sees a spooled input whole or not at all
            writing.write_bytes(
                b"# " + note.encode("utf-8", "replace") + b"\n" + _redacted(raw, head)
            )
            writing.replace(path)
            return path
        except OSError:
            return None


def _redacted(raw: bytes, head: int = 0) -> bytes:
    """Spooled input without secrets, redacted as decoded values (its first `head` bytes only,
    when set, a secret across the cut redacted whole): see text/spooled.py."""
    return redact_payload(raw, head)
