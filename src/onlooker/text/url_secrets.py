"""Credentials inside URLs: query parameters whose names mean a credential (`sig`, `code`,
`appid`, `X-Amz-Signature`, `access_token`), a random user name standing for a key
(`https://<key>@o1.ingest.sentry.io`), and capability URLs whose path is the secret: private
calendar feeds and webhook URLs (`/hooks/<token>`, `/private-<hex>/basic.ics`).
"""

from __future__ import annotations

import re

from ._shape import Shape, already_redacted, keywords_first, mark
from .literal_starts import sub_from_starts
from .secret_names import is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_QUERY = re.compile(r"[?&;](?P<name>[A-Za-z][\w.\-]{0,60})=(?P<v>[^&#\s\"'`<>\\]{4,2048})")
#: Names that mean a credential in a URL's query, though not in code (`code=` of Azure Functions
#: and OAuth callbacks, `appid=` of weather APIs, `key=` of map APIs).
QUERY_NAMES = frozenset({
    "code", "appid", "app_id", "key", "apikey", "api_key", "sig", "signature", "x-amz-signature",
    "x-goog-signature", "share", "hash", "hmac", "client_secret", "private_token", "s", "k",
    "authkey", "auth_key", "license", "licensekey", "subscription-key", "sv_sig", "security_token",
    "jsessionid", "phpsessid", "sessionid", "session_id", "sid",
})  # fmt: skip


def redact_query(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("v")
        plain = name.lower()
        if plain not in QUERY_NAMES and not is_secret_name(name):
            return match.group(0)
        if (
            already_redacted(value)
            or value[0] in "${<%"
            or not _credential(value, strong=plain not in QUERY_NAMES)
        ):
            return match.group(0)
        return match.group(0)[: match.start("v") - match.start()] + mark("url_credential")

    return sub_from_starts(_QUERY, replace, text, lowered)  # from each `?`, `&` and `;`


def _credential(value: str, *, strong: bool) -> bool:
    """A value, not a word: long and random-looking (a name meaning a secret asks for less)."""
    if strong:
        return len(value) >= 6
    digits = any(c.isdigit() for c in value)
    letters = any(c.isalpha() for c in value)
    return len(value) >= 20 or (len(value) >= 8 and digits and letters)


#: A URL's path: from its host on, up to where it ends.
_URL = re.compile(
    keywords_first(
        r"(?i)\b(?:https?|webcal|wss?)://(?P<host>[^/\s\"'`<>?#]{1,253})(?P<path>/[^\s\"'`<>?#]{0,2048})"
    )
)
#: Path segments after which every random-looking segment is the secret of a capability URL.
CAPABILITY_MARKERS = frozenset({
    "hooks", "hook", "webhook", "webhooks", "catch", "key", "keys", "published", "private",
    "invoke", "ical", "ics", "feed", "feeds", "calendar", "incomingwebhook", "services",
    # one-time links: invitations, password resets, magic sign-in links, confirmations
    "invite", "invites", "invitation", "invitations", "reset", "reset-password", "password-reset",
    "reset_password", "magic", "magic-link", "verify", "confirm", "activate",
})  # fmt: skip
_SEGMENT = re.compile(r"[^/]+")
_PRIVATE_SEGMENT = re.compile(r"private-([0-9a-fA-F]{16,})")


def redact_capability_urls(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        host, path = match.group("host").lower(), match.group("path")
        hook_host = host.startswith(("hook.", "hooks.")) or ".webhook." in host
        calendar = path.lower().endswith((".ics", ".ical")) or (
            host.startswith("p") and "icloud.com" in host
        )
        pieces: list[str] = []
        done = 0
        marked = hook_host or calendar
        for segment in _SEGMENT.finditer(path):
            word = segment.group(0)
            private = _PRIVATE_SEGMENT.fullmatch(word)
            if private or (marked and _random_segment(word)):
                start = segment.start() + (private.start(1) if private else 0)
                stem = word.rsplit(".", 1)[0] if word.lower().endswith((".ics", ".ical")) else word
                end = segment.start() + (private.end(1) if private else len(stem))
                if end - start >= 6:
                    pieces.append(path[done:start] + mark("capability_url"))
                    done = end
            elif word.lower() in CAPABILITY_MARKERS:
                marked = True
        if not pieces:
            return match.group(0)
        return match.group(0)[: match.start("path") - match.start()] + "".join(pieces) + path[done:]

    return sub_from_starts(_URL, replace, text, lowered)


def _random_segment(word: str) -> bool:
    """A path segment that reads as a token: long, or letters mixed with digits."""
    if already_redacted(word) or word.isdigit():
        return False
    stem = word.rsplit(".", 1)[0] if "." in word[-6:] else word
    letters = sum(c.isalpha() for c in stem)
    digits = sum(c.isdigit() for c in stem)
    if "@" in stem:
        return False  # an address that names the calendar
    return len(stem) >= 20 or (len(stem) >= 6 and letters > 0 and digits > 0)


#: `scheme://<user>@host`, no password: a user name that is a key (Sentry DSNs, tokens as users).
_TOKEN_USER = re.compile(
    keywords_first(r"(?i)\b(?:https?|git|ssh)://(?P<v>[A-Za-z0-9_\-]{16,256})@[A-Za-z0-9.-]+")
)


def redact_token_users(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group("v")
        if not _credential(value, strong=False) or not any(c.isdigit() for c in value):
            return match.group(0)
        return match.group(0).replace(value, mark("url_credential"), 1)

    return sub_from_starts(_TOKEN_USER, replace, text, lowered)


URL_SHAPES = (
    Shape("url_credential", ("=",), redact_query),
    Shape("capability_url", ("://",), redact_capability_urls),
    Shape("url_credential", ("://",), redact_token_users),
)
