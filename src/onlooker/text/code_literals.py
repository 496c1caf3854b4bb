"""Secrets written into code as literals where no `name = value` says so: the default of a
secret-named environment lookup (`os.getenv("DB_PASS", "…")`, `process.env.X || '…'`,
`${X:-…}`), SQL that sets a password (`ALTER USER … PASSWORD '…'`, `IDENTIFIED BY …`), the
secret argument of calls that take one by position (`jwt.sign(p, '…')`, `hmac.new(b'…')`,
`HTTPBasicAuth(u, '…')`), name/value pairs (`- name: DB_PASSWORD` / `value: …`), and
Terraform's sensitive values.
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import functools
import re

from ._shape import Shape, already_redacted, mark
from .folding import holds
from .literal_starts import Started, lowered_again, positions, searched, sub_from_starts
from .secret_names import is_secret_name, name_words

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_LITERAL = r"""(?:[bfrBFRN]{0,2}(?P<q>["'`])(?P<v>[^"'`\n]{1,512})(?P=q))"""

#: `getenv("NAME", "default")`, `environ.get`, `ENV.fetch("NAME") { "default" }`, `process.env.NAME || "…"`.
_ENV_DEFAULT = re.compile(
    r"""(?:(?:getenv|environ\.get|env\.get|getEnv|GetEnv|env|ENV\.fetch|Getenv|getenv_or|env_or|config|define)\(\s*["'](?P<name>[\w.-]{1,100})["']\s*(?:,\s*|\)\s*\{\s*)"""
    r"""|process\.env(?:\.(?P<name2>\w{1,100})|\[["'](?P<name3>[\w.-]{1,100})["']\])\s*(?:\|\||\?\?)\s*)"""
    + _LITERAL
)
#: `_ENV_DEFAULT` tried only where a call's name or `process.env` starts (literal_starts.py).
_ENV_DEFAULT_STARTS = Started(
    _ENV_DEFAULT,
    ("getenv", "getEnv", "GetEnv", "Getenv", "environ.get", "env", "ENV.fetch", "config", "define",
     "process.env"),
)  # fmt: skip
#: What `_ENV_DEFAULT` cannot match without (lowercase): a call's name and its `(`, or `process.env`.
_ENV_CALLS = searched(
    "env(",
    "env.get(",
    "environ.get(",
    "env.fetch(",
    "env_or(",
    "config(",
    "define(",
    "process.env",
)
#: `${NAME:-default}`, `${NAME:=default}`, Spring's `${NAME:default}`.
_SHELL_DEFAULT = re.compile(r"\$\{(?P<name>[A-Za-z_][\w.-]{0,100}):[-=]?(?P<v>[^}\s$]{1,256})\}")


def redact_env_defaults(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = (
            match.group("name")
            or match.groupdict().get("name2")
            or match.groupdict().get("name3")
            or ""
        )
        value = match.group("v")
        if not is_secret_name(name) or not _literal(value):
            return match.group(0)
        return _replaced(match, "v", "code_literal")

    if any(positions(lowered, call) for call in _ENV_CALLS):
        text = _ENV_DEFAULT_STARTS.sub(replace, text)
    return _SHELL_DEFAULT.sub(replace, text) if holds(text, ("${",), "$") else text


_SQL = re.compile(
    r"""(?i)\b(?:(?:with|login|encrypted|unencrypted)\s+password|(?:alter|create)\s+(?:user|role|login)\s+[^\s;]{1,128}\s+(?:with\s+)?password"""
    r"""|set\s+password(?:\s+for\s+[^\s=;]{1,128})?|identified(?:\s+with\s+\w{1,64})?\s+by(?:\s+password)?)\s*=?\s*"""
    r"""(?:N?'(?P<q1>[^'\n]{1,256})'|"(?P<q2>[^"\n]{1,256})"|(?P<bare>(?!(?:password|values|null|default)\b)[A-Za-z0-9_!@#%^*+.-]{3,128})(?![\w(]))"""
)


def redact_sql(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        group = next(g for g in ("q1", "q2", "bare") if match.group(g) is not None)
        if not _literal(match.group(group)):
            return match.group(0)
        return _replaced(match, group, "sql_password")

    return sub_from_starts(_SQL, replace, text, lowered)


#: Calls that take a secret by position: (a lowercase needle, the call's name, the secret's index).
POSITIONAL = (
    ("jwt.", r"jwt\.(?:encode|sign|decode|verify)", 1), ("hmac", r"hmac\.new", 0),
    ("hmac", r"(?:HMAC|Hmac)(?:SHA\d+)?", 0), ("fernet", r"Fernet", 0), ("wallet", r"Wallet", 0),
    ("auth", r"(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth)", 1), (".login", r"\.login", 1),
    ("auth", r"auth\s*=\s*", 1), ("client(", r"Client", 1), ("twilio", r"Twilio", 1),
    ("stripe", r"(?:StripeClient|Stripe)", 0), ("connect", r"(?:pymysql|MySQLdb|mysql\.connector)\.connect", 2),
    ("createhmac", r"createHmac(?=\(\s*['\"]sha\d+['\"]\s*,)", 1), ("secretkeyspec", r"SecretKeySpec", 0),
    ("cookie", r"(?:cookies\.(?:set|add)|set_cookie|setCookie)", 1),
    # (user, password) by position: JDBC, .NET and Java credentials, Go's SMTP auth, ftplib, LDAP
    ("getconnection(", r"getConnection", 2), ("ftp(", r"FTP", 2), ("ftp_tls(", r"FTP_TLS", 2),
    ("networkcredential(", r"NetworkCredential", 1), ("passwordcredentials(", r"UsernamePasswordCredentials", 1),
    ("passwordauthentication", r"(?:PasswordAuthentication|UsernamePasswordAuthenticationToken)", 1),
    ("plainauth(", r"PlainAuth", 2), ("simple_bind", r"simple_bind(?:_s)?", 1),
    ("mysqli_connect(", r"mysqli_connect", 2), ("pdo(", r"new\s+PDO", 2), ("basic_auth(", r"basic_auth", 1),
    ("ldap_bind(", r"ldap_bind", 2),
)  # fmt: skip
_CALLS = tuple(
    (needle, re.compile(rf"{name}\s*\((?P<args>[^()\n]{{1,400}})\)"), index)
    for needle, name, index in POSITIONAL
)
_ARG = re.compile(
    r"""\s*(?:(?:[bfrBFR]{0,2}(?P<q>["'])(?P<v>[^"'\n]{0,512})(?P=q))|(?P<other>[^,]*))\s*(?:,|$)"""
)


#: The needles of the calls, searched for once per text (and known absent from the needle gate).
_CALL_NEEDLES = searched(*dict.fromkeys(needle for needle, _, _ in POSITIONAL))


def redact_positional(text: str, lowered: str) -> str:
    for needle, call, index in _CALLS:
        if positions(lowered, needle):
            replace = functools.partial(_positional, index=index)
            cleaned = sub_from_starts(call, replace, text, lowered)
            if cleaned != text:
                text, lowered = cleaned, lowered_again(text, lowered, cleaned)
    return text


#: Keys made to be public (Stripe's and Clerk's publishable keys).
_PUBLISHABLE = ("pk_live_", "pk_test_")


def _positional(match: re.Match[str], *, index: int) -> str:
    args = list(_ARG.finditer(match.group("args")))
    if index >= len(args) or args[index].group("v") is None:
        return match.group(0)
    value = args[index].group("v")
    if not _literal(value) or len(value) < 6 or value.startswith(_PUBLISHABLE):
        return match.group(0)
    offset = match.start("args") - match.start() + args[index].start("v")
    whole = match.group(0)
    return whole[:offset] + mark("code_literal") + whole[offset + len(value) :]


#: A secret set through a setter or an option named for it: `setPassword("…")`,
#: `.setApiKey("…")`, `curl_setopt($ch, CURLOPT_USERPWD, "user:…")`, `:basic, 'user', '…'`.
_SETTER = re.compile(r"""\.set_?(?P<name>[A-Za-z][A-Za-z0-9_]{1,60})\(\s*""" + _LITERAL + r"\s*\)")
_CURL_OPTION = re.compile(
    r"""CURLOPT_(?:PROXY)?(?:USERPWD|PASSWORD|KEYPASSWD|XOAUTH2_BEARER)\s*,\s*(?P<q>["'])(?:[^"':\n]{1,128}:)?(?P<v>[^"'\n]{1,512})(?P=q)"""
)
_BASIC = re.compile(
    r""":basic\s*,\s*(?P<q>["'])[^"'\n]{1,128}(?P=q)\s*,\s*(?P<q2>["'])(?P<v>[^"'\n]{1,512})(?P=q2)"""
)
#: `#define API_KEY "…"`: a C preprocessor constant under a secret's name.
_DEFINE = re.compile(
    r'#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w{0,100})[ \t]+(?:L|u8)?"(?P<v>[^"\n]{1,512})"'
)


def redact_setters(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.groupdict().get("name")
        if (name is not None and not is_secret_name(name)) or not _literal(match.group("v")):
            return match.group(0)
        return _replaced(match, "v", "code_literal")

    for needle, pattern in ((".set", _SETTER), ("curlopt_", _CURL_OPTION), (":basic", _BASIC),
                            ("define", _DEFINE)):  # fmt: skip
        if needle in lowered:
            text = pattern.sub(replace, text)
    return text


#: A `name`/`key` field that names a secret and the `value` field after it (Kubernetes env
#: lists, ECS task definitions, CI variables, NuGet's `<add key="Password" value="…"/>`), found
#: from each `value` (rarer than `name` and `key`) by looking back for the name.
_VALUE_FIELD = re.compile(
    r"""value(?<![\w-]value)\\?["']?\s*[:=]\s*(?:(?P<esc>\\?)(?P<q>["'])(?P<qv>[^"'\n\\]{1,512})(?P=esc)(?P=q)|(?P<bv>[^\s"',}{]{1,512}))"""
)
_NAME_FIELD = re.compile(
    r"""(?:name|key)\\?["']?\s*[:=]\s*\\?["']?(?P<name>[A-Za-z_][\w.:-]{1,100})\\?["']?"""
)
LOOK_BACK = 160


def redact_name_values(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        group = "qv" if match.group("qv") is not None else "bv"
        value = match.group(group)
        if not _literal(value):
            return match.group(0)
        window = text[max(0, match.start() - LOOK_BACK) : match.start()]
        if "{" in window:
            window = window[window.rfind("{") :]
        names = [m.group("name") for m in _NAME_FIELD.finditer(window)]
        if not names or "valueFrom" in window[-40:]:
            return match.group(0)
        cookie = '"domain"' in text[max(0, match.start() - 200) : match.end() + 200]
        if not (cookie or is_secret_name(names[-1]) or session_cookie_name(names[-1])):
            return match.group(0)
        return _replaced(match, group, "assignment")

    return _VALUE_FIELD.sub(replace, text)


_SENSITIVE = re.compile(r"""\\?"sensitive\\?"\s*:\s*true""")
_VALUE = re.compile(r"""\\?"value\\?"\s*:\s*\\?"(?P<v>[^"\\\n]{1,2048})\\?\"""")


#: The last word of a session cookie's name (`laravel_session`, `PHPSESSID`, `connect.sid`): a
#: name/value pair under one is a cookie (a HAR entry, a browser's export), whatever its domain.
_SESSION_WORDS = frozenset({"session", "sess", "sid", "sessid", "sessionid", "jsessionid"})


def session_cookie_name(name: str) -> bool:
    words = name_words(name)
    return bool(words) and (words[-1] in _SESSION_WORDS or words[-1].endswith("sessid"))


def redact_sensitive_values(text: str, lowered: str) -> str:
    """Terraform's `"value": "…"` in the same object as `"sensitive": true`."""
    spans: list[tuple[int, int]] = []
    for flag in _SENSITIVE.finditer(text):
        start = max(text.rfind("{", 0, flag.start()), 0)
        end = text.find("}", flag.end())
        end = len(text) if end < 0 else end
        for value in _VALUE.finditer(text, start, end):
            if not already_redacted(value.group("v")):
                spans.append(value.span("v"))
    if not spans:
        return text
    pieces, done = [], 0
    for start, stop in sorted(set(spans)):
        if start >= done:
            pieces.append(text[done:start] + mark("sensitive_value"))
            done = stop
    return "".join(pieces) + text[done:]


def _literal(value: str) -> bool:
    stripped = value.strip()
    if len(stripped) < 3 or already_redacted(stripped) or len(set(stripped)) == 1:
        return False
    if stripped[0] in "$%{<:" or stripped.lower() in (
        "none",
        "null",
        "undefined",
        "changeme?",
        "true",
        "false",
    ):
        return False
    return not (
        stripped.startswith(("/", "./", "~/")) and " " not in stripped and stripped.count("/") > 1
    )


def _replaced(match: re.Match[str], group: str, kind: str) -> str:
    whole, offset = match.group(0), match.start()
    start, end = match.start(group) - offset, match.end(group) - offset
    return whole[:start] + mark(kind) + whole[end:]


CODE_SHAPES = (
    Shape(
        "code_literal",
        ("getenv", "environ", "env.", "env(", "env[", "fetch(", "${", "config(", "define("),
        redact_env_defaults,
    ),
    Shape("sql_password", ("password", "identified"), redact_sql),
    Shape("code_literal", tuple({needle for needle, _, _ in POSITIONAL}), redact_positional),
    Shape("assignment", ("value",), redact_name_values),
    Shape("code_literal", (".set", "curlopt_", ":basic", "#define", "# define"), redact_setters),
    Shape("sensitive_value", ('"sensitive', '\\"sensitive'), redact_sensitive_values),
)
