"""Exact top-k over a large matrix in two passes: int8 codes first, float32 for the few rows that
can still be in the top k.

Each row x (unit length) is kept as int8 codes c and a scale s (x ≈ s·c, s = max|x| / 127) with
two bounds: ‖x − s·c‖ and ‖s·c‖. The query q is coded alike (q ≈ t·d). Then for every row

    |q·x − s·t·(c·d)| ≤ ‖x − s·c‖ + ‖q − t·d‖·‖s·c‖ (+ float32 rounding, SLACK),

so only rows whose code score comes within twice the largest such bound of the k-th best can be
in the top k; they are scored in float32 exactly as a full scan scores them, and the answer is the
full scan's. The int8 pass reads a quarter of the bytes (SIMD int8 dot products from `simsimd`, an
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


BLOCK = 1024
"""Rows per block when the k-th best code score is bounded from block maxima."""
GATHERED = 4
"""Codes of row selections kept (a project's rows: gathering 50,000 of 1M rows' codes costs ~9 ms,
scoring them ~1 ms); each is dropped with the selection it was made for."""


class Codes:
    """int8 codes of a float32 matrix's rows with their scales, and the largest ‖x − s·c‖ and
    ‖s·c‖ of any row, grown as rows are added."""

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self.count = 0
        self.codes: Any = np.zeros((0, 0), dtype=np.int8)
        self.scales: Any = np.zeros(0, dtype=np.float64)
        self.error = 0.0
        self.norm = 0.0
        self._gathered: dict[int, tuple[Any, Any, Any]] = {}

    def cover(self, matrix: Any, count: int) -> None:
        """Code rows [self.count, count) of `matrix` (rows below were coded before)."""
        np = self._np
        if count <= self.count:
            return
        if count > len(self.codes):
            size = max(count, 2 * len(self.codes), 1024)
            codes = np.zeros((size, matrix.shape[1]), dtype=np.int8)
            scales = np.zeros(size, dtype=np.float64)
            if self.count:
                codes[: self.count] = self.codes[: self.count]
                scales[: self.count] = self.scales[: self.count]
            self.codes, self.scales = codes, scales
        for start in range(self.count, count, 8192):
            end = min(start + 8192, count)
            codes, scales, errors, norms = _coded(np, matrix[start:end])
            self.codes[start:end] = codes
            self.scales[start:end] = scales
            self.error = max(self.error, float(errors.max()))
            self.norm = max(self.norm, float(norms.max()))
        self.count = count

    def candidates(self, query: Any, limit: int, among: Any = None) -> Any:
        """Rows (ascending) that can be among the `limit` best for `query` (float32, unit), of
        every coded row or of the rows `among` (ascending row numbers: a filter's rows).

        With B the largest error of a code score, every score is within B of its code score;
        the k-th best code score is at least the k-th largest of the block maxima, so a row of
        the top k has a code score at least that minus 2B. Three passes over a vector of floats,
        no sort of them all."""
        import simsimd

        np = self._np
        codes, scale, error, _ = _coded(np, query[None, :].astype(np.float32))
        if among is None:
            rows, scales = self.codes[: self.count], self.scales[: self.count]
        else:
            rows, scales = self._gather(among)
        approx = np.asarray(simsimd.cdist(codes, rows, metric="dot"))[0]
        approx *= scales
        approx *= float(scale[0])
        bound = self.error + float(error[0]) * self.norm + SLACK
        whole = len(approx) // BLOCK * BLOCK
        maxima = approx[:whole].reshape(-1, BLOCK).max(axis=1)
        if whole < len(approx):
            maxima = np.append(maxima, approx[whole:].max())
        if len(maxima) < limit:
            floor = np.partition(approx, len(approx) - limit)[len(approx) - limit]
        else:
            floor = np.partition(maxima, len(maxima) - limit)[len(maxima) - limit]
        found = np.flatnonzero(approx >= floor - 2 * bound)
        return found if among is None else among[found]

    def _gather(self, among: Any) -> tuple[Any, Any]:
        """The codes and scales of rows `among`, kept for the same array object (rows once coded
        never change: the matrix only grows)."""
        kept = self._gathered.get(id(among))
        if kept is not None and kept[0] is among:
            return kept[1], kept[2]
        found = (among, self.codes[among], self.scales[among])
        if len(self._gathered) >= GATHERED:
            self._gathered.pop(next(iter(self._gathered)))
        self._gathered[id(among)] = found
        return found[1], found[2]


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
