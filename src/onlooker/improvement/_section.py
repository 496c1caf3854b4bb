"""The managed section of an instructions or prompt text: find it, add lines to it, rewrite it.

Pure text work. Only the section's own lines change: front matter, every other line, the line
endings and the presence of a final newline stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SECTION = "Observer Inferred Instructions"
MANAGED_BY = "*This section is managed by the Observer plugin. Do not edit manually.*"

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_HEADING_1_2 = re.compile(r"#{1,2}(?:[ \t]|$)")
_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_FRONT_MATTER_END = ("---", "...")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its own ending (`\\n` or `\\r\\n`) kept."""
    return _LINE.findall(text)


def newline_of(text: str) -> str:
    """The line ending the text mostly uses; `\\n` for a text without any."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def clean_lines(lines: Iterable[str]) -> list[str]:
    """Instruction lines as the section holds them: one line each, no bullet, no blanks, once."""
    cleaned: list[str] = []
    for line in lines:
        text = " ".join(line.split())
        for bullet in ("- ", "* "):
            text = text.removeprefix(bullet)
        text = text.strip()
        if text and text not in cleaned:
            cleaned.append(text)
    return cleaned


def body_start(lines: list[str]) -> int:
    """Index of the first line after a YAML front matter block (0 when there is none)."""
    if not lines or lines[0].rstrip("\r\n").lstrip("\ufeff") != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() in _FRONT_MATTER_END:
            return index + 1
    return 0


def find_section(lines: list[str], section: str) -> tuple[int, int] | None:
    """(heading index, end index) of `## section` outside front matter and code fences; the
    section ends before the next heading of level 1 or 2, or at the end of the text."""
    heading = f"## {section}"
    begin: int | None = None
    fence: str | None = None
    for index in range(body_start(lines), len(lines)):
        line = lines[index].rstrip("\r\n")
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if begin is None:
            if line.rstrip() == heading:
                begin = index
        elif _HEADING_1_2.match(line):
            return begin, index
    return None if begin is None else (begin, len(lines))


def section_lines(text: str, section: str = SECTION) -> list[str]:
    """The bullet lines the managed section holds, in order, without their `- `."""
    lines = split_lines(text)
    found = find_section(lines, section)
    if found is None:
        return []
    return [
        line.strip()[2:].strip()
        for line in lines[found[0] + 1 : found[1]]
        if line.strip().startswith("- ")
    ]


def inject(
    text: str,
    section: str,
    new_lines: list[str],
    *,
    managed_by: str = MANAGED_BY,
    replace: bool = False,
) -> str:
    """`text` with `new_lines` added to the managed section (created at the end when missing),
    or with the section's lines replaced by them when `replace`. Lines already there are not
    added twice; nothing outside the section changes."""
    newline = newline_of(text)
    lines = split_lines(text)
    found = find_section(lines, section)
    if found is None:
        if not new_lines and not replace:
            return text
        block = _block(section, managed_by, new_lines, newline)
        return _keep_final_newline(text, _append_block(text, block, newline))
    begin, end = found
    content_end = end
    while content_end > begin + 1 and not lines[content_end - 1].strip():
        content_end -= 1
    if replace:
        body = _block(section, managed_by, new_lines, newline)
        result = "".join([*lines[:begin], *body, *lines[content_end:]])
        return _keep_final_newline(text, result)
    present = set(section_lines(text, section))
    adding = [line for line in new_lines if line not in present]
    has_marker = any(line.strip() == managed_by for line in lines[begin + 1 : content_end])
    if not adding and has_marker:
        return text
    section_body = lines[begin:content_end]
    if not section_body[-1].endswith("\n"):
        section_body[-1] += newline
    if not has_marker:
        section_body.insert(1, managed_by + newline)
    section_body.extend(f"- {line}{newline}" for line in adding)
    result = "".join([*lines[:begin], *section_body, *lines[content_end:]])
    return _keep_final_newline(text, result)


def remove_lines(
    text: str, section: str, gone: Iterable[str], *, drop_empty: bool, final_newline: bool = True,
    managed_by: str = MANAGED_BY,
) -> str:  # fmt: skip
    """`text` without the section's bullet lines in `gone`, every other line kept; with
    `drop_empty`, a section left with no line goes too (heading, marker and the blank line
    before it); `final_newline` False takes off the line ending left at the end of a text the
    section ended (its last line taken out, the one before it now last)."""
    lines = split_lines(text)
    found = find_section(lines, section)
    if found is None:
        return text
    begin, end = found
    drop = set(gone)
    body = [
        line for line in lines[begin + 1 : end]
        if not (line.strip().startswith("- ") and line.strip()[2:].strip() in drop)
    ]  # fmt: skip
    empty = all(not line.strip() or line.strip() == managed_by for line in body)
    if not (drop_empty and empty):
        result = "".join([*lines[: begin + 1], *body, *lines[end:]])
    else:
        start = begin - 1 if begin > 0 and not lines[begin - 1].strip() else begin
        result = "".join([*lines[:start], *lines[end:]])
    if end == len(lines) and not final_newline:  # the section ended the text, with no line end
        for ending in ("\r\n", "\n"):
            if result.endswith(ending):
                return result[: -len(ending)]
    return result


def _block(section: str, managed_by: str, new_lines: list[str], newline: str) -> list[str]:
    return [
        f"## {section}{newline}",
        f"{managed_by}{newline}",
        *(f"- {line}{newline}" for line in new_lines),
    ]


def _append_block(text: str, block: list[str], newline: str) -> str:
    if not text:
        return "".join(block)
    separator = "" if text.endswith("\n") else newline
    lines = split_lines(text)
    if lines[-1].strip() or separator:
        separator += newline  # a blank line before the heading
    return text + separator + "".join(block)


def _keep_final_newline(before: str, after: str) -> str:
    """A text that did not end with a line ending still does not."""
    if before and not before.endswith("\n"):
        for ending in ("\r\n", "\n"):
            if after.endswith(ending):
                return after[: -len(ending)]
    return after
