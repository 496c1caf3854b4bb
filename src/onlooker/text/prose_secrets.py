"""Passwords stated in prose in the phrasings `credential_lines.redact_stated` does not read:
"use X as the password", "X is the password", "password -> X", "changed the password to X",
"login with admin / X", "creds are admin:X", "the one-time password 87139135", "key X". The
value must read as a secret (letters mixed with digits, or digits after a password's name).
"""

# ruff: noqa: E501 - each phrasing reads best as one pattern
from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Iterator

from ._shape import Shape, already_redacted, replace_spans
from .credential_lines import STOPWORDS
from .folding import ascii_lowered
from .literal_starts import Started, positions, searched, word_starts

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: The value: quoted in backticks, or a run holding a digit (what `_strong` asks of most values).
_V = r"(?P<v>`[^`\n]{3,128}`|(?=[^\s\"'`,;()\[\]{}<>]{0,127}\d)[^\s\"'`,;()\[\]{}<>]{3,128})"
_WHAT = r"(?:pass(?:word|wd|phrase|code)?|pwd|pw|pin|passcode|key|token|secret|creds|credentials|mot de passe|contraseña|passwort|kennwort|senha)"
#: A user name (or one redacted already), and "for the staging box" after what is named.
_USER = r"(?:[\w.@-]{1,64}|\[redacted:\w+\])"
_FOR = r"(?:[ \t]+(?:for|of|on)(?:[ \t]+[\w.@-]{1,40}){1,3}?)?"
#: "is" in the languages `_WHAT` names the password in.
_IS = r"[ \t](?:lautet|ist|war|es|era|est|était|é)"
#: The words that name a password only (not a key or a token, whose qualified names are code).
_PASSWORD_WORD = r"(?:pass(?:word|wd|phrase|code)?|pwd|pw|passcode|mot de passe|contraseña|passwort|kennwort|senha)"
_PASSWORD_STARTS = ("pass", "pw", "mot de passe", "contraseña", "kennwort", "senha")
#: What `_WHAT` starts with: every phrasing starting with `_WHAT` is tried only there.
_WHAT_STARTS = (
    "pass", "pw", "pin", "key", "token", "secret", "cred", "mot de passe", "contraseña",
    "kennwort", "senha",
)  # fmt: skip
#: Every word `_WHAT` matches, each alternative written out.
_WHAT_WORDS = (
    "pass", "password", "passwd", "passphrase", "passcode", "pwd", "pw", "pin", "key", "token",
    "secret", "creds", "credentials", "mot de passe", "contraseña", "passwort", "kennwort", "senha",
)  # fmt: skip


class ClosedBy:
    """A pattern whose every match is `(`, then word characters, spaces, tabs and `-` only, then
    one of `words` and `)` (`(the admin password)`): tried only at the `(` before each of the
    words closed by `)` (each a word searched for, literal_starts.py, so known from the gate);
    a pattern opening with `(` is otherwise tried wherever one stands, everywhere in code."""

    def __init__(self, pattern: re.Pattern[str], words: tuple[str, ...]) -> None:
        self.pattern = pattern
        self._closed = searched(*(f"{word})" for word in words))

    def finditer(self, haystack: str) -> Iterator[re.Match[str]]:
        """`pattern.finditer(haystack)`: a match starts at the last `(` before its `)`, with
        nothing but what may stand between them in between (no `(` or `)` among it)."""
        # each word's `)` is the first after where it starts (none holds another)
        closings = {haystack.find(")", at) for at in word_starts(haystack, self._closed)}
        low = done = 0
        for at in sorted(closings):
            start = haystack.rfind("(", low, at)
            low = at + 1
            if start < done or not _BETWEEN.fullmatch(haystack, start + 1, at):
                continue
            found = self.pattern.match(haystack, start)
            if found is not None:
                done = found.end()
                yield found


_BETWEEN = re.compile(r"[\w \t-]*")


