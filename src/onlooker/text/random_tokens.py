"""Long random tokens next to a word that means a credential, found by their characters: at least
20 of them, upper and lower case letters and digits mixed, and enough entropy. Digests
(`sha256:…`, `sha512-…` integrity values, `h1:`), paths and URLs are not tokens.
"""

from __future__ import annotations

import base64
import re
import string
from collections.abc import Iterator

from ._shape import (
    Shape,
    alnum_run,
    already_redacted,
    byte_table,
    mark,
    run_starts,
    sub_at,
    whole_match,
)
from .rule_set import entropy

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_.=~-])[A-Za-z0-9][A-Za-z0-9+/_.=~-]{19,1023}")
_TOKEN_BYTES = byte_table(string.ascii_letters + string.digits + "+/_.=~-")
#: Words that make a token nearby a credential (looked for earlier on its line).
_CREDENTIAL_WORDS = re.compile(
    r"(?i)(?:key|secret|token|passw|pwd|auth|credential|private|signing|hmac|bearer|session|cookie|api|login|connect|client|password|\bpat\b)"
)
_CREDENTIAL_NAMES = tuple(
    _CREDENTIAL_WORDS.pattern.removeprefix("(?i)(?:").removesuffix("|\\bpat\\b)").split("|")
)
#: `_CREDENTIAL_WORDS` on lowercased ASCII text: each word as written, no case ignored.
_CREDENTIAL_LOWER = re.compile("|".join(_CREDENTIAL_NAMES) + r"|\bpat\b")


def _credential_word(before: str) -> bool:
    """`_CREDENTIAL_WORDS.search(before)`; for ASCII text, the words as written in it lowercased
    (a pattern ignoring case is tried at every character; one not ignoring it, at the characters
    its words start with)."""
    if not before.isascii():
        return _CREDENTIAL_WORDS.search(before) is not None
    return _CREDENTIAL_LOWER.search(before.lower()) is not None


_DIGEST_BEFORE = re.compile(
    r"(?i)(?:sha\d{1,3}[-:=~]|integrity|checksum|digest|hash|h1:|md5|fingerprint|commit|public"
    r"|pub\b|iVBOR|base64,|public[ _-]?key|pubkey)[\s\"':=]*$"
)
#: The longest word `_DIGEST_BEFORE` looks for (`fingerprint`).
_DIGEST_WORD = 11
_TRAILING = frozenset("\"':=")


def _digest_before(before: str) -> bool:
    """`_DIGEST_BEFORE.search(before)`, tried only from where a match can start: its word ends
    where the run of spaces, quotes, `:` and `=` at the end of `before` starts or later (the
    pattern ignoring case with no first letter is otherwise tried at every character)."""
    end = len(before)
    while end and (before[end - 1] in _TRAILING or before[end - 1].isspace()):
        end -= 1
    return _DIGEST_BEFORE.search(before, max(0, end - _DIGEST_WORD)) is not None


#: The least entropy (bits per character) of a random token of 20 characters or more.
LEAST_ENTROPY = 3.6
REACH = 60


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """`_TOKEN.finditer(text)`, tried only at the start of each run of 20 or more of a token's
    characters (found by a translation and `bytes.find`, one byte per character: a character
    past Latin-1 is encoded as `?`, and no byte past ASCII is a token's): a match starts a run
    (its lookbehind), and a run holds one match at most (the pattern runs on to its end or 1024
    characters; no other start in the run has the lookbehind)."""
    runs = text.encode("latin-1", "replace").translate(_TOKEN_BYTES)
    at = runs.find(_TWENTY)
    while at != -1:
        found = _TOKEN.match(text, at)
        if found is not None:
            yield found
        end = runs.find(b" ", at)
        if end == -1:
            return
        at = runs.find(_TWENTY, end)


_TWENTY = b"a" * 20


