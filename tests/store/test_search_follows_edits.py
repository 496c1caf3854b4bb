"""Full-text search follows every edit of a finding: an episode's finding takes its newest
report's text, and resolving it afterwards works (it once left SQLite calling the database
malformed, which failed every SessionEnd whose episodes had grown)."""

from __future__ import annotations

import dataclasses

from onlooker import Finding, FixedClock
from onlooker.store import Store


def test_an_episode_finding_whose_text_changed_is_found_by_it_and_resolves(
    clock: FixedClock,
) -> None:
    first = Finding(content="Bash make check failed the same way fourfold", observer="Stall",
                    severity="high", source_type="conversation", source_ref="episode s1/stall",
                    evidence="calls 2, 4, 6, 8")  # fmt: skip
    grown = dataclasses.replace(first, content="Bash make check failed the same way ninefold",
                                evidence="calls 10, 12, 14, 16, 18 and 4 earlier")  # fmt: skip
    with Store(clock=clock) as store:
        made = store.create([first], project="demo", session_id="s1")[0]
        again = store.create([grown], project="demo", session_id="s1")[0]
        assert (again.new, again.observation.id) == (False, made.observation.id)
        assert [o.finding.content for o in store.search("ninefold", project="demo")] == [
            grown.content
        ]
        assert store.search("earlier", project="demo")
        assert not store.search("fourfold", project="demo")
        store.resolve(made.observation.id, "the episode ended", project="demo", session_id="s1")
        found = store.search("episode ended", project="demo")
        assert [(o.finding.status, o.finding.content) for o in found] == [
            ("resolved", grown.content)
        ]
