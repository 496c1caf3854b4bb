"""A spooled hook input without secrets, redacted as decoded values (specs/redaction.md): JSON
that parses goes through `redact_value` (a `\\n` escape glues no letter onto the next name, an
escaped quote breaks no `"key": "value"`) and is written back as JSON, so it can be replayed;
unchanged, it is kept byte for byte. What does not parse (a cut input, never replayed) has its
string escapes decoded, then goes through the text pass.
"""

from __future__ import annotations

import json
import re

from .redact import redact, redact_value

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: Bytes past a cut that are redacted with what is kept, so a secret across it goes whole.
CUT_MARGIN = 4096
#: Lone surrogates other than those `surrogateescape` made of bytes that were not UTF-8.
_LONE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f"}


def redact_payload(raw: bytes, head: int = 0) -> bytes:
    """`raw` (or its first `head` bytes) without secrets."""
    if head:
        text = raw[: head + CUT_MARGIN].decode("utf-8", "surrogateescape")
        return _utf8(redact(unescaped(text))[:head])
    text = raw.decode("utf-8", "surrogateescape")
    try:
        data = json.loads(text)
        redacted = redact_value(data)
        if redacted == data:
            return raw
        return _utf8(json.dumps(redacted, ensure_ascii=False))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python recurses
        plain = unescaped(text)
        cleaned = redact(plain)
        return raw if cleaned == plain else _utf8(cleaned)


def _utf8(text: str) -> bytes:
    """Redacted text as bytes: bytes that were not UTF-8 come back as they were, and any other
    lone surrogate (a decoded `\\ud800` escape) is U+FFFD, so no input is lost for it."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return _LONE.sub("\ufffd", text).encode("utf-8", "surrogateescape")


def unescaped(text: str) -> str:
    """`text` with JSON string escapes decoded (`\\n`, `\\"`, `\\uXXXX`), for a text pass over
    JSON that does not parse: a name after `\\n` or inside `\\"…\\"` is then seen as written."""
    if "\\" not in text:
        return text
    out: list[str] = []
    at = 0
    while (slash := text.find("\\", at)) != -1:
        out.append(text[at:slash])
        code = text[slash + 1 : slash + 2]
        if code == "u" and len(text) >= slash + 6:
            try:
                out.append(chr(int(text[slash + 2 : slash + 6], 16)))
                at = slash + 6
                continue
            except ValueError:
                pass
        out.append(_ESCAPES.get(code, "\\" + code))
        at = slash + 2
    out.append(text[at:])
    return "".join(out)
