"""Secrets in tables and CSV: the cells under a column whose name means a secret (`Secret access
key`, `Password`, `SECRET_KEY`), and the value cell of a row whose first cell is such a name
(`secret_key   wJalr…   shared-credentials-file`), in CSV, `|` tables and space-aligned tables.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ._shape import Shape, already_redacted, mark
from .literal_starts import line_starts, searched, word_starts
from .secret_names import NAME_WORDS, is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_CELLS = {
    "csv": re.compile(r"[^,\n]*"),
    "bar": re.compile(r"[^|\n]+"),
    "space": re.compile(r"\S+(?: \S+)*"),
}
_RULE = re.compile(r"^[\s+|=-]*$")
_GAP = re.compile(r"\S(?: {2,}|\t)(?=\S)")
#: Characters of code and prose, not of a table's header or cells laid out by spaces.
_CODE_CHARS = re.compile(r"[#=(){};]|\b(?:if|for|return|def|import)\b")
#: `_CODE_CHARS` in two: its signs (one class, which the engine finds at C speed), and its
#: words, looked for only in a line holding one (a pattern opening with `\b` is tried at every
#: position).
_CODE_SIGNS = re.compile(r"[#=(){};]")
_CODE_WORDS = re.compile(r"\b(?:if|for|return|def|import)\b")
_CODE_WORD_LIST = ("if", "for", "return", "def", "import")
#: Lines looked at in one text, at most (a table is not longer in one tool output).
MOST_LINES = 5000


def _kind(line: str, row: bool = False) -> str | None:
    """The table layout of `line`, if any; a row under a secret's column (`row`) may hold the
    characters of code (a password with `#` or `=`)."""
    if line.count(",") >= 2:
        kind = "csv"
    elif line.count("|") >= 2:
        kind = "bar"
    elif line.count("  ") + line.count("\t") >= 2 and len(_GAP.findall(line)) >= 2:
        # (each gap holds two spaces or a tab, apart from the others: fewer, fewer gaps)
        kind = "space"
    else:
        return None  # no separators: what is cheap to see first (most lines of code and prose)
    return None if not row and _code(line) else kind


def _code(line: str) -> bool:
    """Whether `_CODE_CHARS` finds something in `line`."""
    if _CODE_SIGNS.search(line) is not None:
        return True
    return any(word in line for word in _CODE_WORD_LIST) and _CODE_WORDS.search(line) is not None


def _cells(line: str, kind: str) -> list[tuple[int, int]]:
    if kind == "space":
        return [m.span() for m in _CELLS["space"].finditer(line)]  # a tab parts cells too
    return [m.span() for m in _CELLS[kind].finditer(line) if m.end() > m.start() or kind == "csv"]


#: A line that may head a table with a secret's column: separators and a secret's word.
_WORDS = re.compile(r"pass|secret|token|key|cred|pwd")


def _may_have_table(lowered: str) -> bool:
    """Whether a line holding a secret's word is laid out as a table row (the words found by
    `str.find`, literal_starts.py: what `_WORDS` finds)."""
    seen = 0
    for at in word_starts(lowered, _WORD_LIST):
        if at < seen:
            continue  # the first on each line
        start = lowered.rfind("\n", 0, at) + 1
        end = lowered.find("\n", at)
        seen = len(lowered) if end < 0 else end
        line = lowered[start:seen]
        if _kind(line) is not None or (
            line.lstrip().startswith("#") and _kind(_uncommented(line)) == "space"
        ):
            return True
    return False


_WORD_LIST = searched(*_WORDS.pattern.split("|"))


def redact_tables(text: str, lowered: str) -> str:
    if not _may_have_table(lowered):
        return text
    lines = text.split("\n")
    if len(lines) > MOST_LINES:
        return text
    secret_columns: list[int] = []
    kind: str | None = None
    header_cells = 0
    changed = False
    # A header, or a row whose first cell names a secret, holds a secret name, so one of
    # NAME_WORDS: with no header above, a line holding none is passed over unread.
    found = _naming_lines(text, lowered)
    naming = sorted(found) if found is not None else None
    following = 0  # the line read next: its number, and where it starts
    next_start = 0
    while following < len(lines):
        if not secret_columns and naming is not None:  # on to the next line naming a secret
            at = bisect_left(naming, next_start)
            if at == len(naming):
                break
            following += text.count("\n", next_start, naming[at])
            next_start = naming[at]
        number, line = following, lines[following]
        following, next_start = following + 1, next_start + len(line) + 1
        if not line.strip():
            secret_columns, kind = [], None
            continue
        if _RULE.match(line):
            continue
        line_kind = _kind(line, row=bool(secret_columns))
        if secret_columns and line_kind == kind and kind is not None:
            spans = _cells(line, kind)
            if len(spans) != header_cells:
                secret_columns, kind = [], None
                continue
            new = line
            for index in sorted(secret_columns, reverse=True):
                if index < len(spans):
                    start, end = spans[index]
                    cell = line[start:end].strip()
                    if _secret_cell(cell):
                        lead = len(line[start:end]) - len(line[start:end].lstrip())
                        new = (
                            new[: start + lead]
                            + mark("table_secret")
                            + new[start + lead + len(cell) :]
                        )
            if new != line:
                lines[number], changed = new, True
            continue
        if line_kind is None:
            if not line.lstrip().startswith("#"):
                continue
            line = _uncommented(line)  # `# client  server  secret`: a header in a comment
            if _kind(line) != "space":
                continue
            line_kind = "space"
        spans = _cells(line, line_kind)
        names = [line[s:e].strip() for s, e in spans]
        columns = [i for i, name in enumerate(names) if _column_name(name)]
        if (
            columns
            and len(names) >= 2
            and not any(_secret_cell(n) and not _header(n, lines, number, line_kind) for n in names)
            and not any("`" in n or n.count(" ") > 4 for n in names)  # a sentence, markdown
        ):
            secret_columns, kind, header_cells = columns, line_kind, len(names)
        elif len(names) >= 2 and is_secret_name(names[0]) and _random_cell(names[1]):
            start, end = spans[1]
            cell = line[start:end].strip()
            lead = len(line[start:end]) - len(line[start:end].lstrip())
            lines[number] = (
                line[: start + lead] + mark("table_secret") + line[start + lead + len(cell) :]
            )
            changed = True
    return "\n".join(lines) if changed else text


def _naming_lines(text: str, lowered: str) -> set[int] | None:
    """Where each line holding one of NAME_WORDS starts (None when lowercasing moved text)."""
    if len(lowered) != len(text):
        return None
    return set(line_starts(lowered, word_starts(lowered, NAME_WORDS)))


def _column_name(name: str) -> bool:
    """A column header that names a secret: a few words, not a flag or a sentence."""
    return bool(name) and not name.startswith("-") and name.count(" ") <= 3 and is_secret_name(name)


def _uncommented(line: str) -> str:
    """A comment line with its `#` as spaces (what a header in a comment is laid out as)."""
    stripped = line.lstrip()
    if not stripped.startswith("#"):
        return line
    body = stripped.lstrip("#")
    return line[: len(line) - len(stripped)] + " " * (len(stripped) - len(body)) + body


def _header(cell: str, lines: list[str], number: int, kind: str | None) -> bool:
    """Whether a cell can be a column's name: a secret's name, or, on the first line of a table
    (not a row under another), a word of letters (`Tenant`, `AppId`, `Console_link`)."""
    if is_secret_name(cell):
        return True
    if not cell.replace("_", "").replace("-", "").isalpha():
        return False
    above = lines[number - 1] if number else ""
    return not above.strip() or _RULE.match(above) is not None or _kind(above) != kind


def _random_cell(cell: str) -> bool:
    return _secret_cell(cell) and (len(cell) >= 20 or any(c.isdigit() for c in cell))


def _secret_cell(cell: str) -> bool:
    """A cell that can hold a secret: not empty, masked, a placeholder or a short word."""
    if len(cell) < 6 or already_redacted(cell) or " " in cell or "*" in cell:
        return False
    return not (cell.isalpha() and cell.islower()) and cell[0] not in "$<{"


TABLE_SHAPES = (
    Shape("table_secret", ("pass", "secret", "token", "key", "cred", "pwd"), redact_tables),
)
