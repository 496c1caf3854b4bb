"""What the hook client spools is bytes whatever the redacted text holds: bytes that were not
UTF-8 come back as they were, and a lone surrogate (a decoded `\\ud800` escape) is U+FFFD, so
no input is dropped for it (the spool of the service down: tests/hook/test_lone_surrogates.py)."""

from __future__ import annotations

import json

from onlooker.text.spooled import redact_payload

SECRET = '"api_key": "sk-live-4f9a8b7c6d5e4f3a2b1c"'


def test_a_decoded_lone_surrogate_is_spooled_as_a_replacement_character() -> None:
    raw = ('{"prompt": "x\\ud800y\\udfff", ' + SECRET + "}").encode()
    kept = json.loads(redact_payload(raw))
    assert kept["prompt"] == "x\ufffdy\ufffd"
    assert "4f9a8b7c" not in kept["api_key"]


def test_bytes_that_are_not_utf8_pass_through_a_text_pass() -> None:
    raw = b'{"cut": "\xff\xfe ' + SECRET.encode() + b" \\ud800"  # cut: not JSON
    kept = redact_payload(raw)
    assert kept.startswith(b'{"cut": "\xff\xfe ') and b"4f9a8b7c" not in kept
    assert "\ufffd".encode() in kept


def test_an_input_with_nothing_to_redact_is_kept_byte_for_byte() -> None:
    raw = b'{"prompt": "plain \\ud800 \xc3\xa9"}'
    assert redact_payload(raw) == raw
