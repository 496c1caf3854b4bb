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


def print_results(results: list[Result]) -> int:
    """Print one benchmark's figures, aligned; 1 when one missed its target, else 0."""
    width = max(len(r.name) for r in results)
    for result in results:
        print(f"  {result.name.ljust(width)}  {result.value:>18}  {result.note}")
    return 0 if all(r.ok for r in results) else 1
