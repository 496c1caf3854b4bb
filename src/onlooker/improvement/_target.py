"""What an improvement changes: the project's instructions file or one agent's prompt.

`InstructionTarget.project(root)` is AGENTS.md when the project has one, else CLAUDE.md.
`InstructionTarget.agent(root, name, host)` is where that host keeps the agent's prompt:
Claude Code's `.claude/agents/<name>.md`; opencode's `.opencode/agents/<name>.md`, or
`opencode.json`'s `agent.<name>.prompt` (inline text, or a `{file:...}` reference that is
followed). Every path is checked to lie inside the project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ImprovementError
from ._files import decode, read_bytes
from ._jsonc import find_string

PROJECT_FILES = ("AGENTS.md", "CLAUDE.md")
HOSTS = ("claude_code", "opencode")
OPENCODE_CONFIGS = ("opencode.json", "opencode.jsonc")
STATE_DIR = ".onlooker"
_AGENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_FILE_REFERENCE = re.compile(r"^\{file:(.+)\}$")


@dataclass(frozen=True, slots=True)
class InstructionTarget:
    """A file onlooker may improve, with where its backups and lock live.

    `json_path` is set when the text is a string inside a JSON file (an inline opencode prompt):
    then only that string is edited and the rest of the file is kept byte for byte.
    """

    root: Path
    path: Path
    label: str
    backup_key: str
    agent_name: str | None = None
    host: str | None = None
    json_path: tuple[str, ...] | None = None

    @classmethod
    def project(cls, root: Path, filename: str | None = None) -> InstructionTarget:
        """The project's instructions file: `filename`, else AGENTS.md when present, else
        CLAUDE.md (created on the first apply)."""
        root = _project_root(root)
        if filename is None:
            present = [name for name in PROJECT_FILES if (root / name).exists()]
            filename = present[0] if present else PROJECT_FILES[1]
        relative = _relative(filename, "filename")
        path = _inside(root, root / relative)
        return cls(root, path, relative.as_posix(), relative.as_posix())

    @classmethod
    def agent(cls, root: Path, agent_name: str, host: str = "claude_code") -> InstructionTarget:
        """The prompt file of agent `agent_name` for `host` (claude_code or opencode)."""
        root = _project_root(root)
        if not _AGENT_NAME.match(agent_name) or ".." in agent_name:
            raise ImprovementError(
                f"agent name {agent_name!r}: letters, digits, '_', '-' and '.' only"
            )
        if host not in HOSTS:
            raise ImprovementError(f"host {host!r}: one of {', '.join(HOSTS)}")
        label = f"{agent_name} prompt"
        key = f"agents/{agent_name}" if host == "claude_code" else f"agents/{agent_name}@{host}"
        if host == "claude_code":
            path = _inside(root, root / ".claude" / "agents" / f"{agent_name}.md")
            return cls(root, path, label, key, agent_name, host)
        return _opencode_agent(root, agent_name, label, key)

    @property
    def kind(self) -> str:
        """`agents_md` for the project's instructions, `agent_prompt` for an agent's prompt."""
        return "agents_md" if self.agent_name is None else "agent_prompt"

    @property
    def backups(self) -> Path:
        """The folder of this target's backups and their index."""
        return self.root / STATE_DIR / "backups" / self.backup_key

    @property
    def lock_path(self) -> Path:
        """The lock of the file written (shared by every target in the same file)."""
        relative = self.path.relative_to(self.root).as_posix()
        return self.root / STATE_DIR / "locks" / f"{relative}.lock"


def _opencode_agent(root: Path, name: str, label: str, key: str) -> InstructionTarget:
    for folder in ("agents", "agent"):
        markdown = root / ".opencode" / folder / f"{name}.md"
        if markdown.exists():
            return InstructionTarget(root, _inside(root, markdown), label, key, name, "opencode")
    for config_name in OPENCODE_CONFIGS:
        config = root / config_name
        data = read_bytes(config)
        if data is None:
            continue
        text = decode(config, data).text
        span = find_string(text, ("agent", name, "prompt"), config)
        if span is None:
            continue
        reference = _FILE_REFERENCE.match(span.value.strip())
        if reference is None:
            path = _inside(root, config)
            return InstructionTarget(
                root, path, label, key, name, "opencode", ("agent", name, "prompt")
            )
        referenced = Path(reference.group(1).strip()).expanduser()
        if not referenced.is_absolute():
            referenced = config.parent / referenced
        path = _inside(root, referenced, f"{config} agent.{name}.prompt")
        return InstructionTarget(root, path, label, key, name, "opencode")
    path = _inside(root, root / ".opencode" / "agents" / f"{name}.md")
    return InstructionTarget(root, path, label, key, name, "opencode")


def _project_root(root: Path) -> Path:
    resolved = Path(root).resolve()
    if not resolved.is_dir():
        raise ImprovementError(f"{root}: the project folder does not exist")
    return resolved


def _relative(name: str, field: str) -> Path:
    relative = Path(name)
    if not name or relative.is_absolute() or ".." in relative.parts:
        raise ImprovementError(f"{field} {name!r}: a file name inside the project")
    return relative


def _inside(root: Path, path: Path, named_by: str | None = None) -> Path:
    """`path` with symlinks followed, refused unless it lies inside the project."""
    resolved = path.resolve()
    if resolved != root and root in resolved.parents:
        return resolved
    where = f" (named by {named_by})" if named_by else ""
    raise ImprovementError(
        f"{path}{where}: lies outside the project {root}; onlooker writes inside it only"
    )