#: Each phrasing with the words it starts with: the pattern is tried only where one starts
#: (literal_starts.py), and not at all when none is in the text; and with the words a match
#: holds later on its line, where there are such words.
PHRASINGS = (
    # password -> X, password → X, password to X, password: X, password = X, password X
    Started(re.compile(
        rf"{_WHAT}(?:[ \t]+(?:for|of|on)[ \t]+[\w.@-]{{1,40}})?(?:[ \t]*\([^()\n]{{1,30}}\))?[ \t]*(?:->|→|=>|:|=|—|–|'s|’s|[ \t]to|[ \t]is now|[ \t]now|[ \t]is|[ \t]was|{_IS})?[ \t]+{_V}"
    ), _WHAT_STARTS),
    # use X as the password; X is the password; X (the admin password)
    Started(re.compile(rf"(?:use[sd]?|using|set|chose|picked)[ \t]+{_V}[ \t]+(?:as|for)[ \t]+(?:the|my|our|your)?[ \t]*(?:[\w-]+[ \t]+)?{_WHAT}\b"), ("use", "using", "set", "chose", "picked"), _WHAT_STARTS),
    # login with admin / X; creds are admin:X; log in as root with X
    # (the user may have been redacted already, as the value of `Credentials:`)
    Started(re.compile(
        rf"(?:with|using|creds|credentials|login|logon|log-in|account)[ \t]*(?::|->|=>|➜|→|—|–|=)?[ \t]+{_USER}[ \t]*(?:/{{1,2}}|\|)[ \t]*{_V}"
    ), ("with", "using", "cred", "login", "logon", "log-in", "account")),
    Started(re.compile(
        rf"(?:creds|credentials|login|user/pass){_FOR}[ \t]+(?:are|is|:)[ \t]*{_USER}:(?P<v>[^\s\"'`,;()]{{3,128}})"
    ), ("cred", "login", "user/pass")),
    Started(re.compile(
        rf"(?:log(?:ged)?[ \t]?in|sign(?:ed)?[ \t]?in|ssh(?:ed)?|connect(?:ed)?)[ \t]+as[ \t]+{_USER}[ \t]+(?:with|using)[ \t]+{_V}"
    ), ("log", "sign", "ssh", "connect"), ("with", "using")),
    # sign in with jdoe and X (a user, then the password, after a login's verb)
    Started(re.compile(
        rf"(?:log(?:ged)?[ \t]?in|sign(?:ed)?[ \t]?in)[ \t]+(?:with|using)[ \t]+{_USER}[ \t]+(?:and|&)[ \t]+{_V}"
    ), ("log", "sign"), ("with", "using")),
    # the password of the test account: X; mot de passe du compte : X; Passwort für den Nutzer: X
    # (a password's word, a few words saying whose, then a separator that states a value)
    Started(re.compile(
        rf"{_PASSWORD_WORD}(?:[ \t]+[^\s:=>\-–—→]{{1,40}}){{1,4}}?[ \t]*(?::|=|->|=>|→|—|–)[ \t]*{_V}"
    ), _PASSWORD_STARTS),
    # password reset done, new one is X
    Started(re.compile(rf"(?:password|passphrase|passcode)\b[^.\n]{{0,60}}?(?:\b(?:is|was|are)[ \t]+|:[ \t]*){_V}"), ("pass",)),
)  # fmt: skip
#: u jdoe p X; user: jdoe pass: X; username bob, pw X: a user's word and a password's, each
#: before its value (a shape of its own: `u ` is in most texts, the other phrasings' words not;
#: looked for only on lines holding a password's word after it).
_PASSWORD_AFTER = (" p ", " p:", " p=", "pass", "pw")
USER_THEN_PASSWORD = (
    Started(re.compile(
        rf"(?<!\w)(?:u|user|username|login)[ \t]*[:=]?[ \t]+{_USER}[ \t]*[,;/]?[ \t]+(?:p|pass|passwd|password|pw|pwd)[ \t]*[:=]?[ \t]+{_V}"
    ), ("u ", "u:", "u=", "user", "login"), _PASSWORD_AFTER),
)  # fmt: skip
#: "X is the password", "X (the admin password)": found from what follows the value, which is
#: the word before (a pattern starting with the value would be tried at every position).
NAMED_AFTER: tuple[Started | ClosedBy, ...] = (
    Started(re.compile(rf"(?:is|was)[ \t]+(?:the|my|our|your)[ \t]+(?:[\w-]+[ \t]+)?{_WHAT}\b"), ("is ", "is\t", "was ", "was\t"), _WHAT_STARTS),
    ClosedBy(re.compile(rf"\((?:the|my|our)?[ \t]*(?:[\w-]+[ \t]+)?{_WHAT}\)"), _WHAT_WORDS),
)  # fmt: skip
_WORD_BEFORE = re.compile(r"[^\s\"'`,;()\[\]{}<>]{3,128}$")
_OTP_WORDS = re.compile(r"(?:pass(?:word|code)?|pin|otp|code)[ \t]*[:=]?[ \t]*$")


