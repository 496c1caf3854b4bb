"""Secrets given a name: `DB_PASS=…`, `password: …`, `"api_key": "…"`, `X-Api-Key: …`, `?sig=…`,
`--token …`, `<password>…</password>`, found at each name that `secret_names` calls secret.

A value that reads as code or a placeholder (`os.environ["X"]`, `${TOKEN}`, `None`, `str`) stays.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import NamedTuple

from ._shape import Shape, already_redacted, mark, placeholder
from .folding import ascii_lowered
from .literal_starts import positions, searched
from .random_tokens import random_token
from .rule_set import entropy
from .secret_names import LONGEST, is_password_name, is_secret_name, name_words

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: Where a secret name can be: each holds one of these (lowercase).
NAME_NEEDLES = searched(
    "pass", "pw", "secret", "token", "key", "cred", "auth", "sig", "cookie", "psk", "salt",
    "pepper", "bearer", "jwt", "otp", "hmac", "_pat", "_sk", "mnemonic", "privkey", "phrase",
    "private", "recovery", "backup", "mfa", "2fa", "verification", "unseal",
)  # fmt: skip
_KEYWORD = "|".join(NAME_NEEDLES)
_SEPARATOR = r"[\"'\]]{0,2}[ \t]{0,8}(?::=|=>|=(?![=~>])|:(?![:/\\=]))"
#: A name around a keyword: its characters after it (possessive), and before it, matched on the
#: reversed text (at most LONGEST + 1, so a longer run is seen to be too long to be a name).
_NAME_AFTER = re.compile(r"[a-z0-9_.\-]*+")
_NAME_BEFORE = re.compile(rf"[a-z0-9_.\-]{{0,{LONGEST + 1}}}")
#: The characters of `_NAME_AFTER` and `_NAME_BEFORE` (each one character long).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_SEPARATES = re.compile(_SEPARATOR)
_FLAG_VALUE = re.compile(r"[ \t]+[^\s\-]")
#: Names looked at one by one in a text (and one more per 200 characters). Past that the text is
#: made of names, as no file or output is: the rest goes through `_COARSE`, which errs towards
#: redacting (each name holding a keyword, its separator and its value), so no secret hides
#: behind the limit, and in linear time (one pattern, a literal replacement, no Python per match).
BUDGET = 1000
_ANY_CASE_KEYWORD = "|".join(
    "".join(f"[{c}{c.upper()}]" for c in keyword) for keyword in _KEYWORD.split("|")
)
_CHAR = r"[A-Za-z0-9_.\-]"
_ANY_CASE_RUN = rf"(?>{_CHAR}*?(?:{_ANY_CASE_KEYWORD}){_CHAR}*+)"
_COARSE = re.compile(
    rf"(?<!{_CHAR})(?:(?=-){_ANY_CASE_RUN}[ \t]+|{_ANY_CASE_RUN}{_SEPARATOR})[ \t]{{0,8}}"
    r"[\"'`]?[^\s\"'`,;)}\]<>&\\]{1,256}"
)
#: What follows a name: a closing quote or bracket, the separator, the value (quoted or bare).
_AFTER_NAME = re.compile(
    r"""(?P<close>["'\]]{0,2})(?P<before>[ \t]{0,8})
    (?P<sep>:=|=>|=(?![=~>])|:(?![:/\\=]))(?P<after>[ \t]{0,32})
    (?:(?P<esc>\\?)(?P<q>["'`])(?P<quoted>[^\n]{0,256}?)(?<!\\)(?P=esc)(?P=q)
      |(?P<bare>(?:[^\s"'`,;)}\]<>&\\]|\\\\){1,256}))""",
    re.VERBOSE,
)
#: After a flag (`--token abc`, `-password abc`): spaces, then a bare or quoted value.
_AFTER_FLAG = re.compile(
    r"""(?P<after>[ \t]{1,8})(?:(?P<q>["'])(?P<quoted>[^\n]{1,256}?)(?P=q)
    |(?P<bare>[^\s"'`;|&<>-][^\s"'`;|&<>]{0,255}))""",
    re.VERBOSE,
)
#: After a flag in a list (`["--password", "…"]`, an argv): the item that follows, quoted.
_LISTED_VALUE = re.compile(
    r"""(?P<q>\\?["'])[ \t]*,[ \t]*(?P=q)(?P<quoted>[^"'\n\\]{1,256})(?P=q)"""
)
_WORD = re.compile(r"[A-Za-z_]+")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_TEMPLATE = re.compile(r"^(?:\$\{.*\}|\{\{.*\}\}|<[^<>]*>|%\(?\w*\)?s|\{\w*\}|\$\w+|%\w+%)$")
#: Values that are words of code, types or settings, never secrets.
NOT_VALUES = frozenset({
    "null", "none", "nil", "undefined", "true", "false", "yes", "no", "on", "off", "required",
    "optional", "string", "str", "int", "bool", "bytes", "number", "boolean", "any", "object",
    "dict", "list", "secretstr", "redacted", "env", "file", "prompt", "stdin", "default", "auto",
    "empty", "unset", "hidden", "masked", "inherit", "todo", "tbd", "n/a", "xxx", "string?",
    "str|none", "optional[str]", "char", "text", "varchar", "password", "secret", "token",
})  # fmt: skip


def redact_assignments(text: str, lowered: str) -> str:
    """Each secret-named `NAME <sep> value` with its value replaced (`assignment`, or `cli_secret`
    for a command-line flag)."""
    if len(lowered) != len(text):  # a few characters grow when lowercased: ASCII is enough here
        lowered = ascii_lowered(text)
    pieces: list[str] = []
    done = at = 0
    budget = BUDGET + len(text) // 200
    backwards = lowered[::-1]
    keywords = _Keywords(lowered)
    while (found := _next_name(lowered, backwards, keywords, at)) is not None:
        start, at = found
        budget -= 1
        if budget < 0:  # text made of names: the rest is redacted coarsely, in linear time
            pieces.append(text[done:start])
            pieces.append(_COARSE.sub(mark("assignment"), text[start:]))
            return "".join(pieces)
        name = text[start:at]
        keyed = False
        if not is_secret_name(name):
            keyed = name != "PWD" and _vendor_key_name(name)
            if name != "PWD" and not keyed:
                continue
        span, secret = _value_span(text, name, start, at)
        if span is None:
            continue
        if keyed and not (secret and _random_key(text[span[0] : span[1]])):
            continue
        if name == "PWD" and _directory(text[span[0] : span[1]]):
            continue  # the shell's working directory; `PWD=…` of ODBC is a password
        if secret or not text[span[0] : span[1]].lstrip("'\"\\").startswith(("{", "[")):
            at = max(at, span[1])  # a name inside a value is part of the value (not inside
            # JSON given to a flag: `--secret-string '{"password": "…"}'`)
        if secret:
            pieces.append(text[done : span[0]])
            pieces.append(mark("cli_secret" if name.startswith("-") else "assignment"))
            done = span[1]
    return "".join(pieces) + text[done:] if pieces else text


class _Keywords:
    """Where each keyword of NAME_NEEDLES starts in a lowercased text and where it ends: what
    searching for the pattern `pass|pw|secret|…` finds, found with `str.find` for each keyword
    (the pattern is tried at every `p`, `s`, `t`, `k`…, some ten times slower)."""

    def __init__(self, lowered: str) -> None:
        ends: dict[int, int] = {}
        for keyword in reversed(NAME_NEEDLES):  # where two start together, the pattern's first
            for at in positions(lowered, keyword):
                ends[at] = at + len(keyword)
        self.starts = sorted(ends)
        self.ends = ends

    def next(self, at: int) -> tuple[int, int] | None:
        """(start, end) of the first keyword starting at `at` or later."""
        index = bisect_left(self.starts, at)
        if index == len(self.starts):
            return None
        start = self.starts[index]
        return start, self.ends[start]


def _next_name(
    lowered: str, backwards: str, keywords: _Keywords, at: int
) -> tuple[int, int] | None:
    """(start, end) of the next name from `at` holding a keyword and followed by a separator
    (or, for a flag, by a space and a value). Found from the keywords; each run of name
    characters is looked at once."""
    while (hit := keywords.next(at)) is not None:
        hit_start, hit_end = hit
        # the name's characters around the keyword, read by a pattern only where there are any
        # (in prose a keyword is most often a word of its own)
        after = (
            _NAME_AFTER.match(lowered, hit_end)
            if lowered[hit_end : hit_end + 1] in _NAME_CHARS
            else None
        )
        end = at = after.end() if after else hit_end
        back = (
            _NAME_BEFORE.match(backwards, len(lowered) - hit_start)
            if hit_start and lowered[hit_start - 1] in _NAME_CHARS
            else None
        )
        start = hit_start - (back.end() - back.start() if back else 0)
        if end - start > LONGEST:
            continue
        if _SEPARATES.match(lowered, end) or (
            lowered[start] == "-"
            and lowered[end - 1] != "-"
            and (_FLAG_VALUE.match(lowered, end) or _LISTED_VALUE.match(lowered, end))
        ):
            return start, end
    return None


def _value_span(text: str, name: str, start: int, end: int) -> tuple[tuple[int, int] | None, bool]:
    """Where the value after the name at text[start:end] is, and whether it is a secret."""
    after = _AFTER_NAME.match(text, end)
    if after is not None:
        close, before, sep, space, q, quoted, bare = after.group(
            "close", "before", "sep", "after", "q", "quoted", "bare"
        )
        group = "quoted" if q else "bare"
        context = _Context(
            sep, bool(before or space), bool(close), text[after.end() : after.end() + 1],
            text[start - 1 : start] if start else "",
            sep == ":" and not close and _starts_line(text, start),
        )  # fmt: skip
        return after.span(group), _is_secret_value(name, quoted if q else bare, bool(q), context)
    if name.startswith("-") and not name.startswith("---"):
        flag = _AFTER_FLAG.match(text, end) or _LISTED_VALUE.match(text, end)
        if flag is not None:
            group = "quoted" if flag.group("q") else "bare"
            secret = _plain_literal(name, flag.group(group), quoted=bool(flag.group("q")))
            return flag.span(group), secret
    return None, False


class _Context(NamedTuple):
    """Around a value: its separator, whether spaces surround it, whether the name was quoted,
    the characters after the value and before the name, and whether the name starts a line."""

    sep: str
    spaced: bool
    quoted_name: bool
    following: str
    preceding: str
    line_start: bool


@lru_cache(maxsize=4096)
def _is_secret_value(name: str, value: str, quoted: bool, at: _Context) -> bool:
    if not _plain_literal(name, value, quoted=quoted):
        return False
    if at.sep == ":" and not at.quoted_name and not at.line_start and _WORD.fullmatch(value):
        return False  # prose: "a fresh token: the auth middleware", "a secret: `DB_PASS`"
    if name.lower().endswith("authorization") and not quoted and value.isalpha():
        return False  # the scheme: what follows it is the header shape's (headers.py)
    if quoted:
        return True
    if not _IDENTIFIER.fullmatch(value):
        return not _reads_as_code(value)
    # a bare identifier: a literal in env files, YAML and headers, a variable in code
    if any(c.isdigit() for c in value) and "." not in value:
        return True
    if "." in value:
        return False  # self.password, config.db.token, os.environ
    if at.sep != ":" and at.spaced:
        return False  # password = user_password
    if at.following in (",", ")") or (at.sep == ":" and at.following in (";", "=")):
        return False  # f(password=pw), password: str = ""
    return at.preceding not in ("(", ",")


#: Words before `key` that make a key something other than a credential (`sort_key`).
NOT_CREDENTIAL_KEYS = frozenset({
    "public", "pub", "primary", "foreign", "sort", "partition", "cache", "idempotency", "routing",
    "object", "s3", "bucket", "hash", "range", "row", "column", "unique", "composite", "map",
    "dict", "lookup", "group", "message", "shard", "cluster", "index", "dedup", "dedupe", "hot",
    "short", "sign", "gpg", "pgp", "ssh", "host", "kid", "ca", "cert", "certificate", "tls",
})  # fmt: skip
_UUID = re.compile(
    r"(?:[a-z]{2,8}[-_])?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)


@lru_cache(maxsize=4096)
def _vendor_key_name(name: str) -> bool:
    """`NUGET_KEY`, `sdk_key`: `key` after a word no qualifier list holds (a vendor's name),
    which holds a credential when its value is a random token (`_random_key`)."""
    words = name_words(name)
    return len(words) > 1 and words[-1] == "key" and words[-2] not in NOT_CREDENTIAL_KEYS


def random_key_under(name: str, value: str) -> bool:
    """Whether `value` under `name`, a `…_key` of no known vendor (`signerKey`, `NUGET_KEY`),
    is a generated credential."""
    return _vendor_key_name(name) and _random_key(value)


def _random_key(value: str) -> bool:
    """A value that can only be a generated credential: a random token of mixed characters,
    32 or more hex digits, or a UUID (perhaps after a short prefix such as `sdk-`)."""
    value = value.strip()
    if len(value) < 20 or " " in value:
        return False
    lowered = value.lower().removeprefix("0x")
    if len(lowered) >= 32 and all(c in "0123456789abcdef" for c in lowered):
        return entropy(lowered) >= 3.3
    return _UUID.fullmatch(lowered) is not None or random_token(value)


def _directory(value: str) -> bool:
    """`/home/app`, `~/src`, `C:\\Users\\app`: what the shell's `PWD` holds."""
    return value[:1] in ("/", "~", "\\") or (value[1:2] == ":" and value[2:3] in ("\\", "/"))


def _starts_line(text: str, start: int) -> bool:
    """Whether the name at `start` begins a line, a YAML list item or a flow mapping's entry."""
    at = start
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    if at > 0 and text[at - 1] == "-":  # `- password: …`
        at -= 1
        while at > 0 and text[at - 1] in " \t":
            at -= 1
    return at == 0 or text[at - 1] in "\n\r{," or text[at - 2 : at] == "\\n"


def _plain_literal(name: str, value: str, *, quoted: bool) -> bool:
    """Whether `value` can be a secret at all: not empty, a placeholder or a word of code."""
    stripped = value.strip()
    if len(stripped) < 3 or already_redacted(stripped):
        return False
    lowered = stripped.lower()
    if lowered in NOT_VALUES or _TEMPLATE.match(stripped) or placeholder(stripped):
        return False
    if len(set(stripped)) == 1:
        return False
    if "${" in stripped or "{{" in stripped:
        return False  # an interpolated template: `Token ${process.env.API_TOKEN}`
    if name.lower() in ("cookie", "set-cookie") and _settings_only(stripped):
        return False  # `Set-Cookie: theme=dark; Path=/`: no session's value
    if lowered.replace("-", "_") == name.lstrip("-").lower().replace("-", "_"):
        return False  # token=token, --password password
    if stripped[0] in "$%{<([@#!&|>*" or stripped.startswith(("~/", "./", "../")):
        return False
    if stripped[0] == "/" and stripped.count("/") > 1 and " " not in stripped:
        return False  # a path: PASSWORD_FILE-like values under a secret name
    if stripped.replace(".", "", 1).isdigit():
        return is_password_name(name)
    return quoted or "(" not in stripped


def _settings_only(cookie: str) -> bool:
    """A cookie's first `name=value` pair whose value is a word of one case (`theme=dark`)."""
    name, equals, value = cookie.partition(";")[0].partition("=")
    plain = value.isalpha() and (value.islower() or value.isupper()) and len(value) <= 16
    return bool(equals and name) and plain


def _reads_as_code(value: str) -> bool:
    """A bare value that is a call or an index (`getpass()`, `env[KEY]`)."""
    return "(" in value or "[" in value


_XML = re.compile(r"<([A-Za-z_][\w.:-]{0,99})>([^<\n]{1,256})</\1>")


def redact_xml_elements(text: str, lowered: str) -> str:
    """`<password>…</password>` and other secret-named elements."""

    def replace(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if not is_secret_name(name.rpartition(":")[2]) or not _plain_literal(
            name, value, quoted=True
        ):
            return match.group(0)
        return f"<{name}>{mark('assignment')}</{name}>"

    return _XML.sub(replace, text)


ASSIGNMENTS = (
    Shape("assignment", ("</",), redact_xml_elements),
    Shape("assignment", NAME_NEEDLES, redact_assignments),
)
