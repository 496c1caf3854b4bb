"""The secrets corpus: every shape in tests/fixtures/redaction/secrets.json is redacted, every
control in controls.json (code, hashes, UUIDs, paths, prose) is left exactly as it was, and no
input of a megabyte takes long, however it is built from the shapes' own needles."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from onlooker.text.redact import SHAPES, redact, redact_value

CORPUS = Path(__file__).parents[1] / "fixtures" / "redaction"
SECRETS: list[dict[str, str]] = json.loads((CORPUS / "secrets.json").read_text())
CONTROLS: list[dict[str, str]] = json.loads((CORPUS / "controls.json").read_text())


def test_the_corpus_is_large_enough() -> None:
    assert len(SECRETS) >= 60 and len({case["family"] for case in SECRETS}) == len(SECRETS)
    assert len(CONTROLS) >= 40


@pytest.mark.parametrize("case", SECRETS, ids=[case["family"] for case in SECRETS])
def test_every_secret_shape_is_redacted(case: dict[str, str]) -> None:
    cleaned = redact(case["text"])
    assert case["secret"] not in cleaned
    assert "[REDACTED:" in cleaned


@pytest.mark.parametrize("control", CONTROLS, ids=[control["what"] for control in CONTROLS])
def test_every_control_is_left_alone(control: dict[str, str]) -> None:
    assert redact(control["text"]) == control["text"]


def _json_cases() -> list[tuple[str, Any, str]]:
    cases = []
    for case in SECRETS:
        try:
            cases.append((case["family"], json.loads(case["text"]), case["secret"]))
        except json.JSONDecodeError:
            continue
    return cases


@pytest.mark.parametrize(("family", "data", "secret"), _json_cases(), ids=lambda v: str(v)[:40])
def test_secrets_in_json_data_are_redacted_at_any_depth(
    family: str, data: Any, secret: str
) -> None:
    assert secret not in json.dumps(redact_value(data))


def test_secret_named_fields_are_replaced_whole_at_any_depth() -> None:
    data = {
        "tool_input": {"servers": [{"host": "db", "password": "plain words only"}]},
        "headers": {"Authorization": "token abc", "Accept": "json"},
        "config": {
            "api_key": "k",
            "apiKey": "short1",
            "x-api-key": "Xk-29",
            "token_type": "bearer",
        },
        "auths": {"ghcr.io": {"auth": "Ym9iOnB3"}},
        "usage": {"input_tokens": 120, "max_tokens": 4096},
        "db": {"PIN": 4821, "password": 1234567, "passwords_enabled": True},
        "placeholder": {"password": "${DB_PASSWORD}", "token": ""},
    }
    cleaned = redact_value(data)
    field = "[REDACTED:secret_field]"
    assert cleaned["tool_input"]["servers"][0] == {"host": "db", "password": field}
    assert cleaned["headers"] == {"Authorization": field, "Accept": "json"}
    assert cleaned["config"] == {
        "api_key": "k", "apiKey": field, "x-api-key": field, "token_type": "bearer",
    }  # fmt: skip
    assert cleaned["auths"]["ghcr.io"]["auth"] == field
    assert cleaned["usage"] == data["usage"]
    assert cleaned["db"] == {"PIN": 4821, "password": field, "passwords_enabled": True}
    assert cleaned["placeholder"] == data["placeholder"]


def _adversarial_units() -> list[str]:
    """Pieces that, repeated, make the most work for each shape: its needles followed by what
    its pattern looks for next, and each corpus secret whole."""
    units = {
        needle + follow
        for shape in SHAPES
        for needle in shape.needles
        for follow in (" ", "=", ": ", "=$x ", "/", "\\n")
    }
    return sorted(units | {case["text"] for case in SECRETS})


def test_no_input_makes_redaction_slow() -> None:
    """Redaction runs on the hook path: no input may make it slow. Each piece repeated to 10 kB
    (a quadratic shape takes seconds there); then the densest pieces repeated to 1 MB (linear:
    about 0.4 s; quadratic: hours). The bounds leave room for a loaded machine; the figures
    themselves are in benchmarks/bench_redact.py. Timed on the thread's CPU, which other
    processes on a loaded machine do not inflate."""
    slowest = (0.0, "")
    for unit in _adversarial_units():
        text = (unit * (10_000 // len(unit) + 1))[:10_000]
        started = time.thread_time()
        redact(text)
        slowest = max(slowest, (time.thread_time() - started, unit))
    assert slowest[0] < 1.0, slowest
    for unit in ("pw: ", "password=$x ", "sig=/", "mysql -pX ", "my pin is 1234. ", "s." * 13):
        text = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
        started = time.thread_time()
        redact(text)
        assert time.thread_time() - started < 5.0, unit
