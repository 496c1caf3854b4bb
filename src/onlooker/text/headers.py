"""Credentials in HTTP headers and cookies: the credentials after any `Authorization` or
`Proxy-Authorization` scheme (`Token …`, `SSWS …`, `Digest … response="…"`), vendor key headers
whose names do not say key or token (`X-Honeycomb-Team`), `Cookie` and `Set-Cookie` values,
`curl -b`, `document.cookie`, and the value column of Netscape cookie jars.
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import re

from ._shape import Shape, already_redacted, keywords_first, mark
from .literal_starts import lowered_again, sub_from_starts

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: `Authorization: <scheme> <credentials>` up to the end of its quoted string or line.
_AUTHORIZATION = re.compile(
    r"""(?i)(?<![\w-])(?:proxy-)?authorization(?P<close>\\?["'`]?)[ \t]*[:=][ \t]*(?P<open>\\?["'`]|f["'])?[ \t]*"""
    r"""(?P<scheme>[A-Za-z][A-Za-z0-9_.-]{1,40})[ \t]+(?P<creds>[^\n\r"'`\\]{1,2000})"""
    # quoted pairs on (`Digest username="u", response="…"`): read only for a paired scheme
    r"""(?P<tail>(?:(?<==)"[^"\n\r\\]{0,512}"[^\n\r"'`\\]{0,512}){0,32})"""
)
#: Inside credentials of `key=value` pairs (Digest, OAuth 1, AWS SigV4): the pairs that are secret.
_PAIR = re.compile(
    r"""(?P<name>[A-Za-z_][\w-]*)[ \t]*=[ \t]*(?P<q>\\?"?)(?P<value>[^",\s\\]+)(?P=q)"""
)
_SECRET_PAIRS = frozenset({
    "response", "signature", "oauth_token", "oauth_signature", "token", "sig", "key", "secret",
    "password", "access_token", "cnonce", "mac",
})  # fmt: skip
#: Schemes whose credentials are `key=value` pairs, of which only some are secret.
_PAIRED_SCHEMES = frozenset(
    {"digest", "oauth", "aws4-hmac-sha256", "goog4-rsa-sha256", "hawk", "signature"}
)


def redact_authorization(text: str, lowered: str) -> str:
    """The credentials after any scheme, or the secret pairs of a paired scheme's credentials."""
    return sub_from_starts(_AUTHORIZATION, _authorization, text, lowered)


def _authorization(match: re.Match[str]) -> str:
    scheme, creds = match.group("scheme"), match.group("creds")
    start = match.start("creds") - match.start()
    whole = match.group(0)
    tail = match.group("tail")
    if scheme.lower() in _PAIRED_SCHEMES or (_PAIR.match(creds) and "=" in creds[:40]):
        cleaned = _PAIR.sub(_secret_pair, creds + tail)
        return whole[:start] + cleaned
    whole = whole[: len(whole) - len(tail)] if tail else whole
    words = creds.split()
    if not words:  # `Authorization: Token  `: the spaces after the scheme, nothing more
        return whole + tail
    value = words[0].rstrip(",;)")
    if not _credential(value):
        return whole + tail
    return whole[:start] + mark("authorization") + creds[len(value) :] + tail


def _secret_pair(match: re.Match[str]) -> str:
    value = match.group("value")
    if match.group("name").lower() not in _SECRET_PAIRS or not _credential(value):
        return match.group(0)
    return match.group(0).replace(value, mark("authorization"), 1)


def _setting(value: str) -> bool:
    """A cookie's value that is a word of one case (`theme=dark`, `lang=en`), not a session's."""
    return value.isalpha() and len(value) <= 16 and (value.islower() or value.isupper())


def _credential(value: str) -> bool:
    """Not a placeholder or a variable (`$TOKEN`, `${token}`, `{token}`, `<token>`)."""
    if len(value) < 6 or already_redacted(value):
        return False
    return value[0] not in "$%{<[(" and not value.startswith("#{")


#: Headers that hold a key under a name that does not say so.
VENDOR_HEADERS = (
    "x-honeycomb-team", "x-clickhouse-key", "x-appwrite-key", "x-api-token", "apikey", "x-apikey",
    "x-parse-rest-api-key", "x-parse-master-key", "x-pm-key", "x-cmc_pro_api_key", "x-hasura-admin-secret",
)  # fmt: skip
#: (Each name as written, as `keywords_first` reads them: letters, digits, `_` and `-`.)
_VENDOR_HEADER = re.compile(
    keywords_first(
        rf"(?i)(?<![\w-])(?:{'|'.join(VENDOR_HEADERS)})[\"']?[ \t]*:[ \t]*[\"']?(?P<v>[^\s\"'`\\,;]{{8,512}})"
    )
)


def redact_vendor_headers(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group("v")
        if not _credential(value):
            return match.group(0)
        return match.group(0)[: match.start("v") - match.start()] + mark("api_header")

    return sub_from_starts(_VENDOR_HEADER, replace, text, lowered)


#: `Cookie: a=b; c=d` (every value), `curl -b 'a=b'`, `--cookie`, httpie's `Cookie:a=b`.
_COOKIE_LIST = re.compile(
    r"""(?i)(?:(?<![\w-])cookie(?:[ \t]*:|[ \t]+is)[ \t]*|(?<![^\s])(?:-b|--cookie)(?:[ \t]+|=)(?P<q>\\?["']?))(?P<pairs>[^\n\r"'`\\]{1,4000})"""
)
#: `Set-Cookie: name=value; Path=/` and `document.cookie = "name=value; path=/"`: the first value.
_SET_COOKIE = re.compile(
    r"""(?i)(?:(?<![\w-])set-cookie\d?[ \t]*:[ \t]*|document\.cookie[ \t]*=[ \t]*\\?["'`])[^=\s;"'`]{1,256}="?(?P<v>[^;\s"'`\\]{1,4096})"""
)
_COOKIE_PAIR = re.compile(r"(?P<name>[^=;\s]{1,256})=(?P<v>[^;\s]{1,4096})")


def redact_cookies(text: str, lowered: str) -> str:
    cleaned = sub_from_starts(
        _SET_COOKIE, lambda m: _replace_group(m, "v", "cookie"), text, lowered
    )
    if cleaned != text:
        text, lowered = cleaned, lowered_again(text, lowered, cleaned)
    return sub_from_starts(_COOKIE_LIST, _cookie_list, text, lowered)


def _cookie_list(match: re.Match[str]) -> str:
    pairs = match.group("pairs")
    if "=" not in pairs:
        return match.group(0)  # `curl -b cookies.txt`: a file
    start = match.start("pairs") - match.start()
    cleaned = _COOKIE_PAIR.sub(lambda m: _replace_group(m, "v", "cookie"), pairs)
    return match.group(0)[:start] + cleaned


def _replace_group(match: re.Match[str], group: str, kind: str) -> str:
    value = match.group(group)
    if len(value) < 4 or already_redacted(value) or value[0] in "$%{<" or _setting(value):
        return match.group(0)
    start, end = match.start(group) - match.start(), match.end(group) - match.start()
    whole = match.group(0)
    return whole[:start] + mark(kind) + whole[end:]


#: A Netscape cookie jar line: domain, flag, path, secure, expiry, name, value (tab-separated).
_JAR_LINE = re.compile(
    r"(?m)^(?:#HttpOnly_)?[^\t\n#][^\t\n]*\t(?:TRUE|FALSE)\t[^\t\n]*\t(?:TRUE|FALSE)\t\d+\t[^\t\n]*\t(?P<v>[^\t\n\r]+)"
)


def redact_cookie_jar(text: str, lowered: str) -> str:
    return _JAR_LINE.sub(lambda m: _replace_group(m, "v", "cookie"), text)


HEADER_SHAPES = (
    Shape("authorization", ("authorization",), redact_authorization),
    Shape("api_header", tuple(VENDOR_HEADERS), redact_vendor_headers),
    Shape("cookie", ("cookie", "-b "), redact_cookies),
    Shape("cookie", ("\ttrue\t", "\tfalse\t"), redact_cookie_jar),
)
