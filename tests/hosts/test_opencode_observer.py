"""How the opencode plugin's `/observer` command line is read: as typed in the TUI, or with the
arguments `opencode run --command observer` double-quoted."""

from __future__ import annotations

from onlooker.hosts.opencode.observer import typed_line


def test_a_line_typed_in_the_tui_is_kept_as_typed() -> None:
    assert typed_line('steer prefer "small" diffs') == ("steer", 'prefer "small" diffs')
    assert typed_line("  Accept   2 ") == ("accept", "2")
    assert typed_line("") == ("", "")


def test_the_quoting_of_opencode_run_is_taken_off() -> None:
    assert typed_line('steer "don\'t \\"guess\\"; $HOME"') == ("steer", 'don\'t "guess"; $HOME')
    assert typed_line('"accept 7"') == ("accept", "7")
