"""FindingQuery's time and mention filters, applied in SQL (and never answered from the counts)."""

from __future__ import annotations

from pathlib import Path

from onlooker import FixedClock
from onlooker.core.assessment import Finding
from onlooker.store import FindingQuery, Store


def test_created_after_before_and_mentions(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path / "home", clock=clock) as store:
        first = store.create(
            [Finding(observer="review", content="Race in src/cache.py")], project="p"
        )
        clock.advance(minutes=10)
        middle = clock.now()
        store.create(
            [Finding(observer="review", content="Slow query", source_ref="src/db/query.py:4")],
            project="p",
        )
        clock.advance(minutes=10)
        store.create(
            [Finding(observer="review", content="Unbounded retries", evidence="see retry.py")],
            project="p",
        )

        def contents(**filters: object) -> list[str]:
            page = store.query(FindingQuery(project="p", sort_by="created_at", **filters))  # type: ignore[arg-type]
            return [o.finding.content for o in page.observations]

        assert contents(created_after=middle) == ["Unbounded retries", "Slow query"]
        assert contents(created_before=middle) == ["Race in src/cache.py"]
        assert contents(created_after=middle, created_before=clock.now()) == ["Slow query"]
        assert contents(mentions=("cache.py",)) == ["Race in src/cache.py"]
        assert contents(mentions=("db/query.py", "retry.py")) == ["Unbounded retries", "Slow query"]
        assert contents(mentions=("CACHE.PY",)) == []
        counted = store.query(FindingQuery(project="p", created_after=middle, limit=0))
        assert counted.count == 2
        assert first[0].observation.finding.created_at is not None
