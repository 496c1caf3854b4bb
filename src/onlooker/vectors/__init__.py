"""Search by meaning: local sentence embeddings (int8 MiniLM on onnxruntime) and a vector index
kept in the store's SQLite file, searched by cosine (numpy, sqlite-vec or pure Python).

`Embedder` embeds texts; `VectorIndex` keeps one kind of vectors and searches them.
"""

from .embeddings import Embedder
from .index import VectorIndex

__all__ = ["Embedder", "VectorIndex"]
