"""The blind corpus (tests/fixtures/redaction/blind_*.py): secrets in shapes written without
looking at the rules or the other corpora, one family at a time as issue 26 names them, in the
tool outputs and inputs they arrive in, and look-alikes that must stay. 0 leaks and 0
over-redactions through `redact` on the text and `redact_value` on the hook input."""

from __future__ import annotations

from collections import Counter
from typing import Any

import blind_corpus
import pytest

CASES = blind_corpus.CASES
CONTROLS = blind_corpus.CONTROLS


def test_the_corpus_covers_every_family_with_controls() -> None:
    per_family = Counter(case.family for case in CASES)
    assert len(per_family) == 12 and min(per_family.values()) >= 10
    assert len(CASES) >= 120 and len(CONTROLS) >= 40
    assert len({case.carrier for case in CASES}) == 11


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}-{i}" for i, c in enumerate(CASES)])
def test_every_blind_secret_is_redacted(case: Any) -> None:
    assert blind_corpus.leaks(case) == []


@pytest.mark.parametrize("control", CONTROLS, ids=[c.what for c in CONTROLS])
def test_every_blind_look_alike_stays(control: Any) -> None:
    assert not blind_corpus.changed(control)


def test_the_fourth_to_sixth_held_out_sets_cover_every_family_and_carrier() -> None:
    for cases, controls, least in (
        (blind_corpus.ROUND4, blind_corpus.ROUND4_CONTROLS, (120, 40)),
        (blind_corpus.ROUND5, blind_corpus.ROUND5_CONTROLS, (40, 15)),
        (blind_corpus.ROUND6, blind_corpus.ROUND6_CONTROLS, (40, 15)),
    ):
        assert len(cases) >= least[0] and len(controls) >= least[1]
        assert len({case.family for case in cases}) == 12
        assert len({case.carrier for case in cases}) == 11


@pytest.mark.parametrize("case", blind_corpus.RESIDUAL, ids=lambda c: f"{c.family}-{c.carrier}")
def test_the_residual_held_out_cases_still_leak(case: Any) -> None:
    """What no mechanism reads yet (specs/redaction.md): a random value under a name with no
    secret's word, a password stated with no word for one. Each still leaks; when one no longer
    does, it joins CASES."""
    assert blind_corpus.leaks(case) == list(case.secrets)
