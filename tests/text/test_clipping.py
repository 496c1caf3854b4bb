"""Clipping long text never leaves half a secret behind: the margin past each cut is redacted
first, so a secret straddling a cut is replaced whole."""

from __future__ import annotations

import pytest

from onlooker.core.events import clip as plain_clip
from onlooker.text.clipping import MARGIN, clip, clip_values, head, tail
from onlooker.text.redact import redact

TOKEN = "ghp_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


@pytest.mark.parametrize("filler", [3000, MARGIN * 3])  # a whole redaction, and two windows
def test_a_secret_across_either_cut_is_redacted_whole(filler: int) -> None:
    for at in range(985, 1001):  # the token starts just before the head's cut at 1,000
        text = "x" * at + " " + TOKEN + " " + "y" * filler
        kept = clip(text)
        assert TOKEN[:12] not in kept and "ghp_" not in kept, at
        assert plain_clip(text)[:at] == kept[:at]  # what precedes it is kept as it was
    for before in range(985, 1001):  # the token ends just after the tail's cut
        text = "y" * filler + " " + TOKEN + " " + "x" * before
        assert TOKEN[-12:] not in clip(text)


def test_short_text_is_left_for_redaction_where_it_is_stored() -> None:
    assert clip(f"key {TOKEN}") == f"key {TOKEN}"
    assert redact(clip(f"key {TOKEN}")) == "key [REDACTED:github_token]"


def test_the_cut_is_marked_and_counts_the_original_length() -> None:
    text = "a" * 20_000
    assert clip(text) == plain_clip(text)


def test_a_private_span_is_dropped_even_when_it_straddles_a_window() -> None:
    text = "<private>" + "s" * (MARGIN * 3) + "</private>" + "t" * 100
    assert "s" not in clip(text) and "s" not in tail(text, 50) and "s" not in head(text, 50)


def test_head_tail_and_values() -> None:
    assert "ghp_" not in head("x" * 990 + " " + TOKEN + " " + "z" * 9000, 1000)
    assert "ghp_" not in tail("z" * 9000 + " " + TOKEN + " " + "x" * 990, 1000)
    data = {"content": "x" * 995 + " " + TOKEN + " " + "y" * 50_000, "n": 3, "list": ["short"]}
    clipped = clip_values(data)
    assert "ghp_" not in clipped["content"] and clipped["n"] == 3 and clipped["list"] == ["short"]