def redact_random_tokens(text: str, lowered: str) -> str:
    pieces: list[str] = []
    done = 0
    for found in _tokens(text):
        token = found.group(0).rstrip(".=-")
        if not _random(token) or already_redacted(text[max(0, found.start() - 11) : found.end()]):
            continue
        reach = max(0, found.start() - REACH)  # the line's start, looked for no further back
        line_start = max(text.rfind("\n", reach, found.start()) + 1, found.start() - REACH)
        before = text[line_start : found.start()]
        if "://" in before[-12:] or not _credential_word(before) or _digest_before(before):
            continue
        if (token.startswith(_PEM_BASE64) and _public_pem(token)) or _public_pem_body(before):
            continue
        if token.startswith(_SSH_PUBLIC):
            continue  # an SSH public key's blob (`ssh-ed25519 AAAAC3Nza…`)
        if (
            _JWK_PUBLIC.search(before)
            and "kty" in text[max(0, found.start() - 600) : found.end() + 600]
        ):
            continue  # a JSON Web Key's public member (`"n"`, `"x"`, `"y"`, `"e"`)
        pieces.append(text[done : found.start()] + mark("random_token"))
        done = found.start() + len(token)
    return "".join(pieces) + text[done:] if pieces else text


_JWK_PUBLIC = re.compile(r"""[\"'](?:n|e|x|y|crv|kid|x5t|x5t#S256)\\?[\"'][ \t]*:[ \t]*\\?[\"']$""")
#: The openings of SSH public key blobs: `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-…`, `ssh-dss`,
#: `sk-…@openssh.com`, length-prefixed and in base64.
_SSH_PUBLIC = ("AAAAC3NzaC1lZDI1NTE5", "AAAAB3NzaC1yc2E", "AAAAE2VjZHNhLXNoYTIt", "AAAAB3NzaC1kc3M",
               "AAAAGnNrLXNzaC1lZDI1NTE5", "AAAAInNrLWVjZHNh")  # fmt: skip
#: `-----BEGIN ` in base64: a PEM block encoded whole (kubeconfig's `…-data` fields).
_PEM_BASE64 = "LS0tLS1CRUdJTi"


def _public_pem(token: str) -> bool:
    """A base64-encoded certificate or public key (`certificate-authority-data: LS0tLS1…`)."""
    try:
        head = base64.b64decode(token[:60])
    except ValueError:
        return False
    label = head.split(b"-----")[1] if head.count(b"-----") >= 2 else head
    return b"PRIVATE" not in label and (b"CERTIFICATE" in label or b"PUBLIC KEY" in label)


def _public_pem_body(before: str) -> bool:
    """A token right after the BEGIN line of a certificate or public key on the same line
    (`"-----BEGIN PUBLIC KEY-----\\nMFkw…"`, a PEM written with `\\n` escapes)."""
    at = before.rfind("-----BEGIN ")
    if at < 0:
        return False
    head = before[at : at + 40]
    return "PRIVATE" not in head and ("PUBLIC KEY-----" in head or "CERTIFICATE-----" in head)


def _path(token: str) -> bool:
    """`src/onlooker/text/x.py`, not base64 that holds slashes."""
    if token.count("/") < 2 or "+" in token or token.endswith("="):
        return False
    segments = [s for s in token.split("/") if s]
    return (
        any(s.isalpha() and s.islower() for s in segments)
        or max(map(len, segments), default=0) <= 12
    )


_DROP_DIGITS = str.maketrans("", "", "0123456789")


#: `_random` of tokens seen before, up to this length and this many (then forgotten all at once):
#: the texts of one session repeat their ids, model names and field names.
_REMEMBERED_LENGTH = 128
_REMEMBERED_TOKENS = 20_000
_SEEN: dict[str, bool] = {}


def random_token(token: str) -> bool:
    """Whether `token` reads as random: letters of both cases and digits, enough entropy."""
    return token.isascii() and _random(token)


def _random(token: str) -> bool:
    """Upper and lower case letters and digits mixed, not a path, and enough entropy (`token`
    is ASCII, as both patterns that find one ask); remembered for tokens seen before."""
    known = _SEEN.get(token)
    if known is None:
        known = _random_seen_first(token)
        if len(token) <= _REMEMBERED_LENGTH:
            if len(_SEEN) >= _REMEMBERED_TOKENS:
                _SEEN.clear()
            _SEEN[token] = known
    return known


