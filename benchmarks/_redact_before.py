"""The redaction module as it was before the secrets corpus (kept for bench_redact only).

Frozen copy: benchmarks/bench_redact.py measures it beside onlooker.text.redact in one run.
"""

# ruff: noqa: E501 - each secret shape reads best as one pattern on one line
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)
PRIVATE_MARK = "[private]"

_KEYWORDS = (
    r"password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|client[_-]?secret|auth[_-]?token|credentials?|session[_-]?key|signing[_-]?key"
)

#: (kind, pattern, group to replace: 0 for the whole match)
SECRET_SHAPES: tuple[tuple[str, str, int], ...] = (
    ("private_key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", 0),
    ("anthropic_key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}", 0),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b", 0),
    ("aws_secret_key", r"(?i)\baws_?secret_?access_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})", 1),
    ("github_token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", 0),
    ("github_pat", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", 0),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_-]{20,}\b", 0),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b", 0),
    ("slack_webhook", r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+", 0),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", 0),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}\b", 0),
    ("google_oauth_secret", r"\bGOCSPX-[A-Za-z0-9_-]{20,}\b", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{40,}", 0),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b", 0),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}", 0),
    ("mailgun_key", r"\bkey-[0-9a-zA-Z]{32}\b", 0),
    ("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", 0),
    ("azure_storage_key", r"(?i)\bAccountKey=([A-Za-z0-9+/=]{40,})", 1),
    ("databricks_token", r"\bdapi[0-9a-f]{32}\b", 0),
    ("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", 0),
    ("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", 0),
    ("square_token", r"\b(?:sq0atp|sq0csp)-[0-9A-Za-z_-]{22,}\b", 0),
    ("discord_token", r"\b[MN][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,}", 0),
    ("telegram_token", r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}\b", 0),
    ("groq_key", r"\bgsk_[A-Za-z0-9]{40,}\b", 0),
    ("xai_key", r"\bxai-[A-Za-z0-9]{40,}\b", 0),
    ("replicate_token", r"\br8_[A-Za-z0-9]{30,}\b", 0),
    ("perplexity_key", r"\bpplx-[A-Za-z0-9]{40,}\b", 0),
    ("linear_key", r"\blin_api_[A-Za-z0-9]{32,}\b", 0),
    ("resend_key", r"\bre_[A-Za-z0-9]{8,}_[A-Za-z0-9]{16,}\b", 0),
    ("bearer", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})", 1),
    ("basic_auth", r"(?i)\bbasic\s+([A-Za-z0-9+/]{16,}={0,2})", 1),
    ("url_password", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@", 1),
    ("cli_secret", rf"(?i)--(?:{_KEYWORDS})[= ]+([^\s\"']+)", 1),
    ("assignment", rf"(?i)\b[A-Z0-9_.-]*(?:{_KEYWORDS})[A-Z0-9_]*[\"']?\s*[:=]\s*[\"']?([^\s\"',;}}]{{6,}})", 1),
)  # fmt: skip

#: Where a keyword of `assignment` and `cli_secret` can start.
_KEYWORD_STARTS = ("pass", "pwd", "secret", "token", "api", "access", "private", "client",
                   "auth", "credential", "session", "signing")  # fmt: skip

#: Cheap tests that must pass before a shape's pattern runs: lowercase substrings looked up in the
#: lowercased text (any one suffices). Most text holds no secret, so most patterns never run.
NEEDLES: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",), "anthropic_key": ("sk-ant-",), "openai_key": ("sk-",),
    "aws_access_key_id": ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
    "aws_secret_key": ("awssecret", "aws_secret"), "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github_pat": ("github_pat_",), "gitlab_token": ("glpat-",), "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",), "stripe_key": ("_live_", "_test_"),
    "google_api_key": ("aiza",), "google_oauth_secret": ("gocspx-",), "jwt": ("eyj",),
    "npm_token": ("npm_",), "pypi_token": ("pypi-age",), "huggingface_token": ("hf_",),
    "sendgrid_key": ("sg.",), "mailgun_key": ("key-",), "twilio_key": ("sk",),
    "azure_storage_key": ("accountkey=",), "databricks_token": ("dapi",),
    "digitalocean_token": ("_v1_",), "shopify_token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "square_token": ("sq0atp-", "sq0csp-"), "discord_token": (".",), "telegram_token": (":aa",),
    "groq_key": ("gsk_",), "xai_key": ("xai-",), "replicate_token": ("r8_",),
    "perplexity_key": ("pplx-",), "linear_key": ("lin_api_",), "resend_key": ("re_",),
    "bearer": ("bearer",), "basic_auth": ("basic",), "url_password": ("://",), "cli_secret": tuple(f"--{k}" for k in _KEYWORD_STARTS),
    "assignment": ("pass", "pwd", "secret", "token", "key", "credential"),
}  # fmt: skip

#: A second, fast pattern that must match first, for shapes whose needles are common.
_HINTS: dict[str, re.Pattern[str]] = {
    "discord_token": re.compile(r"\.[\w-]{6}\.[\w-]{27}"),
    "url_password": re.compile(r"://[^\s:/@]+:[^\s@/]+@"),
}
_WORD_LITERAL = re.compile(r"^\\b([A-Za-z0-9_][A-Za-z0-9_-]*)(?![*+?{])")


