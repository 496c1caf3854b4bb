"""Secrets that JSON data shows by its structure rather than by a key's name: the `value` of a
`{name|key: <secret name>, value: …}` pair (Kubernetes env lists, CI variables, headers as
lists), a cookie's `value`, Terraform's sensitive `value`, a JWK's private members; and the
output of a command that prints a credential (`gcloud auth print-access-token`, `gh auth token`).
"""

# ruff: noqa: E501 - the commands read best as one pattern
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._shape import Shape, already_redacted, mark
from .secret_names import is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

JWK_PRIVATE = frozenset({"d", "p", "q", "dp", "dq", "qi", "k", "oth"})
_COOKIE_FIELDS = frozenset(
    {"domain", "path", "httpOnly", "httponly", "secure", "expires", "expirationDate", "sameSite"}
)


def structured_secrets(data: Mapping[Any, Any]) -> frozenset[Any]:
    """The keys of `data` whose values are secret by the object's structure."""
    keys: set[Any] = set()
    value = data.get("value")
    if isinstance(value, str | int) and not isinstance(value, bool) and _filled(value):
        label = data.get("name", data.get("key"))
        if isinstance(label, str) and is_secret_name(label):
            keys.add("value")
        elif "name" in data and _COOKIE_FIELDS.intersection(data):
            keys.add("value")  # a cookie
        elif data.get("sensitive") is True:
            keys.add("value")  # Terraform
    if isinstance(data.get("kty"), str):
        keys.update(k for k in JWK_PRIVATE if isinstance(data.get(k), str) and data[k])
    return frozenset(keys)


def _filled(value: str | int) -> bool:
    if isinstance(value, int):
        return True
    stripped = value.strip()
    return len(stripped) >= 3 and not already_redacted(stripped) and stripped[0] not in "${<"


#: Commands whose output is a credential.
CREDENTIAL_COMMAND = re.compile(
    r"(?:gcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token|az\s+account\s+get-access-token"
    r"|aws\s+(?:ecr(?:-public)?\s+get-login-password|configure\s+get\s+\S*(?:secret|token|key)|sts\s+(?:get-session-token|assume-role)|iam\s+create-access-key|secretsmanager\s+get-secret-value|codeartifact\s+get-authorization-token|ssm\s+get-parameters?\b[^\n]*--with-decryption)"
    r"|heroku\s+auth:token|gh\s+auth\s+token|glab\s+auth\s+token|doctl\s+auth\s+token|vault\s+(?:print\s+token|read|kv\s+get|token\s+create)"
    r"|kubectl\s+create\s+token|op\s+read|pass\s+show|gopass\s+show|security\s+find-(?:generic|internet)-password\b[^\n]*-w|bw\s+get\s+password|lpass\s+show|npm\s+token\s+create"
    r"|cat\s+\S*(?:credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.env\b|secrets?\b|\.pem|id_rsa|id_ed25519)|openssl\s+rand\b|pwgen\b|wg\s+genkey\b(?![^\n]*\|[ \t]*wg\s+pubkey)|kubectl\s+get\s+secrets?\b[^\n]*\|\s*base64\s+(?:-d|-D|--decode)|kubectl\s+view-secret|gcloud\s+secrets\s+versions\s+access|az\s+keyvault\s+secret\s+show|(?:doppler|infisical)\s+secrets\s+get|chamber\s+read|sops\s+(?:-d|--decrypt)|ansible-vault\s+(?:view|decrypt)\b[^\n]*--output[= ]-|aws-vault\s+exec\b[^\n]*\benv)"
)
OUTPUT_FIELDS = frozenset({"stdout", "output", "content", "result", "text"})


#: A command that prints a variable or an output by its name: `echo $DB_PASSWORD`, `printenv
#: API_TOKEN`, `terraform output -raw db_password`, `heroku config:get SESSION_SECRET`.
_PRINTS_NAMED = re.compile(
    r"""(?:(?<![\w-])echo(?:[ \t]+-[neE]+)*[ \t]+["']?\$\{?|(?<![\w-])printenv[ \t]+|terraform[ \t]+output[ \t]+(?:-[\w=]+[ \t]+)*|config:get[ \t]+(?:-[\w=]+[ \t]+)*)(?P<name>[A-Za-z_][\w.-]{0,100})(?![^\n|]*\|)"""
)


def prints_credential(command: object) -> bool:
    if not isinstance(command, str):
        return False
    if CREDENTIAL_COMMAND.search(command) is not None:
        return not _selects_public_field(command)
    return any(is_secret_name(m.group("name")) for m in _PRINTS_NAMED.finditer(command))


#: One field asked of a credential printer: `vault kv get -field=username`, `--query Parameter.Name`.
_FIELD = re.compile(
    r"(?<![^\s])(?:-field|--field|--query)(?:[ \t]+|=)['\"]?(?P<field>[\w.\[\]-]{1,100})"
)
#: The fields that hold the credential itself, whatever their name says.
_VALUE_FIELDS = frozenset(
    {"value", "secretstring", "secretbinary", "data", "parameter", "parameters"}
)


