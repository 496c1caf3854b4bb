"""Keys in their own formats, where no name says so: PuTTY key files, the private members of a
JWK, PEM bodies cut from their BEGIN line or pasted bare (known DER openings of private keys),
other armoured secret keys, Bitcoin WIF and extended private keys, wallet mnemonics near the
words that name them, and the data of a Kubernetes Secret.
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import re

from ._shape import (
    Shape,
    alnum_run,
    already_redacted,
    keywords_first,
    mark,
    regex_apply,
    run_starts,
    sub_at,
    whole_match,
)
from .literal_starts import finditer_from_starts, sub_from_starts

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_B64_LINE = r"[A-Za-z0-9+/=_-]{16,}"
#: `Private-Lines: N` and the lines after it (PuTTY), and its MAC.
_PUTTY = re.compile(
    r"(?m)^(?P<head>Private-Lines:[ \t]*\d+[ \t]*\r?\n)(?P<body>(?:[ \t]*[A-Za-z0-9+/=]{8,}[ \t]*(?:\r?\n|\Z))+)"
)
_PUTTY_MAC = re.compile(r"(?m)^(Private-(?:MAC|Hash):[ \t]*)([0-9a-fA-F]{16,})")


#: An onion service's private key as Tor's control port takes it (`ADD_ONION ED25519-V3:…`).
_ONION_KEY = re.compile(r"(?:ED25519-V3|RSA1024):([A-Za-z0-9+/]{80,2048}={0,2})")


def redact_putty(text: str, lowered: str) -> str:
    text = _PUTTY.sub(lambda m: m.group("head") + mark("putty_key") + "\n", text)
    return _PUTTY_MAC.sub(lambda m: m.group(1) + mark("putty_key"), text)


#: The private members of a JSON Web Key (the public ones, n, e, x, y, stay).
_JWK_PRIVATE = re.compile(
    r"""((?:\\?"(?:d|p|q|dp|dq|qi|k|oth)\\?"|'(?:d|p|q|dp|dq|qi|k|oth)')[ \t]*:[ \t]*(?:\\?"|'))([A-Za-z0-9_\-+/=]{16,})"""
)


def redact_jwk(text: str, lowered: str) -> str:
    return _JWK_PRIVATE.sub(lambda m: m.group(1) + mark("jwk_private"), text)


#: The base64 openings of DER private keys: PKCS#1 RSA, PKCS#8, SEC1 EC, Ed25519/X25519 PKCS#8;
#: of OpenSSH's private key container (`openssh-key-v1`); and of a container login password
#: (`{"payload":"…`, what `aws ecr get-login-password` prints), long.
_DER_PRIVATE = re.compile(
    r"(?:MII[A-Za-z0-9+/]{3}IBA(?:AK|DAN)|MHcCAQEEI|MIGkAgEBBD|MIHcAgEBBE|MC4CAQAwBQYDK2V|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49"
    r"|b3BlbnNzaC1rZXktdjE|PT0gZWQyNTUxOXYxLXNlY3JldDog|eyJwYXlsb2FkIjoi(?=[A-Za-z0-9+/]{200}))[A-Za-z0-9+/=]*"
)
#: A line that goes on with base64 (perhaps after grep's `path:` or indentation).
_CONTINUED = re.compile(
    rf"(?:\r?\n|\\n)(?P<lead>[ \t]*(?:[\w./-]+[:-](?:\d+[:-])?)?[ \t]*)(?P<b64>{_B64_LINE})(?=[ \t]*(?:\r?\n|\\n|\Z|\"|'))"
)


def redact_der_bodies(text: str, lowered: str) -> str:
    pieces: list[str] = []
    done = 0
    for found in finditer_from_starts(_DER_PRIVATE, text, lowered):
        if found.start() < done or len(found.group(0)) < 20:
            continue
        pieces.append(text[done : found.start()] + mark("private_key"))
        done = found.end()
        while (more := _CONTINUED.match(text, done)) is not None:
            pieces.append(text[done : more.start("b64")] + mark("private_key"))
            done = more.end("b64")
    return "".join(pieces) + text[done:] if pieces else text


#: The end of an armoured private or secret key, whose BEGIN line may be missing.
_END = re.compile(
    r"-----END [A-Za-z0-9 ]*(?:PRIVATE|SECRET|STATIC|Static)[A-Za-z0-9 ]*(?:KEY|key)[A-Za-z0-9 ]*-----"
)
_BEGIN = re.compile(
    r"-----BEGIN [A-Za-z0-9 ]*(?:PRIVATE|SECRET|STATIC|Static)[A-Za-z0-9 ]*(?:KEY|key)[A-Za-z0-9 ]*-----"
)
_BODY_LINE = re.compile(
    rf"^[ \t]*(?:[\w./-]+[:-](?:\d+[:-])?)?[ \t]*(?P<b64>{_B64_LINE}|=[A-Za-z0-9+/]{{4}})[ \t]*$"
)


def redact_armoured_bodies(text: str, lowered: str) -> str:
    """The body lines above each END of a private, secret or static key (BEGIN line or not)."""
    spans: list[tuple[int, int]] = []
    for end in _END.finditer(text):
        line_end = text.rfind("\n", 0, end.start())
        begin = None
        while line_end > 0:
            line_start = text.rfind("\n", 0, line_end) + 1
            line = text[line_start:line_end].rstrip("\r")
            if _BEGIN.search(line):
                begin = line_start
                break
            body = _BODY_LINE.match(line)
            if body is None:
                if line.strip() and not line.startswith(
                    ("Proc-Type:", "DEK-Info:", "Comment:", "Version:")
                ):
                    break
            elif not already_redacted(line):
                spans.append((line_start + body.start("b64"), line_start + body.end("b64")))
            line_end = line_start - 1
        del begin
    if not spans:
        return text
    spans.sort()
    pieces: list[str] = []
    done = 0
    for start, stop in spans:
        if start < done:
            continue
        pieces.append(text[done:start] + mark("private_key"))
        done = stop
    return "".join(pieces) + text[done:]


#: The hex openings of DER private keys (`xxd -p` of one): PKCS#1 RSA and PKCS#8 (a SEQUENCE,
#: version 0, then the modulus or the RSA algorithm), SEC1 EC (version 1, a 32-byte octet string).
_DER_HEX = re.compile(
    r"(?i)(?<![0-9a-f])(?:3082[0-9a-f]{4}020100(?:02820101|02820201|0282018|300d06092a864886f70d010101)|30770201010420)[0-9a-f]{40,}"
)
#: An encrypted PEM key's headers (its BEGIN line cut off): the base64 lines after `DEK-Info:`.
_DEK_BODY = re.compile(
    r"DEK-Info:[^\n]{0,200}\r?\n(?:[ \t]*\r?\n)?(?P<body>(?:[ \t]*[A-Za-z0-9+/=]{16,}[ \t]*(?:\r?\n|\Z))+)"
)
#: A keypair as a JSON array of 64 bytes (Solana's `id.json`).
_BYTE_ARRAY = re.compile(r"\[(?:[ \t]*\d{1,3}[ \t]*,){63}[ \t]*\d{1,3}[ \t]*\]")


def redact_dek_bodies(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group("body")
        end = "\n" if body.endswith("\n") else ""
        return match.group(0)[: match.start("body") - match.start()] + mark("private_key") + end

    return _DEK_BODY.sub(replace, text)


def redact_byte_arrays(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        numbers = [int(n) for n in match.group(0).strip("[] \t").split(",")]
        return mark("wallet_key") if all(n <= 255 for n in numbers) else match.group(0)

    return _BYTE_ARRAY.sub(replace, text)


#: minisign's and signify's key files: a comment line, then the key; a secret key's says so.
_COMMENTED_KEY = re.compile(
    r"untrusted comment:[^\n]{0,200}\bsecret key\b[^\n]{0,200}\r?\n[ \t]*([A-Za-z0-9+/]{40,}={0,2})"
)
#: A bech32 secret key: a human-readable part naming one (`nsec1…`, `…secretkey1…`), 38 or more
#: data characters (all in one case, as bech32 asks).
_BECH32_SECRET = re.compile(
    r"(?<![A-Za-z0-9])(?:[a-z]{0,16}(?:sec|secretkey|priv|prv|privkey)1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38,}"
    r"|[A-Z]{0,16}(?:SEC|SECRETKEY|PRIV|PRV|PRIVKEY)1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{38,})(?![A-Za-z0-9])"
)
#: What ends the part naming it, `1` included (`secretkey1` and `privkey1` end in `key1`); and
#: how far past where a match starts one ends at most (16 letters, `secretkey`, `1`).
_BECH32_WORDS = ("sec1", "priv1", "prv1", "key1", "SEC1", "PRIV1", "PRV1", "KEY1")
_BECH32_REACH = 16 + 9 + 1
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_BECH32_MARK = whole_match("private_key")


def redact_bech32_secrets(text: str, lowered: str) -> str:
    """`_BECH32_SECRET` tried only where a run of letters and digits holding the end of its
    name starts (a pattern opening with a class is otherwise tried at every position)."""
    starts = run_starts(text, _BECH32_WORDS, _ALNUM, _BECH32_REACH)
    return sub_at(_BECH32_SECRET, _BECH32_MARK, text, starts) if starts else text


_WIF = re.compile(
    r"(?<![A-Za-z0-9])(?:5[HJK][1-9A-HJ-NP-Za-km-z]{49}|[KL][1-9A-HJ-NP-Za-km-z]{51})(?![A-Za-z0-9])"
)
#: What a WIF key starts with, then enough base58: found at C speed before `_WIF` runs.
_WIF_HINT = re.compile(r"[5KL][1-9A-HJ-NP-Za-km-z]{50}")


def redact_wif(text: str, lowered: str) -> str:
    if not alnum_run(text, 51) or not _WIF_HINT.search(text):
        return text
    return _WIF.sub(mark("wallet_key"), text)


_XPRV = re.compile(
    r"prv(?<![A-Za-z0-9][xyzt]prv)(?<=[xyzt]prv)[1-9A-HJ-NP-Za-km-z]{100,112}(?![A-Za-z0-9])"
)

#: A mnemonic: 12 to 24 short lowercase words, after a word that names one.
_MNEMONIC = re.compile(
    keywords_first(
        r"(?i)(?:mnemonic|seed|recovery|secret phrase|backup phrase|wallet|passphrase)[^\n]{0,60}?(?:\n[ \t]*){0,3}[\"'`]?(?P<v>(?:[a-z]{3,8} ){11,23}[a-z]{3,8})(?![a-z])"
    )
)


def redact_mnemonics(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        words = match.group("v").split(" ")
        if len(words) not in (12, 15, 18, 21, 24) or len(set(words)) < len(words) // 2:
            return match.group(0)
        start = match.start("v") - match.start()
        return match.group(0)[:start] + mark("mnemonic")

    return sub_from_starts(_MNEMONIC, replace, text, lowered)


#: `data:` / `stringData:` of a Kubernetes Secret: every value under them.
_SECRET_DATA = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\r?$")
_DATA_LINE = re.compile(r"(?P<indent>[ \t]+)(?P<key>[\w.-]+):[ \t]*(?P<v>[^\n\r]*)")


def redact_kubernetes_secret(text: str, lowered: str) -> str:
    if "kind: secret" not in lowered:
        return text
    pieces: list[str] = []
    done = 0
    for block in _SECRET_DATA.finditer(text):
        if block.start() < done:
            continue
        indent = len(block.group("indent"))
        at = block.end() + 1
        value_indent = None
        while at < len(text):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            line = text[at:end]
            depth = len(line) - len(line.lstrip(" \t"))
            if line.strip() and depth <= indent:
                break
            entry = _DATA_LINE.fullmatch(line.rstrip("\r"))
            if entry and (value_indent is None or depth <= value_indent):
                value_indent = depth
                value = entry.group("v").strip()
                if value and value not in ("|", ">", "|-", ">-") and not already_redacted(value):
                    pieces.append(text[done : at + entry.start("v")] + mark("kubernetes_secret"))
                    done = at + entry.end("v")
            elif line.strip() and value_indent is not None and depth > value_indent:
                pieces.append(text[done : at + depth] + mark("kubernetes_secret"))
                done = end
            at = end + 1
    return "".join(pieces) + text[done:] if pieces else text


KEY_FORMAT_SHAPES = (
    Shape("putty_key", ("private-lines:",), redact_putty),
    Shape("private_key", ("ed25519-v3:", "rsa1024:"), regex_apply(_ONION_KEY, 1, "private_key")),
    Shape("jwk_private", ("kty",), redact_jwk),
    Shape("private_key", ("-----end ",), redact_armoured_bodies),
    Shape(
        "private_key",
        (
            "mii",
            "mhccaqeei",
            "migkagebbd",
            "mihcagebbe",
            "mc4caqawbqydk2v",
            "mig",
            "b3blbnnzac1rzxktdje",
            "eyjwyxlsb2fkijoi",
            "pt0gzwqyntuxoxyxlxnly3jldd",
        ),
        redact_der_bodies,
    ),
    Shape("private_key", ("020100", "0201010420"), regex_apply(_DER_HEX, 0, "private_key")),
    Shape("private_key", ("dek-info:",), redact_dek_bodies),
    Shape("wallet_key", tuple(f"[{d}" for d in "0123456789"), redact_byte_arrays),
    Shape("private_key", ("untrusted comment:",), regex_apply(_COMMENTED_KEY, 1, "private_key")),
    Shape(
        "private_key",
        ("sec1", "priv1", "prv1", "key1"),
        redact_bech32_secrets,
    ),
    Shape("wallet_key", ("5h", "5j", "5k", "k", "l"), redact_wif),
    Shape(
        "wallet_key",
        ("xprv", "yprv", "zprv", "tprv"),
        lambda text, _: _XPRV.sub(lambda m: mark("wallet_key"), text),
    ),
    Shape("mnemonic", ("mnemonic", "seed", "recovery", "phrase", "wallet"), redact_mnemonics),
    Shape("kubernetes_secret", ("kind: secret",), redact_kubernetes_secret),
)