def _literal_first(pattern: str) -> str:
    """`\\bsk-…` as `sk-(?<!\\wsk-)…`: the same matches, but the regex engine can jump straight to
    the literal instead of trying every position (some 100× faster on long text)."""
    found = _WORD_LITERAL.match(pattern)
    if not found:
        return pattern
    literal = found.group(1)
    return f"{literal}(?<!\\w{literal}){pattern[found.end() :]}"


_COMPILED = tuple(
    (kind, re.compile(_literal_first(pattern), re.DOTALL), group)
    for kind, pattern, group in SECRET_SHAPES
)
_PLACEHOLDER = re.compile(r"^\[REDACTED:[a-z_]+\]$")


def redact(text: str) -> str:
    """`text` with secrets replaced by `[REDACTED:<kind>]` and private spans dropped."""
    if "<private" in text or "<PRIVATE" in text:
        text = PRIVATE.sub(PRIVATE_MARK, text)
    lowered = text.lower()
    candidates = _candidates(lowered)
    for kind, pattern, group in _COMPILED:
        if kind not in candidates:
            continue
        hint = _HINTS.get(kind)
        if hint is not None and hint.search(text) is None:
            continue
        if kind == "assignment" and len(lowered) == len(text):
            cleaned = _redact_assignments(text, lowered)
        elif kind == "url_password":
            cleaned = _redact_url_passwords(text, pattern)
        elif group == 0:
            cleaned = pattern.sub(f"[REDACTED:{kind}]", text)
        else:
            cleaned = pattern.sub(_group_replacer(group, kind), text)
        if cleaned != text:
            text, lowered = cleaned, cleaned.lower()
            candidates = _candidates(lowered)
    return text


#: needle -> the kinds of every needle it starts with (its own included)
_NEEDLE_KINDS: dict[str, frozenset[str]] = {
    needle: frozenset(
        kind for kind, others in NEEDLES.items() for other in others if needle.startswith(other)
    )
    for needles in NEEDLES.values()
    for needle in needles
}
#: Every needle at every position (a lookahead lets them overlap), longest first.
_ANY_NEEDLE = re.compile(
    "(?=(" + "|".join(map(re.escape, sorted(_NEEDLE_KINDS, key=len, reverse=True))) + "))"
)
#: Above this length one `in` per needle beats one regex pass over every position.
_SCAN_LIMIT = 4096


def _candidates(lowered: str) -> set[str]:
    """Kinds whose needles occur in `lowered`."""
    if len(lowered) > _SCAN_LIMIT:
        return {kind for kind, needles in NEEDLES.items() if any(n in lowered for n in needles)}
    found: set[str] = set()
    for needle in {match.group(1) for match in _ANY_NEEDLE.finditer(lowered)}:
        found |= _NEEDLE_KINDS[needle]
    return found


#: `assignment` without its leading `\\b[A-Z0-9_.-]*`, tried only where a keyword starts: a
#: case-insensitive pattern with a free prefix would otherwise be tried at every position.
_ASSIGNMENT_AT = re.compile(SECRET_SHAPES[-1][1].replace(r"\b[A-Z0-9_.-]*", "", 1), re.DOTALL)


def _redact_assignments(text: str, lowered: str) -> str:
    """The `assignment` shape, matched at each keyword found in `lowered` (same length as text)."""
    starts: set[int] = set()
    for keyword in _KEYWORD_STARTS:
        at = lowered.find(keyword)
        while at != -1:
            starts.add(at)
            at = lowered.find(keyword, at + 1)
    pieces: list[str] = []
    done = 0
    for start in sorted(starts):
        if start < done:
            continue
        match = _ASSIGNMENT_AT.match(text, start)
        if match is None:
            continue
        pieces.append(text[done : match.start()])
        pieces.append(_replace_group(match, 1, "assignment"))
        done = match.end()
    return "".join(pieces) + text[done:] if pieces else text


#: `url_password` after its `://`: the user, `:`, the password (group 1) and `@`.
_URL_TAIL = re.compile(r"[^\s:/@]+:([^\s@/]+)@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")
_WORD_CHAR = re.compile(r"\w")


def _redact_url_passwords(text: str, pattern: re.Pattern[str]) -> str:
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
        pieces.append(_replace_group(match, 1, "url_password"))
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


def _group_replacer(group: int, kind: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return _replace_group(match, group, kind)

    return replace


def _replace_group(match: re.Match[str], group: int, kind: str) -> str:
    value = match.group(group)
    if value is None or _PLACEHOLDER.match(value) or value.startswith("[REDACTED:"):
        return match.group(0)
    start, end = match.span(group)
    whole = match.group(0)
    offset = match.start(0)
    return f"{whole[: start - offset]}[REDACTED:{kind}]{whole[end - offset :]}"


def redact_value(value: Any) -> Any:
    """Redact every string inside JSON-like data (dict keys stay as they are)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    if isinstance(value, tuple):
        return tuple(redact_value(item) for item in value)
    return value


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
