"""What the hook client spools is bytes whatever the redacted text holds: bytes that were not
UTF-8 come back as they were, and a lone surrogate (a decoded `\\ud800` escape) is U+FFFD, so
no input is dropped for it (the spool of the service down: tests/hook/test_lone_surrogates.py)."""

from __future__ import annotations

from onlooker.daemon.client import _utf8


def test_spooled_text_is_always_bytes() -> None:
    assert _utf8("plain é") == "plain é".encode()
    raw = b'{"a": "\xff\xfe"}'
    assert _utf8(raw.decode("utf-8", "surrogateescape")) == raw
    assert (
        _utf8('{"a": "x\ud800y\udcff\udfff"}')
        == '{"a": "x\ufffdy'.encode() + b"\xff" + ("\ufffd" + '"}').encode()
    )
