"""Secrets out before anything is stored or sent to a model: API keys, tokens, passwords, keys.

`redact(text)` replaces each secret with `[REDACTED:<kind>]` and drops `<private>…</private>`
spans; `redact_value` and `redact_record` apply it to JSON data and to records (events, findings).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

from ._shape import Shape, mark, regex_apply, replace_group
from .assignments import ASSIGNMENTS, NOT_VALUES
from .command_secrets import COMMAND_SHAPES
from .credential_lines import CREDENTIAL_SHAPES
from .secret_names import is_password_name, is_secret_name
from .token_shapes import TOKEN_HINTS, TOKEN_NEEDLES, TOKEN_SHAPES, literal_first

# This folder imports nothing outside itself and the standard library: the hook client loads it
# by path, with no onlooker package, to redact what it spools (daemon/client.py).

R = TypeVar("R")

PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)
PRIVATE_MARK = "[private]"
SECRET_SHAPES = TOKEN_SHAPES
"""(kind, pattern, group) of every secret recognisable by its own shape."""

#: `url_password` after its `://`: the user, `:`, the password (group 1) and `@`.
_URL_TAIL = re.compile(r"[^\s:/@]*:([^\s@/]+)@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")
_WORD_CHAR = re.compile(r"\w")


def _redact_url_passwords(pattern: re.Pattern[str], text: str) -> str:
    """The `url_password` shape, found from each `://` and the scheme looked for behind it.

    Tried at every word start, `\\b[a-z][a-z0-9+.-]*://` runs to the end of each scheme-like run
    (`a-a-a-…`), which is quadratic on long text; here each character is looked at a few times.
    Same matches as `pattern.sub`: the scheme is the run of scheme characters right before `://`,
    and the match starts at its leftmost lowercase letter on a word boundary not yet replaced.
    """
    pieces: list[str] = []
    done = 0
    at = text.find("://")
    while at != -1:
        start = _scheme_start(text, at, done) if _URL_TAIL.match(text, at + 3) else None
        match = pattern.match(text, start) if start is not None else None
        if match is None:
            at = text.find("://", at + 1)
            continue
        pieces.append(text[done : match.start()])
        pieces.append(replace_group(match, 1, "url_password"))
        done = match.end()
        at = text.find("://", done)
    return "".join(pieces) + text[done:] if pieces else text


def _scheme_start(text: str, colon: int, done: int) -> int | None:
    """Where the scheme before the `://` at `colon` starts: the first lowercase letter at a word
    boundary in the run of scheme characters ending there, not before `done`."""
    first = colon
    while first > done and text[first - 1] in _SCHEME_CHARS:
        first -= 1
    for start in range(first, colon):
        if "a" <= text[start] <= "z" and (start == 0 or not _WORD_CHAR.match(text[start - 1])):
            return start
    return None


def _token_shape(kind: str, pattern: str, group: int) -> Shape:
    compiled = re.compile(literal_first(pattern), re.DOTALL)
    if kind == "url_password":
        return Shape(kind, TOKEN_NEEDLES[kind], lambda t, _: _redact_url_passwords(compiled, t))
    apply = regex_apply(compiled, group, kind)
    hint = TOKEN_HINTS.get(kind)
    if hint is not None:
        plain = apply
        apply = lambda text, lowered: plain(text, lowered) if hint.search(text) else text  # noqa: E731
    return Shape(kind, TOKEN_NEEDLES[kind], apply)


#: Every shape, in the order tried: shapes of their own first, so they keep their kind; then
#: connection strings and credential files, command lines, named values, and prose.
SHAPES: tuple[Shape, ...] = (
    *(_token_shape(*shape) for shape in TOKEN_SHAPES),
    *CREDENTIAL_SHAPES[:-1],
    *COMMAND_SHAPES,
    *ASSIGNMENTS,
    CREDENTIAL_SHAPES[-1],  # stated passwords: after everything with a clearer shape
)
_GATES = tuple((shape, shape.needles) for shape in SHAPES)


def redact(text: str) -> str:
    """`text` with secrets replaced by `[REDACTED:<kind>]` and private spans dropped."""
    if "<private" in text or "<PRIVATE" in text:
        text = PRIVATE.sub(PRIVATE_MARK, text)
    lowered = text.lower()
    for shape, needles in _GATES:
        for needle in needles:
            if needle in lowered:
                break
        else:
            continue
        cleaned = shape.apply(text, lowered)
        if cleaned != text:
            text, lowered = cleaned, cleaned.lower()
    return text


def redact_value(value: Any, name: str = "") -> Any:
    """Redact every string inside JSON-like data; a value under a secret-named key (`api_key`,
    `password`, `Authorization` at any depth) is replaced whole (dict keys stay as they are)."""
    if isinstance(value, str):
        if name and is_secret_name(name) and _field_secret(value):
            return mark("secret_field")
        return redact(value)
    if isinstance(value, dict):
        return {
            key: redact_value(item, key if isinstance(key, str) else "")
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_value(item, name) for item in value]
    if isinstance(value, tuple):
        return tuple(redact_value(item, name) for item in value)
    if isinstance(value, int) and not isinstance(value, bool) and name and is_password_name(name):
        return mark("secret_field") if is_secret_name(name) else value
    return value


def _field_secret(value: str) -> bool:
    """Whether the string under a secret-named key is a secret (not empty or a placeholder)."""
    stripped = value.strip()
    if len(stripped) < 3 or "[REDACTED:" in stripped or stripped.lower() in NOT_VALUES:
        return False
    return not (stripped.startswith(("${", "{{", "$", "<")) or len(set(stripped)) == 1)


def redact_record(record: R) -> R:
    """A copy of a dataclass record whose string-bearing fields are redacted."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return record
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        current = getattr(record, f.name)
        if isinstance(current, str | dict | list | tuple):
            cleaned = redact_value(current)
            if cleaned != current:
                changes[f.name] = cleaned
    return dataclasses.replace(record, **changes) if changes else record
