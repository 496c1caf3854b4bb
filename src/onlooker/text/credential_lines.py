"""Passwords in credential files and in sentences: `.pgpass` and `.netrc` lines, connection
strings (`Password=…;`, `user/password@db`), and prose such as "my password is hunter2".
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import re

from ._shape import Shape, already_redacted, keywords_first, mark, regex_apply, replace_spans
from .literal_starts import Started, finditer_from_starts

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: `host:port:database:user:password`: a whole line (a JSON `\n` also ends a line).
_PGPASS = re.compile(
    r"(?P<host>[^\s:\\\"']{1,253}):(?P<port>\d{1,5}|\*):(?P<db>[^\s:\\\"']{1,63}):(?P<user>[^\s:\\\"']{1,63}):(?P<v>[^\s\\\"']{1,256})(?=\r?$|\\n|\\?\"|')"
)
#: Where a `.pgpass` line may be: `:port:` (or `:*:`); each line is looked at once, from there.
_PGPASS_PORT = re.compile(r":(?:\d{1,5}|\*):")
_LINE_BREAK = re.compile(r"\n|\\n")
_HEX_GROUP = re.compile(r"[0-9a-fA-F]{1,4}")


def redact_pgpass(text: str, lowered: str) -> str:
    """The password field of `.pgpass` lines (not IPv6 addresses, not times of day)."""
    spans: list[tuple[int, int]] = []
    at = 0
    while (port := _PGPASS_PORT.search(text, at)) is not None:
        escaped = text.rfind("\\n", at, port.start())
        start = max(at, text.rfind("\n", at, port.start()) + 1, escaped + 2 if escaped >= 0 else 0)
        stop = _LINE_BREAK.search(text, port.end())
        end = stop.start() if stop else len(text)
        at = end
        line = _PGPASS.match(text, start, end)
        if line is None:
            continue
        fields = [line.group(name) for name in ("host", "port", "db", "user", "v")]
        if all(_HEX_GROUP.fullmatch(f) for f in fields):
            continue  # fe80:0:0:0:1
        host = fields[0]
        if host != "*" and not any(c.isalpha() or c in ".-" for c in host):
            continue  # 12:30:45:…
        if not already_redacted(line.group("v")):
            spans.append(line.span("v"))
    return replace_spans(text, spans, "pgpass")


_NETRC = re.compile(
    r"\b(?:machine[ \t\r\n]+\S{1,253}|default)(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+\S{1,253}){0,3}[ \t\r\n]+password[ \t\r\n]+([^\s\\\"']{1,256})"
)
#: `Password=…;` and `Pwd=…;` of ADO.NET, ODBC and JDBC-style connection strings.
_CONNECTION_PASSWORD = re.compile(
    keywords_first(
        r"(?i)(?<![\w-])(?:password|pwd)[ \t]*=[ \t]*([^;'\"\n\r\\=]{1,200}?)[ \t]*(?=;)"
    )
)
#: `user/password@database` of Oracle's thin driver and sqlplus connect strings.
_SLASH_PASSWORD = re.compile(r"\bjdbc:oracle:[a-z]+:@?(?:[^\s/@'\"]{1,128})/([^\s@/'\"]{1,256})@")

#: Go's MySQL DSN, `user:password@tcp(host:port)/db`: no scheme, so not a URL's userinfo.
_GO_DSN = re.compile(r"(?<![\w.-])[\w.-]{1,64}:([^\s@\"'`:/]{1,256})@(?:tcp|unix|udp)\(")


def redact_go_dsns(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group(1)
        if already_redacted(value) or value[0] in "${<%" or value.lower() in _DOC_PASSWORDS:
            return match.group(0)  # `user:password@tcp(…)`: the placeholder of the docs
        start = match.start(1) - match.start()
        whole = match.group(0)
        return whole[:start] + mark("connection_string") + whole[start + len(value) :]

    return _GO_DSN.sub(replace, text)


_DOC_PASSWORDS = frozenset({"password", "pass", "pwd", "secret", "passwd"})


#: A password stated in a sentence: what it is called, an optional "for the database", "is", the value.
_STATED = re.compile(
    r"(?P<what>pass(?:word|wd|phrase|code)|pass word|pwd|pw|pin|api key|api token|access token|secret key|token|secret)"
    r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+[\w.@:/-]{1,40}){1,3}?)?"
    r"[ \t]+(?:is|was|will be|should be)[ \t]*:?[ \t]*"
    r"(?P<v>\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|`[^`\n]{1,128}`|[^\s\"'`]{1,128})"
)
_STATED_ANY_CASE = re.compile(_STATED.pattern, re.IGNORECASE)
#: `_STATED` on lowercased text, tried only where what the value is called starts.
_STATED_STARTS = Started(
    _STATED, ("pass", "pw", "pin", "api key", "api token", "access token", "secret", "token")
)
_OWNERS = re.compile(r"\b(?:my|our|your|his|her|their)\b[\w \t-]{0,30}$", re.IGNORECASE)
#: Words that follow "the password is" in prose about passwords, never passwords themselves.
_STOPWORDS = """
a an the not no now also still just only very too so then set unset empty blank null none nil
required optional missing wrong invalid incorrect correct valid expired stored saved hashed
encrypted changed reset rotated generated created sent read written shown hidden masked used
needed ok fine good bad weak strong short long different same case-sensitive in on at of for to
from by with into as being been be what that this these those which where here there it its
your my our their his her sensitive secret private public correct enabled disabled typed entered
given provided passed printed logged stored. there. right below above following same. usually
always never probably definitely likely unknown known available unavailable protected safe unsafe
"""
STOPWORDS = frozenset(_STOPWORDS.split())
_TRAILING = ".,;:!?)]}"
#: Statements looked at one by one in a text (and one more per 200 characters); past that, each
#: is replaced whole, with no Python per match (see assignments.BUDGET).
BUDGET = 1000


def redact_stated(text: str, lowered: str) -> str:
    """Passwords stated in prose ("my password is hunter2", "the wifi password is 'Tr0ub4dor'")."""
    same = len(lowered) == len(text)
    # (a text whose lowercase moves characters: from the words' starts in the text folded)
    founds = (
        _STATED_STARTS.finditer(lowered)
        if same
        else finditer_from_starts(_STATED_ANY_CASE, text, lowered)
    )
    spans: list[tuple[int, int]] = []
    budget = BUDGET + len(text) // 200
    for found in founds:
        budget -= 1
        if budget < 0:  # a text made of such sentences: the rest goes whole, in linear time
            head = replace_spans(text[: found.start()], spans, "stated_password")
            return head + _STATED_ANY_CASE.sub(mark("stated_password"), text[found.start() :])
        if found.start() and (text[found.start() - 1].isalnum() or text[found.start() - 1] in "_-"):
            continue  # `bypass is`, `my_token is`
        start, end = found.span("v")
        value = text[start:end]
        quoted = value[0] in "\"'`"
        if not quoted:
            stripped = value.rstrip(_TRAILING)
            end -= len(value) - len(stripped)
            value = stripped
        else:
            start, end, value = start + 1, end - 1, value[1:-1]
        owned = _OWNERS.search(text, max(0, found.start() - 40), found.start()) is not None
        numeric = (
            value.isdigit()
            and len(value) >= 4
            and found.group("what")[:2].lower() in ("pa", "pw", "pi")
        )
        if numeric or _stated_secret(value, quoted=quoted, owned=owned):
            spans.append((start, end))
    return replace_spans(text, spans, "stated_password")


def _stated_secret(value: str, *, quoted: bool, owned: bool) -> bool:
    if len(value) < 3 or already_redacted(value) or value.lower() in STOPWORDS:
        return False
    if value[0] in "$%{<([" or len(set(value)) == 1:
        return False
    letters = value.isalpha()
    if letters and value.islower() and value.endswith(("ed", "ing", "ly", "able", "ible")):
        return False
    if quoted or owned:
        return True
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    symbol = any(not c.isalnum() for c in value)
    mixed = not letters or (value[1:] != value[1:].lower() and len(value) >= 6)
    return (has_digit and has_letter) or (symbol and has_letter) or (letters and mixed)


CREDENTIAL_SHAPES = (
    Shape("pgpass", (":",), redact_pgpass),
    Shape("netrc", ("password",), regex_apply(_NETRC, 1, "netrc")),
    Shape(
        "connection_string",
        ("password", "pwd"),
        regex_apply(_CONNECTION_PASSWORD, 1, "connection_string"),
    ),
    Shape(
        "connection_string", ("jdbc:oracle:",), regex_apply(_SLASH_PASSWORD, 1, "connection_string")
    ),
    Shape(
        "connection_string",
        ("@tcp(", "@unix(", "@udp("),
        redact_go_dsns,
    ),
    Shape(
        "stated_password",
        ("pass", "pw", "pin", "api key", "api token", "access token", "secret", "token"),
        redact_stated,
    ),
)
