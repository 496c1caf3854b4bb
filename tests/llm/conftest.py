"""Servers for the model tests, all on 127.0.0.1: a real llama_cpp.server with the packaged
SmolLM2 model, and a small HTTP server that answers with canned responses in a provider's wire
format (what a paid API would send, or a broken one)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator

import pytest
from llm_wire import CannedServer, LlamaServer, canned_server, free_port

from onlooker.llm.local import LOCAL_MODELS


@pytest.fixture(scope="module")
def llama_server() -> Iterator[LlamaServer]:
    """`python -m llama_cpp.server` with SmolLM2-135M on a free port; stopped by its PID."""
    gguf = LOCAL_MODELS["smollm2"].locate("local:smollm2")
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
        "--port", str(port), "--chat_format", "chatml", "--n_ctx", "1024", "--n_threads", "1",
        "--n_threads_batch", "1",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1
    )
    log: list[str] = []
    ready = threading.Event()

    def drain() -> None:  # read the log as it comes, so the server never blocks on a full pipe
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()  # the process ended: stop waiting

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        if not ready.wait(120) or process.poll() is not None:
            pytest.fail("llama_cpp.server did not start:\n" + "".join(log[-30:]))
        server = LlamaServer(process, port, log)
        warm_up(server)
        yield server
    finally:
        process.terminate()  # by its PID: Popen signals exactly the process it started
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(10)
        if process.stderr is not None:
            process.stderr.close()


def warm_up(server: LlamaServer) -> None:
    """One 1-token answer, so the weights are paged in before the tests time anything."""
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(
            {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        ).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 200


@pytest.fixture
def canned() -> Iterator[CannedServer]:
    """A server answering with canned responses; set them with `canned.answer(Reply(...))`."""
    with canned_server() as server:
        yield server
