"""The managed section: added where it belongs, and nothing else in the text touched."""

from __future__ import annotations

from onlooker.improvement._section import (
    MANAGED_BY,
    SECTION,
    clean_lines,
    find_section,
    inject,
    section_lines,
    split_lines,
)

HEADING = f"## {SECTION}"


def test_a_missing_section_is_appended_after_a_blank_line() -> None:
    text = "# Project\n\nUse make.\n"
    result = inject(text, SECTION, ["Run tests"])
    assert result == f"# Project\n\nUse make.\n\n{HEADING}\n{MANAGED_BY}\n- Run tests\n"
    assert result.startswith(text)


def test_an_empty_file_gets_just_the_section() -> None:
    assert inject("", SECTION, ["a"]) == f"{HEADING}\n{MANAGED_BY}\n- a\n"


def test_crlf_and_a_missing_final_newline_are_kept() -> None:
    text = "# P\r\n\r\nkeep"
    result = inject(text, SECTION, ["one"])
    assert result == f"# P\r\n\r\nkeep\r\n\r\n{HEADING}\r\n{MANAGED_BY}\r\n- one"
    again = inject(result, SECTION, ["two"])
    assert again == result + "\r\n- two"


def test_lines_go_into_the_existing_section_before_the_next_heading() -> None:
    text = f"# P\n\n{HEADING}\n{MANAGED_BY}\n- old\n\n## Later\nbody\n"
    result = inject(text, SECTION, ["new", "old"])
    assert result == f"# P\n\n{HEADING}\n{MANAGED_BY}\n- old\n- new\n\n## Later\nbody\n"
    assert section_lines(result) == ["old", "new"]


def test_a_subheading_stays_inside_the_section() -> None:
    text = f"{HEADING}\n{MANAGED_BY}\n- a\n### detail\n- b\n# Top\n"
    lines = split_lines(text)
    assert find_section(lines, SECTION) == (0, 5)
    assert inject(text, SECTION, ["c"]).endswith("- b\n- c\n# Top\n")


def test_replace_sets_exactly_the_lines_and_keeps_the_rest() -> None:
    text = f"intro\n\n{HEADING}\n{MANAGED_BY}\n- a\n- b\n\n\n## Next\nx\n"
    result = inject(text, SECTION, ["c"], replace=True)
    assert result == f"intro\n\n{HEADING}\n{MANAGED_BY}\n- c\n\n\n## Next\nx\n"


def test_front_matter_and_fenced_headings_are_not_the_section() -> None:
    text = f"---\nname: build\ndescription: |\n  {HEADING}\n---\nPrompt.\n\n```md\n{HEADING}\n```\n"
    result = inject(text, SECTION, ["x"])
    assert result == text + f"\n{HEADING}\n{MANAGED_BY}\n- x\n"
    assert find_section(split_lines(result), SECTION) == (11, 14)


def test_a_heading_inside_a_longer_fence_does_not_end_it_early() -> None:
    text = f"````\n```\n{HEADING}\n```\n````\n"
    assert find_section(split_lines(text), SECTION) is None


def test_the_managed_by_line_comes_back_when_removed_by_hand() -> None:
    text = f"{HEADING}\n- a\n"
    assert inject(text, SECTION, []) == f"{HEADING}\n{MANAGED_BY}\n- a\n"


def test_nothing_to_add_returns_the_same_text() -> None:
    text = f"x\n\n{HEADING}\n{MANAGED_BY}\n- a\n"
    assert inject(text, SECTION, ["a"]) is text
    assert inject("plain\n", SECTION, []) == "plain\n"


def test_lines_are_cleaned_to_one_line_each_once() -> None:
    assert clean_lines(["- Use  vitest\n(not jest)", "* Use vitest (not jest)", "", "  "]) == [
        "Use vitest (not jest)"
    ]


def test_another_section_name_is_managed_the_same_way() -> None:
    result = inject("# P\n", "Code Standards", ["strict"], managed_by="*managed*")
    assert result == "# P\n\n## Code Standards\n*managed*\n- strict\n"