def _random_seen_first(token: str) -> bool:
    """`_random`, cheapest tests first."""
    if len(token) < 20:
        return False
    digits = len(token) - len(token.translate(_DROP_DIGITS))
    if not digits or digits == len(token) or token.lower() == token or token.upper() == token:
        return False
    return not _path(token) and entropy(token) >= LEAST_ENTROPY


#: A token of a vendor onlooker does not know: a short lowercase prefix (`phx_`, `ak-live-`), then
#: 30 or more random characters.
_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9_-])[a-z]{2,8}[_-](?:[a-z0-9]{2,10}[_-])?(?P<v>[A-Za-z0-9]{30,512})(?![A-Za-z0-9_-])"
)
PREFIXED_ENTROPY = 4.0


#: Where the random part of a prefixed token may start: a run of 30 letters and digits.
_LONG_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{30}")
#: The most characters a prefixed token's prefix (`ak-live-`) takes before its random part.
_PREFIX_REACH = 8 + 1 + 10 + 1


def redact_prefixed_tokens(text: str, lowered: str) -> str:
    """`_PREFIXED.sub` with every match checked, but searched for only from the runs of 30
    letters and digits its random part starts at (most texts have none): no match starts more
    than _PREFIX_REACH before the first such run after the last match."""
    if not alnum_run(text, 30):
        return text
    pieces: list[str] = []
    done = 0
    while (run := _LONG_RUN.search(text, done)) is not None:
        found = _PREFIXED.search(text, max(done, run.start() - _PREFIX_REACH))
        if found is None:
            break
        token = found.group("v")
        publishable = found.group(0).startswith(("pk_", "pk-"))  # Stripe's and Clerk's, public
        if publishable:
            pieces.append(text[done : found.end()])
        elif (_random(token) and entropy(token) >= PREFIXED_ENTROPY) or _named_hex(
            text, found.start(), found.group(0), token
        ):
            pieces.append(text[done : found.start()])
            pieces.append(mark("prefixed_token"))
        else:
            pieces.append(text[done : found.end()])
        done = found.end()
    return "".join(pieces) + text[done:] if pieces else text


_HEX = frozenset("0123456789abcdef")
#: The least entropy of the hex part of a prefixed token (random hex has some 3.8 bits of 4).
HEX_ENTROPY = 3.3


def _named_hex(text: str, start: int, whole: str, token: str) -> bool:
    """A vendor token whose random part is hex (`bkua_3f9…`): 32 or more hex digits after a
    prefix joined by `_`, with a word meaning a credential before it on its line and no digest's."""
    if len(token) < 32 or "_" not in whole[: len(whole) - len(token)] or not _HEX.issuperset(token):
        return False
    line_start = max(text.rfind("\n", 0, start) + 1, start - REACH)
    before = text[line_start:start]
    return entropy(token) >= HEX_ENTROPY and _credential_word(before) and not _digest_before(before)


#: A vendor token wrapping base64url JSON (`ops_eyJ…`, a service account's token): a lowercase
#: prefix joined by `_`, then `{"` in base64url and 60 or more characters.
_PREFIXED_JSON = re.compile(r"(?<![A-Za-z0-9_-])[a-z]{2,8}_eyJ[A-Za-z0-9_-]{60,4096}={0,2}")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
#: How far past where a match starts its `_eyJ` ends at most.
_JSON_REACH = 8 + 4
_PREFIXED_MARK = whole_match("prefixed_token")


def redact_prefixed_json(text: str, lowered: str) -> str:
    """`_PREFIXED_JSON` tried only where the run of lowercase letters before an `_eyJ` starts."""
    starts = run_starts(text, ("_eyJ",), _LOWER, _JSON_REACH)
    return sub_at(_PREFIXED_JSON, _PREFIXED_MARK, text, starts) if starts else text


RANDOM_TOKEN_SHAPES = (
    Shape("prefixed_token", ("_eyj",), redact_prefixed_json),
    Shape("prefixed_token", ("_", "-"), redact_prefixed_tokens),
    Shape(
        "random_token",
        (
            "key",
            "secret",
            "token",
            "pass",
            "pwd",
            "auth",
            "credential",
            "private",
            "signing",
            "hmac",
            "bearer",
            "session",
            "cookie",
            "api",
            "login",
            "connect",
            "client",
            "pat",
        ),
        redact_random_tokens,
    ),
)
