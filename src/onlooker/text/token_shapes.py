"""Secrets recognisable by their own shape: provider keys and tokens (`sk-…`, `ghp_…`, `whsec_…`,
`hvs.…`), private keys, JWTs, and passwords inside URLs, each with the needles that gate it.
"""

# ruff: noqa: E501 - each secret shape reads best as one pattern on one line
from __future__ import annotations

import re
from typing import Protocol

from ._shape import keywords_first

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: (kind, pattern, group to replace: 0 for the whole match), tried in this order.
TOKEN_SHAPES: tuple[tuple[str, str, int], ...] = (
    ("private_key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", 0),
    ("age_secret_key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", 0),
    ("anthropic_key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}", 0),
    ("mapbox_secret", r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", 0),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}", 0),
    ("aws_access_key_id", r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)(?<![A-Za-z0-9_]....)[A-Z0-9]{16}\b", 0),
    ("aws_secret_key", r"(?i)\baws_?secret_?access_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})", 1),
    ("github_token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", 0),
    ("github_pat", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", 0),
    ("gitlab_token", r"\bgl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}", 0),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}\b", 0),
    ("slack_app_token", r"\bxapp-\d-[A-Za-z0-9-]{10,}\b", 0),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9]+/[A-Za-z0-9/]+", 0),
    ("discord_webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{30,})", 1),
    ("teams_webhook", r"https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,}", 0),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", 0),
    ("webhook_secret", r"\bwhsec_[A-Za-z0-9+/=]{20,}", 0),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}\b", 0),
    ("google_oauth_secret", r"\bGOCSPX-[A-Za-z0-9_-]{20,}\b", 0),
    ("google_oauth_token", r"\bya29\.[A-Za-z0-9_-]{20,}", 0),
    ("firebase_server_key", r"\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{100,}", 0),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", 0),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{40,}", 0),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b", 0),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}", 0),
    ("mailgun_key", r"\bkey-[0-9a-zA-Z]{32}\b", 0),
    ("mailchimp_key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", 0),
    ("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", 0),
    ("azure_storage_key", r"(?i)\bAccountKey=([A-Za-z0-9+/=]{40,})", 1),
    ("azure_sas", r"[?&;]sig=([A-Za-z0-9%+/=_-]{16,})", 1),
    ("azure_client_secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[78]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", 0),
    ("databricks_token", r"\bdapi[0-9a-f]{32}(?:-\d)?\b", 0),
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
    ("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", 0),
    ("vault_legacy_token", r"\bs\.(?=[A-Za-z0-9]{0,23}[0-9])(?=[A-Za-z0-9]{0,23}[A-Z])(?=[A-Za-z0-9]{0,23}[a-z])[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])", 0),
    ("artifactory_token", r"\bAKCp[A-Za-z0-9]{60,}\b", 0),
    ("atlassian_token", r"\bATATT3[A-Za-z0-9_=-]{100,}", 0),
    ("postman_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", 0),
    ("doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}", 0),
    ("pulumi_token", r"\bpul-[a-f0-9]{40}\b", 0),
    ("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", 0),
    ("sentry_token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}", 0),
    ("newrelic_key", r"\bNRAK-[A-Z0-9]{27}\b", 0),
    ("grafana_token", r"\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,})", 0),
    ("supabase_token", r"\bsbp_[a-f0-9]{40}\b", 0),
    ("tailscale_key", r"\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]+", 0),
    ("dropbox_token", r"\bsl\.[A-Za-z0-9_-]{130,}", 0),
    ("bearer", r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})", 1),
    ("basic_auth", r"(?i)\bbasic\s+([A-Za-z0-9+/]{16,}={0,2})", 1),
    ("url_password", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s@/]+)@", 1),
)  # fmt: skip

