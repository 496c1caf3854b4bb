"""The config file's schema: a composed YAML document read into a ProjectConfig.

Every section is checked and every problem kept (file, line, key path, what is allowed); the
result is returned only when there were none.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..core.assessment import SEVERITIES
from ..display.observations import STYLES, DisplayOptions
from ..observers import BUILTIN
from ..reviewers.config import ReviewerConfig
from ..reviewers.execution import Execution
from ..reviewers.watch import ConversationTarget, FilesTarget, WatchTarget
from .document import ConfigInvalid, Reader, did_you_mean
from .effects import read_compliance, read_side_effects
from .memory import read_memory
from .project import HOOK_EVENTS, MARKER_HOOK, HookSpec, IssueFiling, Module, ProjectConfig
from .scoring import read_scoring
from .trajectory import read_trajectory

if TYPE_CHECKING:
    import yaml

OBSERVATIONS = "hooks-observations"
DISPLAY = "hooks-observations-display"
TOOL_MODULES = ("tool-observations", "tool-issue")
BEHAVIOR_MODULES = (OBSERVATIONS, DISPLAY)
TOP_KEYS = ("tools", "behaviors", "trajectory", "memory", "scoring", "side_effects", "compliance")
MODULE_KEYS = ("module", "source", "config")
OBSERVATIONS_KEYS = ("hooks", "execution", "observers", "post_processing")
HOOK_KEYS = ("trigger", "priority", "tools")
EXECUTION_KEYS = ("mode", "max_concurrent", "timeout_per_observer", "on_timeout")
MODES = ("parallel", "background", "inline")
MODE_ALIASES = {"parallel_sync": "parallel"}
REVIEWER_KEYS = ("name", "role", "focus", "model", "watch", "timeout", "enabled", "metadata")
WATCH_TYPES = {
    "files": ("type", "paths"),
    "conversation": ("type", "include_tool_calls", "include_reasoning"),
}
ISSUE_KEYS = ("severity", "issue_type", "auto_assign", "file", "github")
DISPLAY_KEYS = ("style", "show_on_create", "show_on_resolve")
BUILTIN_HINT = (
    " (these observers are LLM reviewers; built-in observers such as stall are set under "
    "trajectory.observers)"
)
PROVIDERS = (
    "openai",
    "anthropic",
    "openai-compatible",
    "ollama",
    "local",
    "claude-code",
    "opencode",
)
#: Bare model names of the observer bundle's config (`claude-3-5-sonnet`) and their provider.
BARE_MODELS = {
    "claude-": "anthropic",
    "gpt-": "openai",
    "chatgpt-": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
}


def read_document(
    node: yaml.Node | None, *, file: str, root: Path, path: Path | None
) -> ProjectConfig:
    """The ProjectConfig a document describes; ConfigInvalid lists every problem found."""
    reader = Reader(file)
    config = _Schema(reader).project(node, root, path)
    if reader.problems:
        raise ConfigInvalid(reader.problems)
    return config


def read_observations(node: yaml.Node | None, *, file: str, key: str) -> dict[str, Any]:
    """The ProjectConfig fields a hooks-observations config sets (`hooks`, `execution`,
    `reviewers`, `issues`) when a host module takes it as its own config; ConfigInvalid lists every
    problem, under `key`."""
    reader = Reader(file)
    schema = _Schema(reader)
    schema.observations(node, key)
    if reader.problems:
        raise ConfigInvalid(reader.problems)
    return {k: v for k, v in schema.parts.items() if v is not None}


class _Schema:
    """One read of a document; what it finds goes to the reader's problems."""

    def __init__(self, reader: Reader) -> None:
        self.r = reader
        self.parts: dict[str, Any] = {}

    def project(self, node: yaml.Node | None, root: Path, path: Path | None) -> ProjectConfig:
        top = self.r.mapping(node, "", TOP_KEYS) or {}
        tools = self.modules(top.get("tools"), "tools", TOOL_MODULES)
        behaviors = self.modules(top.get("behaviors"), "behaviors", BEHAVIOR_MODULES)
        if "trajectory" in top:
            self.parts["trajectory"] = read_trajectory(self.r, top["trajectory"], "trajectory")
        if "memory" in top:
            self.parts["memory"] = read_memory(self.r, top["memory"], "memory", self.model)
        if "scoring" in top:
            self.parts["scoring"] = read_scoring(self.r, top["scoring"], "scoring", self.model)
        if "side_effects" in top:
            self.parts["side_effects"] = read_side_effects(
                self.r, top["side_effects"], "side_effects"
            )
        if "compliance" in top:
            self.parts["compliance"] = read_compliance(self.r, top["compliance"], "compliance")
        parts = {k: v for k, v in self.parts.items() if v is not None}
        return ProjectConfig(root=root, path=path, tools=tools, behaviors=behaviors, **parts)

    # -- modules -------------------------------------------------------------------------------

    def modules(
        self, node: yaml.Node | None, key: str, known: tuple[str, ...]
    ) -> tuple[Module, ...]:
        found: list[Module] = []
        for i, item in enumerate(self.r.sequence(node, key) or []):
            where = f"{key}[{i}]"
            entry = self.r.mapping(item, where, MODULE_KEYS)
            if entry is None:
                continue
            if "module" not in entry:
                self.r.problem(item, where, f"needs `module:`, one of: {', '.join(known)}")
                continue
            name = self.r.choice(entry["module"], f"{where}.module", known)
            source = self.r.string(entry.get("source"), f"{where}.source", "") or ""
            if name is None:
                continue
            if any(m.module == name for m in found):
                self.r.problem(item, where, f"module {name!r} is listed twice")
            found.append(Module(name, source))
            config = entry.get("config")
            if name == OBSERVATIONS:
                self.observations(config, f"{where}.config")
            elif name == DISPLAY:
                self.parts["display"] = self.display(config, f"{where}.config")
            elif config is not None:
                self.r.mapping(config, f"{where}.config", ())
        return tuple(found)

    def observations(self, node: yaml.Node | None, key: str) -> None:
        config = self.r.mapping(node, key, OBSERVATIONS_KEYS)
        if config is None:
            return
        if "hooks" in config:
            self.parts["hooks"] = self.hooks(config["hooks"], f"{key}.hooks")
        if "execution" in config:
            self.parts["execution"] = self.execution(config["execution"], f"{key}.execution")
        self.parts["reviewers"] = self.reviewers(config.get("observers"), f"{key}.observers")
        if "post_processing" in config:
            self.parts["issues"] = self.post_processing(
                config["post_processing"], f"{key}.post_processing"
            )

    # -- hooks-observations --------------------------------------------------------------------

    def hooks(self, node: yaml.Node, key: str) -> tuple[HookSpec, ...] | None:
        items = self.r.sequence(node, key)
        if items is None:
            return None
        if not items:
            self.r.problem(
                node, key, "needs at least one hook (e.g. `- trigger: response:complete`)"
            )
            return None
        specs = [self.hook(item, f"{key}[{i}]") for i, item in enumerate(items)]
        return tuple(s for s in specs if s is not None) if None not in specs else None

    def hook(self, node: yaml.Node, key: str) -> HookSpec | None:
        hook = self.r.mapping(node, key, HOOK_KEYS)
        if hook is None:
            return None
        trigger = self.r.string(hook.get("trigger"), f"{key}.trigger", "response:complete")
        if (
            trigger is not None
            and trigger not in HOOK_EVENTS
            and not (trigger.startswith(MARKER_HOOK) and len(trigger) > len(MARKER_HOOK))
        ):
            allowed = [*HOOK_EVENTS, f"{MARKER_HOOK}<Name>"]
            hint = did_you_mean(trigger, HOOK_EVENTS)
            self.r.problem(
                hook["trigger"],
                f"{key}.trigger",
                f"{trigger!r} is not a hook{hint}; one of: {', '.join(allowed)}",
            )
            trigger = None
        priority = self.r.integer(hook.get("priority"), f"{key}.priority", 5, minimum=0)
        tools = self.r.strings(hook.get("tools"), f"{key}.tools")
        if tools and trigger != "tool:post":
            self.r.problem(hook["tools"], f"{key}.tools", "only a `tool:post` hook takes `tools`")
        if trigger is None or priority is None or tools is None:
            return None
        return HookSpec(trigger, priority, tools)

    def execution(self, node: yaml.Node, key: str) -> Execution | None:
        config = self.r.mapping(node, key, EXECUTION_KEYS)
        if config is None:
            return None
        default = Execution()
        mode = self.r.choice(config.get("mode"), f"{key}.mode", MODES, default.mode, MODE_ALIASES)
        most = self.r.integer(
            config.get("max_concurrent"), f"{key}.max_concurrent", default.max_concurrent
        )
        timeout = self.r.number(
            config.get("timeout_per_observer"),
            f"{key}.timeout_per_observer",
            default.timeout_per_observer,
        )
        on_timeout = self.r.choice(
            config.get("on_timeout"), f"{key}.on_timeout", ("skip", "fail"), default.on_timeout
        )
        if mode is None or most is None or timeout is None or on_timeout is None:
            return None
        return Execution(mode, most, timeout, on_timeout)  # type: ignore[arg-type]

    def reviewers(self, node: yaml.Node | None, key: str) -> tuple[ReviewerConfig, ...] | None:
        items = self.r.sequence(node, key)
        if items is None:
            return None
        found: list[ReviewerConfig] = []
        names: dict[str, int] = {}
        for i, item in enumerate(items):
            reviewer = self.reviewer(item, f"{key}[{i}]")
            if reviewer is None:
                continue
            if reviewer.name in names:
                self.r.problem(
                    item,
                    f"{key}[{i}].name",
                    f"{reviewer.name!r} is already the name of {key}[{names[reviewer.name]}]",
                )
            elif reviewer.name in BUILTIN:
                self.r.problem(
                    item,
                    f"{key}[{i}].name",
                    f"{reviewer.name!r} is the name of a built-in observer; pick another",
                )
            names.setdefault(reviewer.name, i)
            found.append(reviewer)
        return tuple(found)

    def reviewer(self, node: yaml.Node, key: str) -> ReviewerConfig | None:
        config = self.r.mapping(node, key, REVIEWER_KEYS, {"type": BUILTIN_HINT})
        if config is None:
            return None
        missing = [k for k in ("name", "role", "focus", "model", "watch") if k not in config]
        if missing:
            self.r.problem(
                node,
                key,
                f"missing {', '.join(missing)} (every observer needs "
                "name, role, focus, model and watch)",
            )
        text = {
            k: self.r.string(config.get(k), f"{key}.{k}", "") for k in ("name", "role", "focus")
        }
        model = self.model(config.get("model"), f"{key}.model")
        watch = self.watch(config.get("watch"), f"{key}.watch")
        timeout = self.r.number(config.get("timeout"), f"{key}.timeout", 30.0)
        enabled = self.r.boolean(config.get("enabled"), f"{key}.enabled", True)
        metadata = self.r.mapping(config.get("metadata"), f"{key}.metadata")
        values = (*text.values(), model, watch, timeout, enabled, metadata)
        if missing or any(v is None for v in values):
            return None
        return ReviewerConfig(
            name=text["name"] or "",
            role=text["role"] or "",
            focus=text["focus"] or "",
            model=model or "",
            watch=watch or (),
            timeout=timeout or 30.0,
            enabled=bool(enabled),
            metadata=self.r.plain(config.get("metadata"), f"{key}.metadata") or {},
        )

    def model(self, node: yaml.Node | None, key: str) -> str | None:
        spec = self.r.string(node, key, "")
        if not spec:
            return None
        provider, colon, name = spec.partition(":")
        if colon and provider in PROVIDERS and name:
            return spec
        for prefix, bare_provider in BARE_MODELS.items():
            if not colon and spec.startswith(prefix):
                return f"{bare_provider}:{spec}"
        hint = did_you_mean(provider, PROVIDERS) if colon else ""
        self.r.problem(
            node,
            key,
            f"{spec!r} is not a model string{hint}; write provider:model "
            f"with a provider of: {', '.join(PROVIDERS)} (e.g. local:smollm2)",
        )
        return None

    def watch(self, node: yaml.Node | None, key: str) -> tuple[WatchTarget, ...] | None:
        items = self.r.sequence(node, key)
        if items is None:
            return None
        if not items:
            if node is not None:
                self.r.problem(node, key, "needs at least one target (type: files or conversation)")
            return None
        targets = [self.target(item, f"{key}[{i}]") for i, item in enumerate(items)]
        return None if None in targets else tuple(t for t in targets if t is not None)

    def target(self, node: yaml.Node, key: str) -> WatchTarget | None:
        keys = sorted({k for keys in WATCH_TYPES.values() for k in keys})
        config = self.r.mapping(node, key, keys)
        if config is None:
            return None
        if "type" not in config:
            self.r.problem(node, key, f"needs `type:`, one of: {', '.join(WATCH_TYPES)}")
            return None
        kind = self.r.choice(config["type"], f"{key}.type", tuple(WATCH_TYPES))
        if kind is None:
            return None
        for name in config:
            if name not in WATCH_TYPES[kind]:
                self.r.problem(
                    config[name],
                    f"{key}.{name}",
                    f"a {kind} target does not take "
                    f"`{name}`; it takes: {', '.join(WATCH_TYPES[kind][1:])}",
                )
        if kind == "files":
            paths = self.r.strings(config.get("paths"), f"{key}.paths")
            if paths is not None and not paths:
                self.r.problem(node, key, "a files target needs `paths:` (glob patterns)")
            return FilesTarget(paths) if paths else None
        tools = self.r.boolean(config.get("include_tool_calls"), f"{key}.include_tool_calls", True)
        reasoning = self.r.boolean(
            config.get("include_reasoning"), f"{key}.include_reasoning", True
        )
        if tools is None or reasoning is None:
            return None
        return ConversationTarget(tools, reasoning)

    def post_processing(self, node: yaml.Node, key: str) -> IssueFiling | None:
        config = self.r.mapping(node, key, ("create_issues_for",))
        if config is None or "create_issues_for" not in config:
            return None
        key = f"{key}.create_issues_for"
        issues = self.r.mapping(config["create_issues_for"], key, ISSUE_KEYS)
        if issues is None:
            return None
        default = IssueFiling()
        severities = self.r.strings(issues.get("severity"), f"{key}.severity") or default.severities
        for level in severities:
            if level not in SEVERITIES:
                self.r.problem(
                    issues["severity"],
                    f"{key}.severity",
                    f"{level!r} is not a severity; one of: {', '.join(SEVERITIES)}",
                )
        file = self.r.string(issues.get("file"), f"{key}.file", default.file)
        if file and (PurePosixPath(file).is_absolute() or ".." in PurePosixPath(file).parts):
            self.r.problem(
                issues["file"],
                f"{key}.file",
                "must be a path inside the project (relative, without ..)",
            )
            file = None
        kind = self.r.string(issues.get("issue_type"), f"{key}.issue_type", "bug")
        assign = self.r.boolean(issues.get("auto_assign"), f"{key}.auto_assign", False)
        github = self.r.boolean(issues.get("github"), f"{key}.github", False)
        if file is None or kind is None or assign is None or github is None:
            return None
        return IssueFiling(tuple(severities), kind, assign, file, github)

    # -- display -------------------------------------------------------------------------------

    def display(self, node: yaml.Node | None, key: str) -> DisplayOptions | None:
        config = self.r.mapping(node, key, DISPLAY_KEYS)
        if config is None:
            return None
        style = self.r.choice(config.get("style"), f"{key}.style", STYLES, "progress_bar")
        create = self.r.boolean(config.get("show_on_create"), f"{key}.show_on_create", True)
        resolve = self.r.boolean(config.get("show_on_resolve"), f"{key}.show_on_resolve", True)
        if style is None or create is None or resolve is None:
            return None
        return DisplayOptions(style, create, resolve)
