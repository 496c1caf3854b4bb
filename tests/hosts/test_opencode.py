"""opencode's side in onlooker: the plugin file install writes and takes out again, and the hook
service's translation of what the plugin forwards (through the real HookHandler)."""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.errors import InstallError
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.hosts.opencode import HOST, answer, install, plugin_path, uninstall
from onlooker.store import Store
from onlooker.store.home import journal_path, project_for


def test_install_is_idempotent_and_uninstall_puts_back_what_was_there(
    tmp_path: Path, onlooker_home: Path
) -> None:
    path = plugin_path("project", tmp_path)
    assert path == tmp_path / ".opencode" / "plugins" / "onlooker.ts"
    first = install(path, onlooker_home)
    text = path.read_text()  # names no path of this machine: a team commits it
    assert first.changed and sys.executable not in text and str(tmp_path) not in text
    assert 'const SETTINGS = { python: "", client: "" } // onlooker:settings' in text
    assert "daemon/entry.py" in (onlooker_home / "bin" / "onlooker").read_text()
    assert not install(path, onlooker_home).changed
    path.write_text(text.replace("observer_", "observer__"))  # an older plugin file: replaced
    moved = install(path, onlooker_home)
    assert moved.changed and moved.backup is not None
    removed = uninstall(path, onlooker_home)
    assert removed.changed and not path.exists()
    assert not uninstall(path, onlooker_home).changed
    assert not (tmp_path / ".opencode").exists()  # the folders install created, left empty


def test_a_plugin_file_that_is_not_onlookers_is_never_touched(
    tmp_path: Path, onlooker_home: Path
) -> None:
    path = plugin_path("project", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("export const Mine = async () => ({})\n")
    with pytest.raises(InstallError, match="not onlooker's plugin"):
        install(path, onlooker_home)
    assert not uninstall(path, onlooker_home).changed
    assert path.read_text() == "export const Mine = async () => ({})\n"


def test_user_scope_follows_xdg_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert plugin_path("user", tmp_path) == tmp_path / "config/opencode/plugins/onlooker.ts"


def forwarded(hook: str, session: str, cwd: Path, data: dict, out: dict | None = None) -> bytes:
    body = {"host": HOST, "hook": hook, "session_id": session, "cwd": str(cwd),
            "input": data, "output": out or {}}  # fmt: skip
    return json.dumps(body).encode()


def test_the_service_answers_the_plugin_in_opencodes_terms(
    tmp_path: Path, onlooker_home: Path, clock: FixedClock
) -> None:
    project = tmp_path / "shop"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "no-memory").touch()
    with Store(onlooker_home) as store:
        handler = HookHandler(store, clock=clock, hosts={HOST: answer}, wake_worker=lambda _: None)
        created = {"type": "session.created",
                   "properties": {"info": {"id": "ses_1", "directory": str(project)}}}  # fmt: skip
        assert json.loads(handler.handle(forwarded("event", "ses_1", project, created))) == {}
        said = []
        for i in range(4):
            call = {"tool": "bash", "sessionID": "ses_1", "callID": f"c{i}",
                    "args": {"command": "cat tests/test_app.py"}}  # fmt: skip
            out = {"title": "", "output": "cat: tests/test_app.py: No such file or directory",
                   "metadata": {"exit": 1}}  # fmt: skip
            said.append(
                json.loads(
                    handler.handle(forwarded("tool.execute.after", "ses_1", project, call, out))
                )
            )
        assert said[:3] == [{}, {}, {}]
        assert "[Trajectory Assessment - Stall" in said[3]["append"]
        compacting = json.loads(
            handler.handle(forwarded("experimental.session.compacting", "ses_1", project, {}))
        )
        assert any("Active Observations" in text for text in compacting["context"])
        listed = json.loads(handler.handle(forwarded(
            "tool", "ses_1", project, {"name": "observations", "args": {"operation": "list", "status": "open"}}
        )))  # fmt: skip
        assert json.loads(listed["output"])["count"] >= 1
        unknown = handler.handle(json.dumps({"host": "elsewhere", "session_id": "x"}).encode())
        assert unknown == b""
        handler.close()
    assert list((onlooker_home / "spool" / "refused").glob("*.hook"))  # refused, kept apart


