"""Secrets out before anything is stored or sent to a model: API keys, tokens, passwords, keys.

`redact(text)` replaces each secret with `[REDACTED:<kind>]` and drops `<private>…</private>`
spans; `redact_value` and `redact_record` apply it to JSON data and to records (events, findings).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

from ._shape import Shape, mark, placeholder, regex_apply, replace_group
from .assignments import ASSIGNMENTS, NOT_VALUES, random_key_under
from .code_literals import CODE_SHAPES
from .command_secrets import COMMAND_SHAPES
from .compiled_gate import CompiledGate
from .config_lines import CONFIG_SHAPES
from .credential_lines import CREDENTIAL_SHAPES
from .folding import holds, lowercase
from .headers import HEADER_SHAPES
from .key_formats import KEY_FORMAT_SHAPES
from .literal_starts import (
    SEARCHED,
    expect,
    expect_after_marks,
    expect_moved,
    expect_positions,
)
from .needle_gate import NeedleGate
from .placed_literals import PLACED_SHAPES
from .prose_secrets import PROSE_SHAPES
from .random_tokens import RANDOM_TOKEN_SHAPES
from .replaced_spans import lowered_after
from .rule_set import load_rules, rule_shapes
from .secret_names import is_password_name, is_secret_name
from .structured import STRUCTURED_SHAPES, output_marked, prints_credential, structured_secrets
from .tables import TABLE_SHAPES
from .token_shapes import TOKEN_HINTS, TOKEN_NEEDLES, TOKEN_SHAPES, literal_first
from .url_secrets import URL_SHAPES

# This folder imports nothing outside itself and the standard library: the hook client loads it
# by path, with no onlooker package, to redact what it spools (daemon/client.py).

R = TypeVar("R")

PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)
PRIVATE_MARK = "[private]"
_PRIVATE_OPENINGS = ("<private", "<PRIVATE")
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


#: Every shape, in the order tried: shapes of their own first, so they keep their kind (onlooker's,
#: then key formats, then the maintained rule set's vendor tokens); then headers, URLs, connection
#: strings and credential files, command lines, code, configuration, named values, tables,
#: random tokens near credential words, and prose.
SHAPES: tuple[Shape, ...] = (
    *(_token_shape(*shape) for shape in TOKEN_SHAPES),
    *KEY_FORMAT_SHAPES,
    *STRUCTURED_SHAPES,
    *rule_shapes(load_rules()),
    *HEADER_SHAPES,
    *URL_SHAPES,
    *CREDENTIAL_SHAPES[:-1],
    *COMMAND_SHAPES,
    *CODE_SHAPES,
    *PLACED_SHAPES,
    *CONFIG_SHAPES,
    *ASSIGNMENTS,
    *TABLE_SHAPES,
    *RANDOM_TOKEN_SHAPES,
    CREDENTIAL_SHAPES[-1],  # stated passwords: after everything with a clearer shape
    *PROSE_SHAPES,
)
#: The gate finds the shapes' needles, and the words the shapes search for (literal_starts.py),
#: which open nothing: those not in a text are not searched for in it.
_GATE = NeedleGate([*(needle for shape in SHAPES for needle in shape.needles), *SEARCHED])
#: For each needle, the positions in SHAPES of the shapes it lets through.
_OPENS: dict[str, set[int]] = {word: set() for word in SEARCHED}
for _at, _shape in enumerate(SHAPES):
    for _needle in _shape.needles:
        _OPENS.setdefault(_needle, set()).add(_at)
_GATED: dict[str, frozenset[int]] = {needle: frozenset(ats) for needle, ats in _OPENS.items()}
#: The same gate in one compiled pass, which also finds where the searched words start, when
#: `ahocorasick_rs` is installed (compiled_gate.py); else, and where it cannot, `_GATE`.
COMPILED_GATE = CompiledGate(_GATED, SEARCHED)


def warm() -> None:
    """Do now what redaction otherwise does on first use, some milliseconds to tens of them
    over the first texts: compile every shape's patterns (each opened by a text of every
    needle and searched word), read the words they start with, and build the automaton with
    them. What `redact` returns does not change; only when the work is done (the hook service
    calls it once it is idle, daemon/hookd.py)."""
    words = sorted({*(needle for shape in SHAPES for needle in shape.needles), *SEARCHED})
    redact(" ".join(words))
    # each followed by a run of letters and digits, as tokens are (past the shapes' hints)
    redact(" ".join(f"{word}{_RUN}" for word in words))
    COMPILED_GATE.warm()


_RUN = "Q7vX2mK9pL4sT8wR3nB6yH1cJ5dF0gZ"


def redact(text: str) -> str:
    """`text` with secrets replaced by `[REDACTED:<kind>]` and private spans dropped."""
    if holds(text, _PRIVATE_OPENINGS, "<"):
        text = PRIVATE.sub(PRIVATE_MARK, text)
    lowered = lowercase(text)
    scanned = COMPILED_GATE.scan(lowered)
    known: dict[str, tuple[int, ...]] | None = None
    if scanned is not None:
        opened, known = scanned
        expect_positions(lowered, known)
    else:
        opened, present = _GATE.opened_and_words(lowered, _GATED)
        expect(lowered, _GATE.absent(lowered, present, SEARCHED))
    for at in sorted(opened):
        cleaned = SHAPES[at].apply(text, lowered)
        if cleaned != text:
            # the text's lowercase, and the spans replaced, where the text changed (the same
            # as lowercasing it whole; replaced_spans.py)
            before = lowered
            lowered, spans = lowered_after(lowered, text, cleaned)
            text = cleaned
            if spans is not None:  # the words' places moved when asked for, found in the spans
                moved = (
                    None if known is None else COMPILED_GATE.moved(before, known, lowered, spans)
                )
                known = moved if moved is not None else expect_moved(before, known, spans, lowered)
                expect_positions(lowered, known)
                continue
            # else found anew where it changed, by the compiled gate; or else those absent
            # before known absent still
            if known is not None:
                known = COMPILED_GATE.words_after(before, known, lowered)
            if known is not None:
                expect_positions(lowered, known)
            else:
                expect_after_marks(before, lowered)
    return text


def redact_value(value: Any, name: str = "") -> Any:
    """Redact every string inside JSON-like data; a value under a secret-named key (`api_key`,
    `password`, `Authorization` at any depth) is replaced whole (dict keys stay as they are)."""
    if isinstance(value, str):
        if name and is_secret_name(name) and _field_secret(value):
            return mark("secret_field")
        if name and random_key_under(name, value):
            return mark("secret_field")
        return redact(value)
    if isinstance(value, dict) and name and is_secret_name(name):
        return {key: _contained(key, item) for key, item in value.items()}
    if isinstance(value, dict):
        secret_keys = structured_secrets(value)
        cleaned = {
            key: mark("secret_field")
            if key in secret_keys
            else redact_value(item, key if isinstance(key, str) else "")
            for key, item in value.items()
        }
        tool_input = value.get("tool_input")
        if isinstance(tool_input, dict) and prints_credential(tool_input.get("command")):
            cleaned["tool_response"] = output_marked(cleaned.get("tool_response"))
        return cleaned
    if isinstance(value, list):
        return _redact_list(value, name)
    if isinstance(value, tuple):
        return tuple(redact_value(item, name) for item in value)
    if isinstance(value, int) and not isinstance(value, bool) and name and is_password_name(name):
        return mark("secret_field") if is_secret_name(name) else value
    return value


def _contained(key: Any, item: Any) -> Any:
    """A value inside an object under a secret's name (`{"secrets": {"stripe": "…"}}`): a string
    that is not a plain word is a secret whatever its own key."""
    if isinstance(item, str) and _contained_secret(str(key), item):
        return mark("secret_field")
    return redact_value(item, key if isinstance(key, str) else "")


def _contained_secret(key: str, item: str) -> bool:
    if (item.isalpha() and item.islower()) or not _field_secret(item):
        return False
    return (len(item) >= 8 and any(not c.isalpha() for c in item)) or is_secret_name(key)


def _redact_list(items: list[Any], name: str) -> list[Any]:
    """Each item redacted; an item after a secret-named flag (`["--token", "…"]`) replaced."""
    cleaned = []
    flag = False
    for item in items:
        if flag and isinstance(item, str) and _field_secret(item):
            cleaned.append(mark("secret_field"))
        else:
            cleaned.append(redact_value(item, name))
        flag = isinstance(item, str) and item.startswith("-") and is_secret_name(item)
    return cleaned


def _field_secret(value: str) -> bool:
    """Whether the string under a secret-named key is a secret (not empty or a placeholder)."""
    stripped = value.strip()
    if len(stripped) < 3 or "[REDACTED:" in stripped or stripped.lower() in NOT_VALUES:
        return False
    return not (
        stripped.startswith(("${", "{{", "$", "<"))
        or len(set(stripped)) == 1
        or placeholder(stripped)
    )


_PRINTED = ("output", "result", "error")
"""The fields of a tool call's record that hold what its command printed."""


def redact_record(record: R) -> R:
    """A copy of a dataclass record whose string-bearing fields are redacted."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return record
    changes: dict[str, Any] = {}
    command = getattr(record, "input", None)
    if isinstance(command, dict) and prints_credential(command.get("command")):
        for name in _PRINTED:  # what a command that prints a credential printed, in any field
            printed = getattr(record, name, None)
            if isinstance(printed, str | dict | list) and printed:
                changes[name] = output_marked(printed)
    for f in dataclasses.fields(record):
        if f.name in changes:
            continue
        current = getattr(record, f.name)
        if isinstance(current, str | dict | list | tuple):
            cleaned = redact_value(current)
            if cleaned != current:
                changes[f.name] = cleaned
    return dataclasses.replace(record, **changes) if changes else record