#: Cheap tests that must pass before a shape's pattern runs: lowercase substrings looked up in the
#: lowercased text (any one suffices). Most text holds no secret, so most patterns never run.
TOKEN_NEEDLES: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",), "age_secret_key": ("age-secret-key-",),
    "anthropic_key": ("sk-ant-",), "mapbox_secret": ("sk.eyj",), "openai_key": ("sk-",),
    "aws_access_key_id": ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
    "aws_secret_key": ("awssecret", "aws_secret"), "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github_pat": ("github_pat_",),
    "gitlab_token": ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glft-", "glimt-", "glagent-"),
    "slack_token": ("xox",), "slack_app_token": ("xapp-",), "slack_webhook": ("hooks.slack.com",),
    "discord_webhook": ("/api/webhooks/",), "teams_webhook": (".webhook.office.com",),
    "stripe_key": ("_live_", "_test_"), "webhook_secret": ("whsec_",),
    "google_api_key": ("aiza",), "google_oauth_secret": ("gocspx-",), "google_oauth_token": ("ya29.",),
    "firebase_server_key": ("aaaa",), "jwt": ("eyj",),
    "npm_token": ("npm_",), "pypi_token": ("pypi-age",), "huggingface_token": ("hf_",),
    "sendgrid_key": ("sg.",), "mailgun_key": ("key-",), "mailchimp_key": ("-us",), "twilio_key": ("sk",),
    "azure_storage_key": ("accountkey=",), "azure_sas": ("sig=",), "azure_client_secret": ("q~",),
    "databricks_token": ("dapi",), "digitalocean_token": ("_v1_",),
    "shopify_token": ("shpat_", "shpca_", "shppa_", "shpss_"), "square_token": ("sq0atp-", "sq0csp-"),
    "discord_token": (".",), "telegram_token": (":aa",), "groq_key": ("gsk_",), "xai_key": ("xai-",),
    "replicate_token": ("r8_",), "perplexity_key": ("pplx-",), "linear_key": ("lin_api_",),
    "resend_key": ("re_",), "vault_token": ("hvs.", "hvb.", "hvr."), "vault_legacy_token": ("s.",),
    "artifactory_token": ("akcp",), "atlassian_token": ("atatt3",), "postman_key": ("pmak-",),
    "doppler_token": ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
    "pulumi_token": ("pul-",), "terraform_token": (".atlasv1.",), "sentry_token": ("sntrys_", "sntryu_"),
    "newrelic_key": ("nrak-",), "grafana_token": ("glsa_", "glc_"), "supabase_token": ("sbp_",),
    "tailscale_key": ("tskey-",), "dropbox_token": ("sl.",),
    "bearer": ("bearer",), "basic_auth": ("basic",), "url_password": ("://",),
}  # fmt: skip


class Hint(Protocol):
    """What a shape's hint is: anything whose `search` of a text is truthy when it matches."""

    def search(self, string: str, /) -> object: ...


class RunBefore:
    """`re.compile(f"{run}{literal}").search`, for a `run` of fixed length (`[0-9a-f]{32}`),
    found from each `literal` by `str.find` (a pattern opening with a class is otherwise tried
    at every position): truthy where one follows such a run."""

    def __init__(self, run: str, size: int, literal: str) -> None:
        self._run, self._size, self._literal = re.compile(run), size, literal

    def search(self, string: str, /) -> bool:
        at = string.find(self._literal, self._size)
        while at != -1:
            if self._run.fullmatch(string, at - self._size, at):
                return True
            at = string.find(self._literal, at + 1)
        return False


#: A second, fast pattern that must match first, for shapes whose needles are common.
TOKEN_HINTS: dict[str, Hint] = {
    "discord_token": re.compile(r"\.[\w-]{6}\.[\w-]{27}"),
    "url_password": re.compile(r"://[^\s:/@]*:[^\s@/]+@"),
    "twilio_key": re.compile(r"SK[0-9a-fA-F]{32}"),
    "vault_legacy_token": re.compile(r"s\.[A-Za-z0-9]{24}"),
    "mailchimp_key": RunBefore(r"[0-9a-f]{32}", 32, "-us"),
}

_WORD_LITERAL = re.compile(r"^\\b([A-Za-z0-9_][A-Za-z0-9_-]*)(?![*+?{])")


_WORD_CLASS = re.compile(r"^\\b(\[[A-Za-z0-9_]+\])")


def _class_first(pattern: str) -> str:
    """`\\b[MN]…` as `[MN](?<!\\w[MN])…`, and a pattern ignoring case that opens with keywords as
    `keywords_first` writes it."""
    found = _WORD_CLASS.match(pattern)
    if not found:
        return keywords_first(pattern)
    chars = found.group(1)
    return f"{chars}(?<!\\w{chars}){pattern[found.end() :]}"


def literal_first(pattern: str) -> str:
    """`\\bsk-…` as `sk-(?<!\\wsk-)…`: the same matches, but the regex engine can jump straight to
    the literal instead of trying every position (some 100× faster on long text)."""
    found = _WORD_LITERAL.match(pattern)
    if not found:
        return _class_first(pattern)
    literal = found.group(1)
    return f"{literal}(?<!\\w{literal}){pattern[found.end() :]}"
