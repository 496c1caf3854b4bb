"""The memory model is opted into and visible: `install claude-code --memory-model` keeps the
choice; `config show`, `status` and `doctor` say which model memory uses and what it has cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from onlooker.llm import Usage
from onlooker.memory import Memories
from onlooker.memory.budget import used
from onlooker.store import Store

ONLOOKER = Path(sys.executable).with_name("onlooker")


def onlooker(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ONLOOKER), *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def shown(cwd: Path) -> dict[str, str]:
    done = onlooker("config", "show", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    memory: dict[str, str] = json.loads(done.stdout)["memory"]
    return memory


def test_nothing_goes_to_a_model_until_one_is_chosen(tmp_path: Path, onlooker_home: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    assert shown(project)["modelInEffect"] == "none: rule-based digest"

    done = onlooker("install", "claude-code", "--no-mcp", "--memory-model", "claude-code:haiku",
                    cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "memory model claude-code:haiku for every project" in done.stdout
    memory = shown(project)
    assert memory["modelInEffect"] == "claude-code:haiku"
    assert memory["modelSource"] == f"chosen at install ({onlooker_home / 'memory.json'})"

    (project / ".onlooker").mkdir()
    (project / ".onlooker" / "config.yaml").write_text("memory:\n  model: local:smollm2\n")
    assert shown(project)["modelInEffect"] == "local:smollm2"  # the project's own choice wins
    (project / ".onlooker" / "config.yaml").unlink()

    bad = onlooker("install", "claude-code", "--no-mcp", "--memory-model", "claude:haiku",
                   cwd=project)  # fmt: skip
    assert bad.returncode != 0 and "not a model string" in bad.stderr
    assert shown(project)["modelInEffect"] == "claude-code:haiku"

    onlooker("install", "claude-code", "--no-mcp", "--memory-model", "none", cwd=project)
    assert shown(project)["modelInEffect"] == "none: rule-based digest"


def test_status_and_doctor_say_what_memory_used(tmp_path: Path, onlooker_home: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    onlooker("install", "claude-code", "--no-mcp", "--memory-model", "claude-code:haiku",
             cwd=project)  # fmt: skip
    with Store(onlooker_home) as store:
        memories = Memories(store)
        day = store.clock.now().strftime("%Y-%m-%d")
        for tokens in (1200, 900):
            memories.record_model_use(used(project="shop", session_id="s1", model="claude-code:haiku",
                day=day, usage=Usage(tokens, 100, 0.0015)))  # fmt: skip
        memories.record_model_use(used(project="shop", session_id="s1", model="claude-code:haiku",
            day=day, usage=None, skipped="session"))  # fmt: skip

    status = json.loads(onlooker("status", "--json", cwd=project).stdout)["memory_model"]
    assert status["model"] == "claude-code:haiku"
    assert (status["calls"], status["input_tokens"], status["output_tokens"]) == (2, 2100, 200)
    assert status["cost_usd"] == 0.003 and status["over_budget"] == {"session": 1, "day": 0}
    text = onlooker("status", cwd=project).stdout
    assert "Memory model: claude-code:haiku (from chosen at install" in text
    assert "2 calls, 2,100 input + 200 output tokens, $0.0030 estimated" in text
    assert "1 batches made by rule instead, over the token budget" in text

    doctor = onlooker("doctor", "--json", "--project", str(project), cwd=project)
    assert json.loads(doctor.stdout)["memory_model"]["calls"] == 2
    said = onlooker("doctor", "--project", str(project), cwd=project).stdout
    assert "memory model   claude-code:haiku" in said and "$0.0030 estimated" in said


def test_an_interactive_install_asks_once(tmp_path: Path, onlooker_home: Path) -> None:
    """In a terminal, with Claude Code on PATH and no choice made yet, install asks (default
    no); once answered it does not ask again."""
    import os
    import pty
    import select

    from onlooker.testing import find_claude

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(find_claude(Path(__file__).resolve().parents[2]))
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def install(answer: str) -> str:
        main, child = pty.openpty()
        process = subprocess.Popen(
            [str(ONLOOKER), "install", "claude-code", "--no-mcp"], cwd=project, env=env,
            stdin=child, stdout=child, stderr=child, close_fds=True,
        )  # fmt: skip
        os.close(child)
        said = b""
        while process.poll() is None or select.select([main], [], [], 0.2)[0]:
            if not select.select([main], [], [], 0.2)[0]:
                continue
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            said += chunk
            if b"[y/N]" in chunk:
                os.write(main, answer.encode() + b"\n")
        process.wait(timeout=60)
        os.close(main)
        return said.decode(errors="replace")

    declined = install("n")
    assert "through your own Claude Code (claude-code:haiku)?" in declined
    assert shown(project)["modelInEffect"] == "none: rule-based digest"
    assert "[y/N]" not in install("n")  # a no is remembered too
    (onlooker_home / "memory.json").unlink()
    first = install("y")
    assert "through your own Claude Code (claude-code:haiku)?" in first
    assert "memory model claude-code:haiku for every project" in first
    assert shown(project)["modelInEffect"] == "claude-code:haiku"
    again = install("n")
    assert "[y/N]" not in again  # asked once
    assert shown(project)["modelInEffect"] == "claude-code:haiku"


def test_opencode_install_keeps_an_opencode_model(tmp_path: Path, onlooker_home: Path) -> None:
    """`install opencode --memory-model opencode:...` keeps the user's own opencode as memory's
    model; config show, status and doctor name it; a model string opencode cannot take is
    refused, saying what to write."""
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    done = onlooker("install", "opencode", "--memory-model", "opencode:anthropic/claude-haiku-4-5",
                    cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "memory model opencode:anthropic/claude-haiku-4-5 for every project" in done.stdout
    assert (project / ".opencode" / "plugins" / "onlooker.ts").is_file()
    assert shown(project)["modelInEffect"] == "opencode:anthropic/claude-haiku-4-5"

    bad = onlooker("install", "opencode", "--memory-model", "opencode:haiku", cwd=project)
    assert bad.returncode != 0 and "opencode:<provider>/<model>" in bad.stderr
    again = onlooker("install", "opencode", "--memory-model", "opencode:default", cwd=project)
    assert "nothing to change" in again.stdout and "memory model opencode:default" in again.stdout
    assert shown(project)["modelInEffect"] == "opencode:default"
    status = json.loads(onlooker("status", "--json", cwd=project).stdout)["memory_model"]
    assert status["model"] == "opencode:default" and status["source"].startswith("chosen at")
    said = onlooker("doctor", "--project", str(project), cwd=project).stdout
    assert "memory model   opencode:default" in said


def test_an_interactive_opencode_install_offers_the_users_opencode(
    tmp_path: Path, onlooker_home: Path
) -> None:
    """In a terminal, with opencode on PATH and no choice made yet, `install opencode` offers
    opencode:default (default no) and keeps the answer."""
    import os
    import pty
    import select

    binary = Path(__file__).resolve().parents[2] / ".opencode-test" / "node_modules"
    binary = binary / "opencode-linux-x64" / "bin" / "opencode"
    assert binary.is_file(), "run `make opencode`"
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opencode").symlink_to(binary)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    main, child = pty.openpty()
    process = subprocess.Popen(
        [str(ONLOOKER), "install", "opencode"], cwd=project, env=env,
        stdin=child, stdout=child, stderr=child, close_fds=True,
    )  # fmt: skip
    os.close(child)
    said = b""
    while process.poll() is None or select.select([main], [], [], 0.2)[0]:
        if not select.select([main], [], [], 0.2)[0]:
            continue
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        said += chunk
        if b"[y/N]" in chunk:
            os.write(main, b"y\n")
    process.wait(timeout=60)
    os.close(main)
    text = said.decode(errors="replace")
    assert "through your own opencode (opencode:default, the model its config names)?" in text
    assert "memory model opencode:default for every project" in text
    assert shown(project)["modelInEffect"] == "opencode:default"
