"""The families corpus (tests/fixtures/redaction/families.py, issue 26): secrets in shapes the
first corpus does not hold, each in the hook input it arrives in, and look-alikes that must stay.
0 leaks and 0 over-redactions, through `redact` on the text and `redact_value` on the input."""

from __future__ import annotations

import json
from collections import Counter

import families_corpus
import pytest
from carriers import hook_input

from onlooker.text.redact import redact, redact_value

CASES = families_corpus.CASES
CONTROLS = families_corpus.CONTROLS
FAMILIES = (
    "vendor token", "authorization header", "cloud credentials", "url credential",
    "secret env name", "config", "code literal", "key format", "cookie", "cli password",
    "stated password", "tool input field",
)  # fmt: skip


def test_the_corpus_is_large_and_covers_every_family_and_carrier() -> None:
    assert len(CASES) >= 300 and len(CONTROLS) >= 50
    per_family = Counter(case.family for case in CASES)
    assert set(per_family) == set(FAMILIES) and min(per_family.values()) >= 15
    carriers = {case.carrier for case in CASES}
    assert len(carriers) == 11


def _leaks(text: str, secrets: tuple[str, ...]) -> list[str]:
    return [s for s in secrets if s in text or json.dumps(s)[1:-1] in text]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}-{i}" for i, c in enumerate(CASES)])
def test_every_secret_is_redacted_in_its_carrier(case: families_corpus.FAMILIES.Case) -> None:  # type: ignore[name-defined]
    payload = hook_input(case.carrier, case.text, case.command)
    assert _leaks(json.dumps(redact_value(payload)), case.secrets) == []
    if not case.command:  # a bare output is a secret only beside the command that printed it
        assert _leaks(redact(case.text), case.secrets) == []


@pytest.mark.parametrize("control", CONTROLS, ids=[c.what for c in CONTROLS])
def test_every_control_is_left_alone(control: families_corpus.FAMILIES.Control) -> None:  # type: ignore[name-defined]
    assert redact(control.text) == control.text
    payload = hook_input(control.carrier, control.text)
    assert redact_value(payload) == payload
