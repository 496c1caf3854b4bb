"""Which names call a value a secret: `DB_PASS`, `api_key`, `accessToken`, `X-Api-Key`, `auth`.

Used for `KEY=value` text and for the keys of JSON data at any depth; names that only describe a
secret (`token_count`, `password_file`, `max_tokens`, `auth_method`) are not secret names.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: A word that is one of these, or ends with one (`dbpassword`, `accesstoken`), names a secret.
SECRET_ENDINGS = (
    "password", "passwd", "passphrase", "passcode", "secret", "token", "apikey", "credential",
    "credentials", "privatekey", "secretkey", "accesskey", "masterkey", "authkey", "mnemonic",
    "privkey", "seedphrase", "secrets", "passwords", "authtok",
)  # fmt: skip
#: Words that name a secret only on their own (`DB_PASS`, `auth`, `sig`), never inside another.
SECRET_WORDS = frozenset({
    "pass", "pwd", "pw", "auth", "authorization", "cookie", "sig", "creds", "psk", "sas", "salt",
    "pepper", "bearer", "jwt", "otp", "totp", "hmac", "cookies", "requirepass", "masterauth",
    "unseal",
})  # fmt: skip
#: Words that name a secret after another word (`GH_PAT`, `STRIPE_SK`), not alone (`pat = r"…"`).
SECRET_AFTER_ANY = frozenset({"pat", "sk", "private"})
#: `phrase` names a secret after one of these (`seed_phrase`, `recovery-phrase`).
PHRASE_QUALIFIERS = frozenset({"seed", "recovery", "secret", "backup", "wallet", "mnemonic"})
#: `signature` names a secret after one of these words (`X-Amz-Signature`, `SharedAccessSignature`);
#: alone it is most often a public one (a transcript's thinking block, a function's signature).
SIGNATURE_QUALIFIERS = frozenset({"amz", "goog", "hmac", "webhook", "request", "access"})
#: `key` names a secret after one of these words (`api_key`, `AccountKey`, `client-key-data`).
KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "account", "auth", "master", "encryption", "signing",
    "client", "service", "app", "subscription", "shared", "storage", "session", "deploy", "db",
    "database", "hmac", "jwt", "webhook", "admin", "root", "crypto", "cipher", "aes", "ssh",
    "license", "consumer", "sas", "write", "ingest", "sendgrid", "stripe", "openai", "anthropic",
    "tls", "nonce", "in", "cookie", "bot", "application", "integration", "wallet", "recovery",
    "unseal", "gossip", "join", "enrollment", "registration", "mapbox", "pusher", "algolia",
    "datadog", "dd", "mailgun", "twilio", "github", "gitlab", "slack", "heroku", "netlify",
    "vercel", "cloudflare", "supabase", "firebase", "clerk", "okta", "rails", "django", "secure",
    "otp", "totp", "mfa", "decryption", "wrapping", "rsa", "ed25519", "sops", "vault", "server",
    "push", "fcm", "apns", "personal", "partner", "merchant", "provisioning", "rcon", "hash",
})  # fmt: skip
#: `code` and `codes` name secrets after one of these words (`recovery_codes`, `mfa_code`).
CODE_QUALIFIERS = frozenset({
    "recovery", "backup", "mfa", "otp", "totp", "2fa", "auth", "authorization", "verification",
})  # fmt: skip
#: Names of a public key, whatever else they hold (`JWT_PUBLIC_KEY`, `ssh_pubkey`).
PUBLIC_KEY_ENDS = (("public", "key"), ("pub", "key"), ("publickey",), ("pubkey",), ("public",))
#: A last word that makes the name describe a secret instead of holding one (`token_count`).
DESCRIBING_LAST = frozenset({
    "count", "counts", "limit", "limits", "max", "min", "length", "len", "size", "type", "types",
    "name", "names", "file", "files", "filename", "path", "paths", "dir", "directory", "url",
    "uri", "urls", "endpoint", "host", "id", "ids", "prefix", "suffix", "header", "field",
    "fields", "env", "var", "variable", "expiry", "expires", "expiration", "expired", "ttl",
    "timeout", "lifetime", "age", "hint", "policy", "mode", "format", "version", "enabled",
    "disabled", "required", "regex", "pattern", "label", "placeholder", "kind", "usage", "budget",
    "rate", "cost", "index", "location", "source", "provider", "method", "methods", "scope",
    "scopes", "strategy", "chars", "rotation", "changed", "created", "updated", "valid",
    "validity", "validator", "validation", "error", "errors", "message", "msg", "prompt", "input",
    "box", "dialog", "strength", "rules", "manager", "helper", "handler", "class", "module", "fn",
    "func", "callback", "stdin", "cmd", "command", "status", "state", "flag", "flags", "option",
    "options", "config", "settings", "bits", "algorithm", "alg", "encoding", "cache", "backend",
    "generator", "factory", "parser", "list", "lookup", "mapping", "map", "schema", "spec",
    "template", "example", "sample", "fingerprint", "digest", "checksum", "at", "on", "since",
    "until", "timestamp", "date", "time", "seconds", "ms", "minutes", "days", "interval",
    "retries", "attempts", "level", "width", "height", "visible", "visibility", "link", "page",
    "route", "view", "form", "button", "widget", "component", "icon", "used", "uses", "store",
    "service", "server", "issuer", "audience", "user", "username", "login", "email", "account",
    "owner", "reset", "set", "get", "exists", "present", "missing", "ref", "refs", "hash",
    "hashes",
    # file extensions: `auth.ts`, `secrets.yaml`, `token.pem` name files, not values
    "py", "ts", "tsx", "js", "jsx", "mjs", "json", "yaml", "yml", "md", "txt", "go", "rs", "java",
    "rb", "php", "c", "h", "cpp", "cs", "sh", "toml", "ini", "cfg", "conf", "lock", "log", "html",
    "css", "sql", "pem", "crt", "der", "p12", "pfx", "gpg", "asc", "kt", "swift", "vue",
})  # fmt: skip
#: A first word that makes the name a setting about secrets (`max_tokens`, `use_auth_token`).
DESCRIBING_FIRST = frozenset({
    "max", "min", "num", "n", "is", "has", "use", "no", "show", "hide", "enable", "disable",
    "allow", "require", "skip", "should", "count", "total",
})  # fmt: skip
#: Whole names that are never secrets (the shell's working directories, nsswitch's database).
NOT_SECRET = frozenset({"oldpwd", "passwd_file", "sig_figs"})
#: The shell's working directory, as the environment names it (a `pwd` field is a password).
SHELL_NAMES = frozenset({"PWD", "OLDPWD"})

#: A secret name holds one of these, lowercased (each word of `is_secret_name` below that makes a
#: name secret holds one): a line holding none holds no secret name.
NAME_WORDS = (
    "pass", "pw", "auth", "cookie", "sig", "cred", "sk", "sas", "salt", "pepper", "bearer", "jwt",
    "otp", "hmac", "secret", "token", "key", "mnemonic", "pat", "private", "phrase", "recovery",
    "backup", "mfa", "2fa", "verification", "unseal",
)  # fmt: skip

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")
#: Longest name looked at: longer runs of name characters are not names.
LONGEST = 100


def name_words(name: str) -> list[str]:
    """`X-Api-Key` -> [x, api, key]; `sharedAccessKey` -> [shared, access, key]."""
    return [w for w in _SEPARATORS.split(_CAMEL.sub("_", name).lower()) if w]


@lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a key or variable named `name` holds a secret (`DB_PASS`, `x-api-key`, `auth`)."""
    if not name or len(name) > LONGEST or name in SHELL_NAMES:
        return False
    words = _numbered(name_words(name))
    if not words or "_".join(words) in NOT_SECRET:
        return False
    if words[-2:] in (["secret", "id"], ["code", "verifier"], ["oauth", "verifier"]):
        return True  # the id is the secret (Vault's and Consul's `SecretID`), PKCE's verifier
    if len(words) > 1 and (words[-1] in DESCRIBING_LAST or words[0] in DESCRIBING_FIRST):
        return False
    if any(tuple(words[-len(end) :]) == end for end in PUBLIC_KEY_ENDS):
        return False
    for at, word in enumerate(words):
        if word in SECRET_WORDS or word.endswith(SECRET_ENDINGS):
            return True
        if word == "key" and at > 0 and words[at - 1] in KEY_QUALIFIERS:
            return True
        if word == "signature" and at > 0 and words[at - 1] in SIGNATURE_QUALIFIERS:
            return True
        if word in SECRET_AFTER_ANY and (at > 0 or name.isupper() or name == word):
            return True
        if word == "phrase" and at > 0 and words[at - 1] in PHRASE_QUALIFIERS:
            return True
        if word in ("code", "codes") and at > 0 and words[at - 1] in CODE_QUALIFIERS:
            return True
    return False


def _numbered(words: list[str]) -> list[str]:
    """The words of a name without the numbers that count copies of it: `password2` and
    `VAULT_UNSEAL_1` name what `password` and `VAULT_UNSEAL` name (`2fa`, `s3` stay)."""
    out = [w.rstrip("0123456789") or w for w in words]
    while len(out) > 1 and out[-1].isdigit():
        out.pop()
    return out


def is_password_name(name: str) -> bool:
    """Whether the name is a password's (an all-digit value is a secret then: `DB_PASS=0420`)."""
    return any(
        w in ("pass", "pwd", "pw", "otp", "totp") or w.endswith(("password", "passwd", "passcode"))
        for w in name_words(name)
    )
