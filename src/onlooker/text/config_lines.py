"""Secrets in configuration commands and files where the value follows its name after spaces:
`requirepass …` (Redis), `password …` (msmtp), `setenv NAME …`, `npm|yarn|aws config set NAME …`,
`composer|poetry config http-basic.<repo> <user> <password>`, `gh secret set N --body …`, a
password piped into a command that reads it (`echo '…' | docker login --password-stdin`), and a
quoted value after the word password (`with password "…"`).
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import re
from collections.abc import Callable

from ._shape import Shape, already_redacted, mark
from .folding import holds
from .literal_starts import (
    Started,
    line_starts,
    lowered_again,
    positions,
    searched,
    sub_from_starts,
    word_starts,
)
from .secret_names import NAME_WORDS, is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_VALUE = r"""(?:(?P<q>\\?["'])(?P<qv>[^"'\n\\]{1,256})(?P=q)|(?P<bv>[^\s"'\\|;&<>#]{1,256}))"""
#: A line that is a name and one value (perhaps after `set`, `setenv`, `export`, `set -gx`).
_DIRECTIVE = re.compile(
    rf"(?m)^[ \t]*(?:(?:set(?:env|x)?|export|declare)(?:[ \t]+-[a-zA-Z]+)*[ \t]+)?(?P<name>[A-Za-z_][\w.-]{{1,80}})[ \t]+{_VALUE}[ \t]*\r?$"
)
#: Directives whose value is a password even when it is one lowercase word.
DIRECTIVES = frozenset(
    {
        "requirepass",
        "masterauth",
        "password",
        "passwd",
        "auth_pass",
        "pass",
        "secret",
        "rpcpassword",
    }
)
#: Exim's plaintext authenticator: `client_send = : user : password`.
_EXIM_SEND = re.compile(r"client_send[ \t]*=[ \t]*:?[ \t]*[^:\n]*:[ \t]*(?P<bv>[^\s:]{3,256})")
#: A Postfix `sasl_passwd` line: `[host]:port user:password`.
_SASL_PASSWD = re.compile(
    r"(?m)\[(?<![^\n]\[)[\w.-]{1,253}\](?::\d{1,5})?[ \t]+[^\s:]{1,256}:(?P<bv>[^\s]{3,256})[ \t]*\r?$"
)
_CONFIG_SET = re.compile(
    rf"config(?<![\w-]config)(?:ure)?(?::set)?[ \t]+(?:set[ \t]+)?(?:--?[\w-]+[ \t]+)*(?P<n>\\?['\"]?)(?P<name>[^\s'\"=\\]{{1,200}})(?P=n)[ \t]+{_VALUE}",
    re.IGNORECASE,  # Redis's `CONFIG SET requirepass …`
)
_HTTP_BASIC = re.compile(
    rf"config(?<![\w-]config)[ \t]+(?:--?[\w-]+[ \t]+)*http-basic\.\S+[ \t]+\S+[ \t]+{_VALUE}"
)
_BUNDLE = re.compile(
    r"bundle(?<![\w-]bundle)[ \t]+config[ \t]+(?:set[ \t]+)?(?:--[\w-]+[ \t]+)*\S+[ \t]+[^\s:]{1,128}:(?P<bv>[^\s'\"]{3,256})"
)
_SECRET_STORE = re.compile(
    rf"(?:secrets?|kv)(?<![\w-]secret)(?<![\w-]secrets)(?<![\w-]kv)[ \t]+(?:set|add|create|put|update)\b[^\n|;]{{0,200}}?(?:--body|--value|--secret-string|--data|-b)(?:[ \t]+|=){_VALUE}"
)
#: `_SECRET_STORE` tried only where `secret` or `kv` starts (literal_starts.py).
_SECRET_STORES = Started(_SECRET_STORE, ("secret", "kv"))
_USER_SECRETS = re.compile(
    rf"user-secrets[ \t]+set[ \t]+\\?[\"']?[^\s\"'\\]+\\?[\"']?[ \t]+{_VALUE}"
)
#: `echo '…' | <command that reads a password>` (and `printf '%s\n' '…' | …`).
_PIPED = re.compile(
    rf"(?:echo(?<![\w-]echo)(?:[ \t]+-[neE]+)*|printf(?<![\w-]printf)[ \t]+(?:'[^'\n]*%s[^'\n]*'|\"[^\"\n]*%s[^\"\n]*\"))[ \t]+{_VALUE}[ \t]*\|[ \t]*(?P<reader>[^\n;|&]{{1,200}})"
)
_READS_PASSWORD = re.compile(
    r"(?:-S\b|--stdin|password-stdin|passwd|chpasswd|kinit|with-token|\blogin\b|\bsecrets?\b|saslpasswd|htpasswd|openssl|gpg|cryptsetup|vault)"
)
#: A quoted value after the word password (`with password "…"`, `-password 'x'`).
_QUOTED_AFTER = re.compile(
    r"(?i)pass(?<![\w-]pass)(?:word|wd|phrase)?[ \t]+(?P<q>\\?[\"'`])(?P<qv>[^\"'`\n\\]{3,256})(?P=q)"
)


def _value(match: re.Match[str]) -> tuple[str, str] | None:
    group = "qv" if match.groupdict().get("qv") is not None else "bv"
    value = match.group(group)
    if value is None or len(value) < 3 or already_redacted(value) or value[0] in "$%{<(":
        return None
    return group, value


def _replaced(match: re.Match[str], group: str, kind: str) -> str:
    whole, offset = match.group(0), match.start()
    return whole[: match.start(group) - offset] + mark(kind) + whole[match.end(group) - offset :]


#: Tried on the text after a newline: from each newline, not at every character as `^` is.
_DIRECTIVE_HINT = re.compile(
    r"\n[ \t]*(?:set(?:env|x)?[ \t]+|export[ \t]+|declare[ \t]+)?(?:-[a-zA-Z]+[ \t]+)*[A-Za-z_][\w.-]{0,80}(?:pass|pw|secret|token|key|cred|auth|sig|salt|pepper|pat|mnemonic|sk|masterauth|unseal)[\w.-]{0,40}[ \t]+[^\s]"
)


#: What the name in a `_DIRECTIVE_HINT` line holds, one at least (its keywords).
_HINT_WORDS = searched(
    "pass", "pw", "secret", "token", "key", "cred", "auth", "sig", "salt", "pepper", "pat",
    "mnemonic", "sk", "masterauth", "unseal",
)  # fmt: skip


def _directive_hinted(haystack: str) -> bool:
    """`_DIRECTIVE_HINT.search("\n" + haystack)`, tried only from the start of each line that
    holds one of its keywords (its match is one line, from its start, holding one)."""
    lines = "\n" + haystack
    return any(
        _DIRECTIVE_HINT.match(lines, start)  # in `lines`, `start` is the newline before the line
        for start in line_starts(haystack, word_starts(haystack, _HINT_WORDS))
    )


def redact_directives(text: str, lowered: str) -> str:
    if not _directive_hinted(lowered if len(lowered) == len(text) else text):
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        found = _value(match)
        if found is None or not (name.lower() in DIRECTIVES or is_secret_name(name)):
            return match.group(0)
        group, value = found
        plain = value.isalpha() and value.islower()
        if plain and group == "bv" and name.lower() not in DIRECTIVES:
            return match.group(0)
        return _replaced(match, group, "assignment")

    return _directive_sub(replace, text, lowered)


def _directive_sub(replace: Callable[[re.Match[str]], str], text: str, lowered: str) -> str:
    """`_DIRECTIVE.sub(replace, text)`, tried only at the start of lines holding NAME_WORDS:
    `replace` changes a value only after a secret name or a DIRECTIVES one, which hold one."""
    if len(lowered) != len(text):
        return _DIRECTIVE.sub(replace, text)
    pieces: list[str] = []
    done = 0
    for start in line_starts(lowered, word_starts(lowered, NAME_WORDS)):
        found = _DIRECTIVE.match(text, start)  # a match is one line, from its start
        if found is not None:
            pieces.append(text[done:start])
            pieces.append(replace(found))
            done = found.end()
    return "".join(pieces) + text[done:] if pieces else text


def redact_config_commands(text: str, lowered: str) -> str:
    def by_name(match: re.Match[str]) -> str:
        last = re.split(r"[:./]", match.group("name").strip("'\""))[-1]
        found = _value(match)
        if found is None or not is_secret_name(last):
            return match.group(0)
        return _replaced(match, found[0], "cli_secret")

    def any_value(match: re.Match[str]) -> str:
        found = _value(match)
        return _replaced(match, found[0], "cli_secret") if found else match.group(0)

    # each pattern tried only where its words start (sub_from_starts), in `lowered` kept equal
    # to `text.lower()`: words found once for all the patterns starting with them (`config`)
    for pattern, replace in (
        (_CONFIG_SET, by_name),
        (_HTTP_BASIC, any_value),
        (_BUNDLE, any_value),
    ):
        cleaned = sub_from_starts(pattern, replace, text, lowered)
        if cleaned is not text:
            text, lowered = cleaned, lowered_again(text, lowered, cleaned)
    cleaned = _SECRET_STORES.sub(any_value, text, lowered)
    if cleaned is not text:
        text, lowered = cleaned, lowered_again(text, lowered, cleaned)
    for pattern in (_USER_SECRETS, _SASL_PASSWD, _EXIM_SEND):
        cleaned = sub_from_starts(pattern, any_value, text, lowered)
        if cleaned is not text:
            text, lowered = cleaned, lowered_again(text, lowered, cleaned)
    return text


def redact_piped_passwords(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        found = _value(match)
        if found is None or not _READS_PASSWORD.search(match.group("reader")):
            return match.group(0)
        return _replaced(match, found[0], "cli_password")

    return sub_from_starts(_PIPED, replace, text, lowered)


#: `<command that reads a password> <<< '…'`: a here-string to `sudo -S`, `passwd --stdin`, ….
_HERE_STRING = re.compile(rf"<<<[ \t]*{_VALUE}")
_READER_START = re.compile(r"[\n;|&<>][^\n;|&<>]*\Z")


def redact_here_strings(text: str, lowered: str) -> str:
    """Found from each `<<<`; the command reading it is what precedes it since the line or the
    command started (up to 200 characters)."""
    pieces: list[str] = []
    done = 0
    for found in _HERE_STRING.finditer(text):
        if found.start() < done:
            continue
        window = text[max(done, found.start() - 200) : found.start()]
        start = _READER_START.search(window)
        reader = window[start.start() + 1 :] if start else window
        value = _value(found)
        if value is None or not reader.strip() or not _READS_PASSWORD.search(reader):
            continue
        pieces.append(text[done : found.start(value[0])] + mark("cli_password"))
        done = found.end(value[0])
    return "".join(pieces) + text[done:] if pieces else text


def redact_quoted_after_password(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        found = _value(match)
        return _replaced(match, found[0], "assignment") if found else match.group(0)

    return sub_from_starts(_QUOTED_AFTER, replace, text, lowered)


#: A line of an auth file listing users with their passwords (PgBouncer's `userlist.txt`):
#: `"user" "password"`, the password read as one (letters with digits or symbols) or a hash.
_USER_PASSWORD_LINE = re.compile(
    r'(?m)^[ \t]*"[\w.@+-]{1,64}"[ \t]+"(?P<bv>[^"\s\\]{8,256})"[ \t]*\r?$'
)


def _password_like(value: str) -> bool:
    """A password or its hash as an auth file keeps it: letters of both cases with digits, or
    with symbols; `md5` and 32 hex digits; `SCRAM-SHA-256$…` (not a bare hex digest, a word)."""
    if value.startswith("SCRAM-SHA-256$") or (value[:3] == "md5" and len(value) == 35):
        return True
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    return any(c.isalpha() for c in value) and ((cases and digits) or symbols)


def redact_user_password_lines(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group("bv")
        if already_redacted(value) or value[0] in "${<" or not _password_like(value):
            return match.group(0)
        return _replaced(match, "bv", "assignment")

    return _USER_PASSWORD_LINE.sub(replace, text)


#: A Redis ACL rule's password (`user alice on >pw ~* +@all`, `ACL SETUSER alice >pw`).
_REDIS_ACL = re.compile(
    r"(?im)^[ \t]*(?:acl[ \t]+setuser|user)[ \t]+\S+[ \t]+(?:[^\n>]*?[ \t])?>(?P<bv>[^\s]{3,256})"
)
#: A `user:password` pair after `auth` (HAProxy's `stats auth admin:pw`, `--auth user:pw`).
_AUTH_PAIR = re.compile(r"auth[ \t]+[^\s:=]{1,64}:(?P<bv>[^\s'\"]{3,256})")
#: An ftp script's `user NAME PASSWORD` line (`ftp -n host <<EOF`).
_FTP_USER = re.compile(r"(?m)[ \t]*user[ \t]+\S+[ \t]+(?P<bv>[^\s]{3,256})[ \t]*$")


def _user_lines(
    text: str, lowered: str, replace: Callable[[re.Match[str]], str], *, acl: bool, ftp: bool
) -> str:
    """`_REDIS_ACL` and `_FTP_USER` tried only at the starts of lines holding `user `."""
    pieces: list[str] = []
    done = 0
    seen = -1
    at = lowered.find("user ")
    while at >= 0:
        start = lowered.rfind("\n", 0, at) + 1
        if start > seen and start >= done:
            seen = start
            found = (_REDIS_ACL.match(text, start) if acl else None) or (
                _FTP_USER.match(text, start) if ftp else None
            )
            if found is not None:
                pieces.append(text[done:start] + replace(found))
                done = found.end()
        at = lowered.find("user ", at + 5)
    return "".join(pieces) + text[done:] if pieces else text


#: Words `redact_login_lines` asks for (known from the gate, not searched for again).
searched("ftp", "auth")


def redact_login_lines(text: str, lowered: str) -> str:
    def any_value(match: re.Match[str]) -> str:
        found = _value(match)
        return _replaced(match, found[0], "cli_password") if found else match.group(0)

    def auth_pair(match: re.Match[str]) -> str:
        before = text[max(0, match.start() - 6) : match.start()].lower()
        if before[-1:].isalnum() and not before.endswith(("basic", "basic-", "basic_")):
            return match.group(0)  # `oauth x:y`, not `auth` or `basic-auth`
        return any_value(match)

    acl = holds(text, (" >", "\t>"), ">")
    ftp = bool(positions(lowered, "ftp"))
    if acl or ftp:
        text = _user_lines(text, lowered, any_value, acl=acl, ftp=ftp)
    if positions(lowered, "auth"):
        text = _AUTH_PAIR.sub(auth_pair, text)
    return text


CONFIG_SHAPES = (
    Shape("cli_password", ("setuser", "user ", "auth ", "auth\t"), redact_login_lines),
    Shape("assignment", ('" "', '"\t"'), redact_user_password_lines),
    Shape(
        "cli_secret",
        ("config", "secret", "user-secrets", "kv ", "]:", "client_send"),
        redact_config_commands,
    ),
    Shape("cli_password", ("echo", "printf"), redact_piped_passwords),
    Shape("cli_password", ("<<<",), redact_here_strings),
    Shape("assignment", ("pass",), redact_quoted_after_password),
    Shape(
        "assignment",
        (
            "pass",
            "pw",
            "secret",
            "token",
            "key",
            "cred",
            "auth",
            "sig",
            "salt",
            "pepper",
            "pat",
            "mnemonic",
            "sk",
            "masterauth",
        ),
        redact_directives,
    ),
)


searched(*NAME_WORDS)