def _selects_public_field(command: str) -> bool:
    fields = [m.group("field") for m in _FIELD.finditer(command)]
    if not fields:
        return False
    last = [f.replace("[]", "").rstrip(".").rsplit(".", 1)[-1] for f in fields]
    return all(f and f.lower() not in _VALUE_FIELDS and not is_secret_name(f) for f in last)


def output_marked(value: Any) -> Any:
    """A command's output with every non-empty output string replaced whole."""
    if isinstance(value, str):
        return mark("credential_output") if value.strip() else value
    if isinstance(value, dict):
        return {
            k: output_marked(v) if k in OUTPUT_FIELDS or isinstance(v, dict | list) else v
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [output_marked(v) for v in value]
    return value


#: `$ <command that prints a credential>` in a transcript, and the token lines it printed.
_PROMPTED = re.compile(
    r"(?m)^[ \t]*\$[ \t]+(?P<command>[^\n]{1,300})\r?\n(?P<out>(?:[ \t]*[A-Za-z0-9+/=._~:-]{16,}[ \t]*(?:\r?\n|\Z)){1,3})"
)


def redact_prompted_output(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if not prints_credential(match.group("command")):
            return match.group(0)
        end = "\n" if match.group("out").endswith("\n") else ""
        return (
            match.group(0)[: match.start("out") - match.start()] + mark("credential_output") + end
        )

    return _PROMPTED.sub(replace, text)


#: Terraform state: a resource whose type makes a secret (`random_password`), up to the next
#: resource's type; in it, the attributes that hold the secret.
_TF_SECRET_TYPE = re.compile(r'"type"[ \t]*:[ \t]*"(?:random_password|random_bytes)"')
_TF_NEXT_TYPE = re.compile(r'"type"[ \t]*:')
_TF_RESULT = re.compile(
    r'"(?:result|bcrypt_hash|base64|hex)"[ \t]*:[ \t]*"(?P<v>[^"\\\n]{3,1024})"'
)


def redact_terraform_state(text: str, lowered: str) -> str:
    pieces: list[str] = []
    done = 0
    for resource in _TF_SECRET_TYPE.finditer(text):
        if resource.start() < done:
            continue
        following = _TF_NEXT_TYPE.search(text, resource.end())
        end = following.start() if following else len(text)
        for found in _TF_RESULT.finditer(text, resource.end(), end):
            if not already_redacted(found.group("v")):
                pieces.append(text[done : found.start("v")] + mark("terraform_secret"))
                done = found.end("v")
    return "".join(pieces) + text[done:] if pieces else text


#: A list under a secret's name in JSON or code text (`"recovery_codes": ["…", "…"]`).
_LIST_NAME = re.compile(r"[\w.-]{1,100}")
_PLURAL_LIST = re.compile(
    r"""(?P<plural>codes|keys|tokens|secrets|passwords|credentials|cookies)(?P<esc>\\?)["'][ \t]*[:=][ \t]*\["""
)
_LIST_ITEMS = re.compile(r"[^\[\]\n]{1,2000}(?=\])")
_ITEM = re.compile(r"""(?P<q>\\?["'])(?P<v>[^"'\\\n]{3,512})(?P=q)""")


#: A list under a secret's name: most such names are plural (`recovery_codes`, `api_keys`).
_LIST_NEEDLES = tuple(
    f"{plural}{quote}{sep}["
    for plural in ("codes", "keys", "tokens", "secrets", "passwords", "credentials", "cookies")
    for quote in ('"', "'", '\\"')
    for sep in (":", ": ", "=", " = ")
)


def redact_named_lists(text: str, lowered: str) -> str:
    """Found from each plural name's end followed by `": [` (the name is read back from there,
    and the items only after a secret's name)."""
    if len(lowered) != len(text):
        lowered = text.lower()
    pieces: list[str] = []
    done = 0
    for opened in _PLURAL_LIST.finditer(lowered):
        quote = opened.end("plural")
        if quote < done:
            continue
        mark_char = text[quote + len(opened.group("esc"))]
        opening = text.rfind(mark_char, max(0, quote - 102), quote)
        name = text[opening + 1 : quote].rstrip("\\")
        if opening < 0 or not _LIST_NAME.fullmatch(name) or not is_secret_name(name):
            continue
        items = _LIST_ITEMS.match(text, opened.end())
        if items is not None:
            pieces.append(text[done : items.start()] + _ITEM.sub(_item, items.group(0)))
            done = items.end()
    return "".join(pieces) + text[done:] if pieces else text


def _item(match: re.Match[str]) -> str:
    value = match.group("v")
    if already_redacted(value) or value[0] in "${<" or value.startswith("-"):
        return match.group(0)  # a flag of an argv list stays (assignments.py reads it)
    return match.group(0).replace(value, mark("secret_field"), 1)


STRUCTURED_SHAPES = (
    Shape("secret_field", _LIST_NEEDLES, redact_named_lists),
    Shape("credential_output", ("$ ",), redact_prompted_output),
    Shape("terraform_secret", ("random_password", "random_bytes"), redact_terraform_state),
)
