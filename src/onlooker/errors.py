"""The exceptions onlooker raises, all under one root.

OnlookerError
├── ConfigError             a configuration value is wrong (names the file and the field)
│   └── ConfigInvalid       a config file did not validate: every problem (config/document.py)
├── RecordError             a record (event, assessment) cannot be decoded
├── TranscriptError         a transcript cannot be read at all
├── ObserverTimeout         an observer ran past its time limit (recorded, never propagated)
├── StoreError              the data home cannot be read or written
│   ├── UnknownFinding      no stored finding has that id
│   ├── LifecycleError      a status change the finding's status does not allow
│   └── EmbeddingsUnavailable   the embeddings extra or its model files are missing
├── BadRequest              an observations tool request that cannot be carried out
├── ModelError              a model call failed
│   ├── ModelTimeout        no answer within the timeout
│   ├── ModelUnavailable    the provider cannot be reached or answered with an error
│   ├── InvalidOutput       the answer is not the JSON the schema asks for
│   └── ProviderSetupError  a provider cannot be built (model string, package, API key)
├── ExtractionFailed        a memory batch's model call failed; its events stay pending
├── MemorySettingsError     a memory setting is wrong (also a ValueError)
├── ScoringError            an observer command that cannot be carried out (also a ValueError)
├── SearchError             a memory search that cannot run (also a ValueError)
├── HookInputError          a hook input is not what Claude Code sends (also a ValueError)
│   └── HookInputOverLimit  a hook input over a size, depth, count or number limit
├── BadArguments            MCP tool arguments that do not fit the schema (also a ValueError)
├── RefusedPath             a path the MCP `read` tool will not open (also a ValueError)
├── BadViewerRequest        a request to `onlooker serve` that cannot be carried out
├── InstallError            a host's settings or plugin folder cannot be read or written
├── ImprovementError        an instructions or prompt file cannot be changed (names the file)
│   ├── LockTimeout         another process held the file's lock past the wait
│   ├── NothingToRollBack   no earlier version of the file is kept
│   └── EditedByHand        a rollback would lose a hand edit; refused
├── PluginError             a plugin registers something wrong (a taken name, a bad handler)
├── SideEffectError         a side effect refused a path (outside the project or the archive)
├── ClaudeCodeMissing       no Claude Code CLI for the test harness (also a RuntimeError)
├── ChromiumMissing         no headless Chromium to check a page in (also a RuntimeError)
└── AlreadyRunning          the hook service, worker or viewer already runs for this data home
"""

from __future__ import annotations


class OnlookerError(Exception):
    """Root of every error onlooker raises on purpose."""


class ConfigError(OnlookerError):
    """A configuration value is wrong; the message names where and what is allowed."""


class RecordError(OnlookerError):
    """A stored or received record does not decode into a known record kind."""


class TranscriptError(OnlookerError):
    """A transcript file cannot be read (missing, unreadable, or not a transcript)."""


class ObserverTimeout(OnlookerError):
    """An observer ran past its timeout. The engine records it as a failure."""


class StoreError(OnlookerError):
    """The data home cannot be read or written; the message names the file."""


class UnknownFinding(StoreError):
    """No stored finding has the id (or the prefix matches none or several)."""


class LifecycleError(StoreError):
    """A change the finding's status does not allow (acknowledging a resolved finding)."""


class EmbeddingsUnavailable(StoreError):
    """The embeddings extra is not installed; the message says what to install."""


class BadRequest(OnlookerError):
    """An observations tool request that cannot be carried out; `field` names the part at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class ModelError(OnlookerError):
    """A model call failed; recorded as data, never shown to the agent as a crash."""


class ModelTimeout(ModelError):
    """The model did not answer within the timeout."""


class ModelUnavailable(ModelError):
    """The provider could not be reached, refused, or answered with an error status."""


class InvalidOutput(ModelError):
    """The answer is not the JSON the schema asks for (the raw text is kept)."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


class ProviderSetupError(ModelError):
    """A provider cannot be built: unknown model string, missing package or missing API key.
    The message says what to install or set."""


class ExtractionFailed(OnlookerError):
    """A memory batch's model call failed; its events stay pending for the next run."""


class MemorySettingsError(OnlookerError, ValueError):
    """A memory setting has the wrong type or value; the message names the key and the file."""


class ScoringError(OnlookerError, ValueError):
    """An observer command that cannot be carried out (scoring off, no such improvement or
    session); the message says what to do instead."""


class SearchError(OnlookerError, ValueError):
    """A search that cannot run: bad mode or limit, or vectors asked for without a vector side."""


class HookInputError(OnlookerError, ValueError):
    """The hook input is not what Claude Code sends; the message names the field."""


class HookInputOverLimit(HookInputError):
    """The hook input is larger, deeper or holds more than a hook input may; names the limit."""


class BadArguments(OnlookerError, ValueError):
    """MCP tool arguments that do not fit the tool's schema; `field` names the one at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class RefusedPath(OnlookerError, ValueError):
    """A path the MCP `read` tool will not open; the message says why and what is allowed."""


class BadViewerRequest(OnlookerError, ValueError):
    """A request to the live viewer (`onlooker serve`) that cannot be carried out; the message
    starts with the field at fault."""


class InstallError(OnlookerError):
    """A host's settings file or plugin folder cannot be read or written; names the file."""


class ImprovementError(OnlookerError):
    """An instructions or prompt file cannot be read, changed or rolled back; the message names
    the file and the problem. The file is left as it was."""


class LockTimeout(ImprovementError):
    """Another process held the file's lock for longer than the wait; names the lock and holder."""


class NothingToRollBack(ImprovementError):
    """A rollback asked for more earlier versions than are kept for the file."""


class EditedByHand(ImprovementError):
    """A rollback would discard a hand edit made since onlooker's change; says how to go on."""


class AlreadyRunning(OnlookerError):
    """Another process holds this data home's single-instance lock of that name."""


class PluginError(OnlookerError):
    """Raised by a registry's `register` callback when a plugin registers something wrong."""


class SideEffectError(OnlookerError):
    """A side effect would read outside the project or write outside the session's archive."""


class ClaudeCodeMissing(OnlookerError, RuntimeError):
    """No Claude Code CLI was found for the test harness; the message says where it looked."""


class ChromiumMissing(OnlookerError, RuntimeError):
    """No Chromium to run headless (or it did not start); the message says how to install one."""
