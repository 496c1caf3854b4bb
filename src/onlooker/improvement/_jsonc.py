"""Where one string value sits in a JSON (or JSONC) text, so it can be replaced in place.

opencode.json keeps an agent's prompt at `agent.<name>.prompt`. Replacing only that value's
characters keeps every other byte of the file (key order, indentation, comments) as it was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ImprovementError

_SKIP = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_DECODER = json.JSONDecoder()
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


@dataclass(frozen=True, slots=True)
class StringSpan:
    """A string value's place in the text: `text[start:end]` is its literal, `value` its content."""

    start: int
    end: int
    value: str


def find_string(text: str, path: tuple[str, ...], source: Path) -> StringSpan | None:
    """The string at `path` (object keys from the top), or None when the path is missing or
    holds something else than a string. ImprovementError, naming `source` with the line and
    column, on a text that is not JSON."""
    scanner = _Scanner(text, path, source)
    end = _skip(text, scanner.value(_skip(text, 0), ()))
    if end != len(text):
        raise scanner.error("text after the JSON value", end)
    return scanner.found


def replace_string(text: str, span: StringSpan, value: str) -> str:
    """`text` with the literal at `span` replaced by `value` written as a JSON string."""
    return text[: span.start] + json.dumps(value, ensure_ascii=False) + text[span.end :]


def line_and_column(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of a character offset, for error messages."""
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


def _skip(text: str, index: int) -> int:
    match = _SKIP.match(text, index)
    return match.end() if match else index


class _Scanner:
    """A recursive walk over the text that notes the span of the value at `path`."""

    def __init__(self, text: str, path: tuple[str, ...], source: Path) -> None:
        self.text = text
        self.path = path
        self.source = source
        self.found: StringSpan | None = None

    def error(self, problem: str, position: int) -> ImprovementError:
        line, column = line_and_column(self.text, position)
        return ImprovementError(f"{self.source}:{line}:{column}: not JSON: {problem}")

    def value(self, index: int, at: tuple[str, ...]) -> int:
        text = self.text
        if index >= len(text):
            raise self.error("the text ends where a value should be", index)
        if at == self.path:
            self.found = None  # a later duplicate key wins, string or not
        char = text[index]
        if char == "{":
            return self._object(index + 1, at)
        if char == "[":
            return self._array(index + 1, at)
        if char == '"':
            content, end = self._string(index)
            if at == self.path:
                self.found = StringSpan(index, end, content)
            return end
        match = _SCALAR.match(text, index)
        if not match:
            raise self.error(f"unexpected {char!r}", index)
        return match.end()

    def _string(self, index: int) -> tuple[str, int]:
        try:
            value, end = _DECODER.raw_decode(self.text, index)
        except json.JSONDecodeError as error:
            raise self.error(error.msg, error.pos) from None
        return str(value), end

    def _object(self, index: int, at: tuple[str, ...]) -> int:
        text = self.text
        index = _skip(text, index)
        while index < len(text) and text[index] != "}":
            if text[index] != '"':
                raise self.error("expected a quoted key", index)
            key, index = self._string(index)
            index = _skip(text, index)
            if index >= len(text) or text[index] != ":":
                raise self.error("expected ':' after a key", index)
            index = _skip(text, self.value(_skip(text, index + 1), (*at, key)))
            if index < len(text) and text[index] == ",":
                index = _skip(text, index + 1)  # a trailing comma is JSONC
            elif index < len(text) and text[index] != "}":
                raise self.error("expected ',' or '}'", index)
        if index >= len(text):
            raise self.error("an object is not closed", index)
        return index + 1

    def _array(self, index: int, at: tuple[str, ...]) -> int:
        text = self.text
        index = _skip(text, index)
        while index < len(text) and text[index] != "]":
            index = _skip(text, self.value(index, (*at, "\x00[]")))
            if index < len(text) and text[index] == ",":
                index = _skip(text, index + 1)
            elif index < len(text) and text[index] != "]":
                raise self.error("expected ',' or ']'", index)
        if index >= len(text):
            raise self.error("an array is not closed", index)
        return index + 1
