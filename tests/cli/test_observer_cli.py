"""`onlooker observer …` as real commands over a real data home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ONLOOKER = Path(sys.executable).with_name("onlooker")


def observer(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ONLOOKER_HOME": str(project.parent / "home")}
    return subprocess.run(
        [str(ONLOOKER), "observer", *args], capture_output=True, text=True, cwd=project,
        env=env, timeout=120, check=False,
    )  # fmt: skip


def test_without_a_model_status_says_how_to_turn_scoring_on(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    shown = observer(project, "status")
    assert shown.returncode == 0, shown.stderr
    assert "scoring:\n    model:" in shown.stdout
    data = json.loads(observer(project, "status", "--json").stdout)
    assert data["scoring"] is False and data["aggregate"]["total_sessions"] == 0
    refused = observer(project, "score")
    assert refused.returncode == 2 and "Session scoring is off" in refused.stderr


def test_steering_rejections_and_toggles_persist_between_commands(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(
        "scoring:\n  model: openai:gpt-4o-mini\n  detail_level: thorough\n"
    )
    assert observer(project, "steer", "favour", "small", "diffs").returncode == 0
    assert json.loads(observer(project, "steer", "--json").stdout) == {
        "guidance": "favour small diffs"
    }
    observer(project, "reject", "runs no tests")
    assert json.loads(observer(project, "rejections", "--json").stdout)["rejections"] == [
        "runs no tests"
    ]
    observer(project, "auto", "prompts", "on")
    config = json.loads(observer(project, "config", "--json").stdout)
    assert config["auto_update_agent_prompts"] is True and config["auto_update_agents_md"] is False
    assert config["settings"]["detail_level"] == "thorough" and config["active"] is True
    assert observer(project, "unreject", "no tests").returncode == 0
    assert json.loads(observer(project, "rejections", "--json").stdout)["rejections"] == []
    assert observer(project, "steer", "reset").stdout.strip() == "Guidance cleared."
    missing = observer(project, "accept", "1")
    assert missing.returncode == 2 and "no pending improvements" in missing.stderr
    assert "rollback [agent]" in observer(project, "help").stdout


def test_a_bad_scoring_section_names_the_field_and_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(
        "scoring:\n  detail_level: verbose\n  scoring_threshold: 3\n"
    )
    shown = observer(project, "status")
    assert shown.returncode == 2
    assert "config.yaml" in shown.stderr and "scoring.detail_level" in shown.stderr
    assert "scoring.scoring_threshold" in shown.stderr


def with_pending_improvement(tmp_path: Path, agents_md: bytes | None) -> Path:
    """A project with three low sessions scored: one improvement pending for AGENTS.md."""
    from onlooker.core.events import SessionStarted, TurnEnded, UserPrompt
    from onlooker.scoring import ScoringSettings, score_session
    from onlooker.store import Store, project_for
    from onlooker.testing import ScriptedModel

    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text("scoring:\n  model: openai:gpt-4o-mini\n")
    if agents_md is not None:
        (project / "AGENTS.md").write_bytes(agents_md)
    names = ("instruction_following", "completeness", "proactiveness", "code_quality",
             "communication")  # fmt: skip
    model = ScriptedModel([{"overall_score": 0.3, "categories": dict.fromkeys(names, 0.3),
                            "strengths": [], "weaknesses": ["runs no tests"],
                            "suggested_agents_md_update": "Run the tests after editing"}])  # fmt: skip
    name = project_for(str(project))
    with Store(tmp_path / "home") as store:
        for n in range(3):
            at = store.clock.now()
            store.append([SessionStarted(session_id=f"s{n}", seq=1, at=at, source="startup"),
                          UserPrompt(session_id=f"s{n}", seq=2, at=at, text="fix the bug"),
                          TurnEnded(session_id=f"s{n}", seq=3, at=at, last_message="Fixed.")],
                         project=name, session_id=f"s{n}")  # fmt: skip
            score_session(store, model, project=name, session_id=f"s{n}", root=project,
                          settings=ScoringSettings(model="scripted:x"), automatic=True)  # fmt: skip
    return project


def test_accept_history_and_rollback_change_agents_md_reversibly(tmp_path: Path) -> None:
    original = b"# Rules\n\nUse tabs.\n"
    project = with_pending_improvement(tmp_path, original)
    [pending] = json.loads(observer(project, "suggest", "--json").stdout)["pending"]
    assert pending["text"] == "Run the tests after editing"
    applied = json.loads(observer(project, "accept", "1", "--yes", "--json").stdout)["applied"]
    assert "- Run the tests after editing" in (project / "AGENTS.md").read_text()
    assert Path(applied["backup_path"]).read_bytes() == original
    assert Path(applied["backup_path"]).is_relative_to(project / ".onlooker" / "backups")
    history = json.loads(observer(project, "history", "--json").stdout)
    assert [i["status"] for i in history["improvements"]] == ["applied"]
    assert len(history["sessions"]) == 3
    undone = json.loads(observer(project, "rollback", "--json").stdout)
    assert undone["path"] == str((project / "AGENTS.md").resolve())
    assert (project / "AGENTS.md").read_bytes() == original
    again = observer(project, "rollback")
    assert again.returncode == 2 and "cannot roll back 1" in again.stderr


def test_apply_shows_what_will_change_and_changes_nothing_without_yes(tmp_path: Path) -> None:
    original = b"# Rules\n\nUse tabs.\n"
    project = with_pending_improvement(tmp_path, original)
    agents_md = project / "AGENTS.md"
    for args in (("apply",), ("accept", "1"), ("apply", "--dry-run")):
        shown = observer(project, *args)
        assert shown.stdout.splitlines() == [
            f"Improvement 1 would change AGENTS.md ({agents_md.resolve()}), in section "
            "`## Observer Inferred Instructions`:",
            "  + - Run the tests after editing",
            "  for weakness: runs no tests (seen in 3 sessions scoring below 60%)",
            "  backup: what the file holds now is copied into "
            f"{(project / '.onlooker' / 'backups' / 'AGENTS.md').resolve()} first "
            "(`onlooker observer rollback` undoes it)",
        ]
        if "--dry-run" in args:
            assert shown.returncode == 0 and shown.stderr == ""
        else:  # no terminal to ask on: it says how to apply
            assert shown.returncode == 1 and "run again with --yes" in shown.stderr
        assert agents_md.read_bytes() == original
        assert not (project / ".onlooker" / "backups").exists()
    preview = json.loads(observer(project, "apply", "--dry-run", "--json").stdout)
    assert preview["applied"] is None and preview["preview"]["changed"] is True
    assert preview["preview"]["added"] == ["Run the tests after editing"]
    assert preview["preview"]["improvement"]["pattern"] == "runs no tests"
    refused = observer(project, "apply", "--json")
    assert refused.returncode == 1 and json.loads(refused.stdout)["preview"]["changed"]
    assert agents_md.read_bytes() == original
    [still] = json.loads(observer(project, "suggest", "--json").stdout)["pending"]
    assert still["status"] == "pending"

    done = observer(project, "apply", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"AGENTS.md ({agents_md.resolve()}) updated, in section")
    assert "- Run the tests after editing" in agents_md.read_text()
    assert "no pending improvements" in observer(project, "apply", "--yes").stderr


def test_on_a_terminal_apply_asks_and_no_is_the_default(tmp_path: Path) -> None:
    original = b"# Rules\n"
    project = with_pending_improvement(tmp_path, original)
    agents_md = project / "AGENTS.md"
    for typed, applied in (("\n", False), ("n\n", False), ("y\n", True)):
        shown = on_a_terminal(project, ["apply"], typed)
        assert "Improvement 1 would change AGENTS.md" in shown
        assert "Apply this change? [y/N]" in shown
        if applied:
            assert "updated, in section" in shown
            assert "- Run the tests after editing" in agents_md.read_text()
        else:
            assert "Nothing changed." in shown and agents_md.read_bytes() == original


def test_a_line_already_present_is_said_so_without_asking(tmp_path: Path) -> None:
    held = (
        b"# Rules\n\n## Observer Inferred Instructions\n"
        b"*This section is managed by the Observer plugin. Do not edit manually.*\n"
        b"- Run the tests after editing\n"
    )
    project = with_pending_improvement(tmp_path, held)
    dry = observer(project, "apply", "--dry-run")
    assert dry.returncode == 0 and "already present, nothing would change" in dry.stdout
    assert json.loads(observer(project, "suggest", "--json").stdout)["pending"]  # still pending
    shown = observer(project, "apply")  # no terminal, no --yes: nothing to confirm
    assert shown.returncode == 0, shown.stderr
    assert "already present, nothing changed: Run the tests after editing" in shown.stdout
    assert "for weakness: runs no tests" in shown.stdout
    assert (project / "AGENTS.md").read_bytes() == held
    assert not (project / ".onlooker" / "backups" / "AGENTS.md").exists()  # no backup
    history = json.loads(observer(project, "history", "--json").stdout)
    assert [i["status"] for i in history["improvements"]] == ["present"]


def on_a_terminal(project: Path, args: list[str], typed: str) -> str:
    """`onlooker observer ARGS` with a terminal as its input and output; what it showed."""
    import pty

    env = {**os.environ, "ONLOOKER_HOME": str(project.parent / "home"), "TERM": "dumb"}
    leader, follower = pty.openpty()
    done = subprocess.Popen([str(ONLOOKER), "observer", *args], cwd=project, env=env,
                            stdin=follower, stdout=follower, stderr=follower)  # fmt: skip
    os.close(follower)
    shown = b""
    asked = False
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the command ended: the terminal closed
            break
        if not chunk:
            break
        shown += chunk
        if not asked and b"[y/N]" in shown:
            os.write(leader, typed.encode())
            asked = True
    os.close(leader)
    done.wait(timeout=60)
    return shown.decode().replace("\r\n", "\n")
