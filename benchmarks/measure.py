"""What a benchmark reports: named figures, with whether each met its target."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Result:
    """One figure of a benchmark."""

    name: str
    value: str
    note: str = ""
    ok: bool = True