#: Phrasings looked at one by one in a text (and one more per 200 characters); past that the
#: text is made of them, and each value found in the rest is replaced unread (see assignments).
BUDGET = 1000


def redact_prose(
    text: str,
    lowered: str,
    phrasings: tuple[Started, ...] = PHRASINGS,
    named_after: tuple[Started | ClosedBy, ...] = NAMED_AFTER,
) -> str:
    spans: list[tuple[int, int]] = []
    budget = BUDGET + len(text) // 200
    haystack = lowered if len(lowered) == len(text) else ascii_lowered(text)
    for pattern in phrasings:
        for found in pattern.finditer(haystack):
            budget -= 1
            if budget < 0:
                spans.append(found.span("v"))
                continue
            if found.start() and _inside_word(haystack, found.start()):
                continue
            if haystack.startswith("key", found.start()) and _KEY_ID_BEFORE.search(
                haystack, max(0, found.start() - 16), found.start()
            ):
                continue  # `using RSA key 4F2A…`, `public key …`: a key's id or a public one
            start, end = found.span("v")
            value = text[start:end]
            if value.startswith("`") and value.endswith("`"):
                start, end, value = start + 1, end - 1, value[1:-1]
            stripped = value.rstrip(".,;:!?)]}")
            end -= len(value) - len(stripped)
            digits_after = value.isdigit() and _OTP_WORDS.search(
                text[max(0, found.start() - 40) : start]
            )
            if _strong(stripped) or (digits_after and len(stripped) >= 4):
                spans.append((start, end))
    for named in named_after:
        for found in named.finditer(haystack):
            budget -= 1
            if found.start() and haystack[found.start() - 1] not in " \t(":
                continue
            before = _WORD_BEFORE.search(
                text,
                max(0, found.start() - 129),
                found.start() - 1 if text[found.start() - 1] in " \t" else found.start(),
            )
            if before is not None and (budget < 0 or _strong(before.group(0))):
                spans.append(before.span())
    if not spans:
        return text
    spans.sort()
    return replace_spans(text, spans, "stated_password")


#: The word before `key` when what follows is a key's id or fingerprint, or a public key.
_KEY_ID_BEFORE = re.compile(r"(?:rsa|dsa|ecdsa|eddsa|ed25519|cv25519|gpg|pgp|public|host)[ \t]+$")


def _inside_word(text: str, at: int) -> bool:
    """Whether `at` is inside a word: after a letter, digit or `_`, or after a `-` that joins
    it to a word (`bypass`, `my_token`); `insecure-password X` names a password, `--password X`
    is a flag (assignments.py)."""
    before = text[at - 1]
    if before.isalnum() or before == "_":
        return True
    return before == "-" and not (at > 1 and text[at - 2].isalnum())


