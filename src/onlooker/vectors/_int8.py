"""Exact top-k over a large matrix in two passes: int8 codes first, float32 for the few rows that
can still be in the top k.

Each row x (unit length) is kept as int8 codes c and a scale s (x ≈ s·c, s = max|x| / 127) with
two bounds: ‖x − s·c‖ and ‖s·c‖. The query q is coded alike (q ≈ t·d). Then for every row

    |q·x − s·t·(c·d)| ≤ ‖x − s·c‖ + ‖q − t·d‖·‖s·c‖ (+ float32 rounding, SLACK),

so once the k-th best lower bound is known, only rows whose upper bound reaches it can be in the
top k; they are scored in float32 exactly as a full scan scores them, and the answer is the full
scan's. The int8 pass reads a quarter of the bytes (SIMD int8 dot products from `simsimd`, an
optional dependency of the embeddings extra); without simsimd the full float32 scan runs.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any

SLACK = 1e-4
"""Room for float32 rounding in the scores the full scan computes (≤ ~2.5e-5 at 384 dims)."""


@cache
def available() -> bool:
    """Whether the int8 pass can run (simsimd is installed)."""
    try:
        return importlib.util.find_spec("simsimd") is not None
    except ValueError:  # blocked in sys.modules (tests): as good as missing
        return False


class Codes:
    """int8 codes of a float32 matrix's rows, with their scales and error bounds, grown as rows
    are added."""

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self.count = 0
        self.codes: Any = np.zeros((0, 0), dtype=np.int8)
        self.scales: Any = np.zeros(0, dtype=np.float64)
        self.errors: Any = np.zeros(0, dtype=np.float64)
        self.norms: Any = np.zeros(0, dtype=np.float64)

    def cover(self, matrix: Any, count: int) -> None:
        """Code rows [self.count, count) of `matrix` (rows below were coded before)."""
        np = self._np
        if count <= self.count:
            return
        if count > len(self.codes):
            size = max(count, 2 * len(self.codes), 1024)
            grown = np.zeros((size, matrix.shape[1]), dtype=np.int8)
            if self.count:
                grown[: self.count] = self.codes[: self.count]
            self.codes = grown
            for name in ("scales", "errors", "norms"):
                old = getattr(self, name)
                new = np.zeros(size, dtype=np.float64)
                new[: self.count] = old[: self.count]
                setattr(self, name, new)
        for start in range(self.count, count, 8192):
            end = min(start + 8192, count)
            codes, scales, errors, norms = _coded(np, matrix[start:end])
            self.codes[start:end] = codes
            self.scales[start:end] = scales
            self.errors[start:end] = errors
            self.norms[start:end] = norms
        self.count = count

    def candidates(self, query: Any, limit: int) -> Any:
        """Rows (ascending) that can be among the `limit` best for `query` (float32, unit)."""
        import simsimd

        np = self._np
        codes, scale, error, _ = _coded(np, query[None, :].astype(np.float32))
        raw = np.asarray(simsimd.cdist(codes, self.codes[: self.count], metric="dot"))[0]
        approx = raw * (self.scales[: self.count] * scale[0])
        bound = self.errors[: self.count] + error[0] * self.norms[: self.count] + SLACK
        lower = approx - bound
        floor = np.partition(lower, len(lower) - limit)[len(lower) - limit]
        return np.flatnonzero(approx + bound >= floor)


def _coded(np: Any, rows: Any) -> tuple[Any, Any, Any, Any]:
    """(int8 codes, scale, ‖x − s·c‖, ‖s·c‖) of float32 rows. Worked in float32 (relative
    rounding ~1e-7, far inside SLACK), the bounds rounded up a little."""
    top = np.abs(rows).max(axis=1)
    scales = np.where(top > 0, top / np.float32(127), np.float32(1)).astype(np.float32)
    coded = np.rint(rows * (np.float32(1) / scales)[:, None])  # within ±127: s = max|x| / 127
    decoded = coded * scales[:, None]
    rows = rows - decoded
    errors = np.sqrt(np.einsum("ij,ij->i", rows, rows)) * 1.00001 + 1e-7
    norms = np.sqrt(np.einsum("ij,ij->i", coded, coded)) * scales * 1.00001
    return coded.astype(np.int8), scales, errors, norms
