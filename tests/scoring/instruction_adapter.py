"""A minimal file writer with the interface scoring calls (`InstructionFiles`), for these tests:
the managed section of a Markdown file is replaced, the previous bytes kept as a numbered backup."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Target:
    path: Path


@dataclass
class SectionFiles:
    backups: dict[Path, list[bytes]] = field(default_factory=dict)

    def project_target(self, root: Path, filename: str | None) -> Target:
        return Target(root / (filename or "AGENTS.md"))

    def agent_target(self, root: Path, agent_name: str, host: str) -> Target:
        folder = ".claude" if host == "claude_code" else ".opencode"
        return Target(root / folder / "agents" / f"{agent_name}.md")

    def apply(self, target: Target, lines: list[str], section: str) -> Any:
        before = target.path.read_bytes() if target.path.exists() else b""
        self.backups.setdefault(target.path, []).append(before)
        text = before.decode().split(f"\n## {section}\n")[0].rstrip("\n")
        body = "\n".join(f"- {line}" for line in lines)
        target.path.parent.mkdir(parents=True, exist_ok=True)
        target.path.write_text(f"{text}\n\n## {section}\n{body}\n")
        return {"path": str(target.path)}

    def rollback(self, target: Target, steps: int) -> Any:
        versions = self.backups[target.path]
        for _ in range(steps):
            restored = versions.pop()
        target.path.write_bytes(restored)
        return {"path": str(target.path)}

    def history(self, target: Target) -> list[Any]:
        return list(self.backups.get(target.path, []))