def _strong(value: str) -> bool:
    """Reads as a secret: letters and digits mixed (or symbols), not a word of prose."""
    if (
        len(value) < 6
        or already_redacted(value)
        or value.lower() in STOPWORDS
        or value[0] in "$%{<[("
    ):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if (_CODE.fullmatch(value) and not digits) or "[" in value:
        return False  # os.environ.get, self.password, user_password
    upper_inside = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    symbols = (
        any(not c.isalnum() and c not in "._-/" for c in value) and letters and len(value) >= 8
    )
    return (letters and digits) or (upper_inside and len(value) >= 8) or symbols


_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


#: `admin:S3cr3t!x` in a sentence: a user's name, `:`, a value; found from each `:`.
_PAIR = re.compile(r":(?P<v>[^\s:/@\"'`<>()\[\]{},;]{6,128})(?=[\s,.;)]|$)")
_PAIR_USER = re.compile(r"(?<![\w.@/:-])[A-Za-z][\w.@-]{1,32}$")
#: Words of a sentence that say a `user:value` pair is a login (on its line, either side).
_LOGIN_WORDS = re.compile(r"(?:log[ -]?in|logon|sign[ -]?in|creds|credentials|account|works for)\b")


def redact_user_pairs(text: str, lowered: str) -> str:
    """`user:password` pairs stated with a login's words on their line, whose value reads as a
    password: letters with digits and a symbol, or both cases with digits (not `redis:7-alpine`,
    `host:8080`, `key:value`)."""
    spans: list[tuple[int, int]] = []
    haystack = lowered if len(lowered) == len(text) else text.lower()
    for line_start, line_end in _login_lines(haystack):
        if "://" in haystack[line_start:line_end]:
            continue
        for found in _PAIR.finditer(text, line_start, line_end):
            value = found.group("v").rstrip(".")
            if _password_like(value) and _PAIR_USER.search(
                text, max(line_start, found.start() - 34), found.start()
            ):
                spans.append((found.start("v"), found.start("v") + len(value)))
    return replace_spans(text, spans, "stated_password") if spans else text


def _login_lines(haystack: str) -> list[tuple[int, int]]:
    """(start, end) of each line holding a login's word (found with `str.find`: a pattern with
    no first letter is tried at every character)."""
    lines: set[tuple[int, int]] = set()
    for word in _LOGIN_WORD_LIST:
        # its places (found once per text, or known from the gate), taken as `find` from the
        # end of the last one taken would: none of these words overlaps itself
        places = positions(haystack, word)
        index = 0
        while index < len(places):
            at = places[index]
            end = at + len(word)
            if _LOGIN_WORDS.match(haystack, at) and (at == 0 or not haystack[at - 1].isalnum()):
                start = haystack.rfind("\n", 0, at) + 1
                stop = haystack.find("\n", end)
                lines.add((start, len(haystack) if stop < 0 else stop))
                end = len(haystack) if stop < 0 else stop
            index = bisect_left(places, end, index + 1)
    return sorted(lines)


_LOGIN_WORD_LIST = searched("log", "sign", "creds", "credentials", "account", "works for")


def _password_like(value: str) -> bool:
    digits = any(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    symbol = any(not c.isalnum() and c not in "._-" for c in value)
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return digits and letters and (symbol or cases) and not already_redacted(value)


PROSE_SHAPES = (
    Shape(
        "stated_password",
        _PASSWORD_AFTER,
        functools.partial(redact_prose, phrasings=USER_THEN_PASSWORD, named_after=()),
    ),
    Shape(
        "stated_password",
        ("login", "log in", "logon", "sign in", "creds", "credentials", "works for"),
        redact_user_pairs,
    ),
    Shape(
        "stated_password",
        (
            "pass",
            "pw",
            "pin",
            "key",
            "token",
            "secret",
            "cred",
            "login",
            "log in",
            "sign in",
            "logon",
            "log-in",
            "logged in",
            "signed in",
            "ssh as",
            "sshed in as",
            "connect as",
            "connected as",
            "mot de passe",
            "contraseña",
            "kennwort",
            "senha",
        ),
        redact_prose,
    ),
)