READER = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: response:complete
      observers:
        - name: Plain Reader
          role: Reads what the agent said
          focus: Claims without evidence
          model: "openai-compatible:http://127.0.0.1:9/v1#plain"
          watch:
            - type: conversation
              include_reasoning: false
"""
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def part(part_id: str, kind: str, text: str, session: str = "ses_1") -> dict:
    said = {"id": part_id, "sessionID": session, "messageID": "msg_1", "type": kind, "text": text}
    return {"type": "message.part.updated", "properties": {"part": said}}


def test_the_assistants_parts_are_kept_only_for_a_conversation_reviewer(
    tmp_path: Path, onlooker_home: Path, clock: FixedClock
) -> None:
    project = tmp_path / "shop"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "no-memory").touch()
    with Store(onlooker_home) as store:
        handler = HookHandler(store, clock=clock, hosts={HOST: answer}, wake_worker=lambda _: None)

        def send(*parts: dict) -> None:
            for given in parts:
                session = given["properties"]["part"]["sessionID"]  # as the plugin sends it
                sent = handler.handle(forwarded("event", session, project, given))
                assert json.loads(sent) == {}

        send(part("prt_0", "text", "Nobody reads this."))
        (project / ".onlooker" / "config.yaml").write_text(READER)
        send(
            part("prt_1", "reasoning", "Thinking it over."),
            part("prt_2", "text", f"The token is {TOKEN}."),
            part("prt_2", "text", f"The token is {TOKEN}."),  # sent again: recorded once
            part("prt_3", "text", "   "),
            part("prt_4", "text", "A subagent's finding.", session="ses_child"),
        )
        handler.close()
    key = project_for(project)
    records = [json.loads(line) for line in
               journal_path(onlooker_home, key, "ses_1").read_text().splitlines()]  # fmt: skip
    said = [(r["text"], r["reasoning"], r["input_id"]) for r in records
            if r["kind"] == "assistant_message"]  # fmt: skip
    assert said == [("The token is [REDACTED:github_token].", "", "part:prt_2")]
    child = journal_path(onlooker_home, key, "ses_child").read_text()
    assert "A subagent's finding." in child


def test_a_part_that_comes_after_its_tool_call_keeps_when_it_began(
    tmp_path: Path, onlooker_home: Path, clock: FixedClock
) -> None:
    project = tmp_path / "shop"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "no-memory").touch()
    (project / ".onlooker" / "config.yaml").write_text(READER)
    began = clock.now() - timedelta(seconds=3)
    call = {"tool": "bash", "sessionID": "ses_1", "callID": "c1", "args": {"command": "ls"}}
    late = part("prt_1", "text", "Listing first.")
    late["properties"]["part"]["time"] = {"start": int(began.timestamp() * 1000)}
    with Store(onlooker_home) as store:
        handler = HookHandler(store, clock=clock, hosts={HOST: answer}, wake_worker=lambda _: None)
        handler.handle(forwarded("tool.execute.after", "ses_1", project, call, {"output": ""}))
        handler.handle(forwarded("event", "ses_1", project, late))
        handler.handle(forwarded("event", "ses_1", project, part("prt_2", "text", "Done.")))
        handler.close()
    records = [json.loads(line) for line in
               journal_path(onlooker_home, project_for(project), "ses_1").read_text().splitlines()]  # fmt: skip
    at = {r["text"]: r["at"] for r in records if r["kind"] == "assistant_message"}
    # stamped with when it began (the reviewer puts it back before the call), else on arrival
    assert at == {"Listing first.": began.isoformat(), "Done.": clock.now().isoformat()}
