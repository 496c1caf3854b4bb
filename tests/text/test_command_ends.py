"""Passwords on command lines are found as when every stretch before a flag is read for ends of
commands (`;`, `|`, `&&`, line breaks): command_secrets.redact_command reads the stretch after
a command's name once, and its flags are tried where their words start; the plain way, written
out here, reads each stretch with `finditer` and each flag with `flags.finditer` over the text."""

from __future__ import annotations

import random
import re

import families_corpus

from onlooker.text import command_secrets
from onlooker.text._shape import mark
from onlooker.text.command_secrets import (
    _COMMAND_END,
    _COMPILED,
    BUDGET,
    REACH,
    _starts_command,
    redact_command,
)


def _plain(command: re.Pattern[str], flags: re.Pattern[str], text: str) -> str:
    """redact_command as first written: every end of a command in each stretch read."""
    spans: list[tuple[int, int]] = []
    budget = BUDGET + len(text) // 200
    command_end = stop = -1
    scanned = 0
    for flag in flags.finditer(text):
        at = flag.start()
        budget -= 1
        if budget < 0:
            head = command_secrets.replace_spans(text[:at], spans, "cli_password")
            return head + flags.sub(mark("cli_password"), text[at:])
        low = max(scanned, at - REACH)
        for found in command.finditer(text, low, at + 1):
            if found.end() <= at and _starts_command(text, found.start()):
                command_end = found.end()
        for found in _COMMAND_END.finditer(text, low, at):
            stop = found.start()
        scanned = at
        if command_end < 0 or stop >= command_end or at - command_end > REACH:
            continue
        value = flag.group("v")
        if value and not command_secrets.already_redacted(value):
            spans.append(flag.span("v"))
    return command_secrets.replace_spans(text, spans, "cli_password")


_NAMES = [
    "mysql", "sshpass", "redis-cli", "mongo", "zip", "7z", "sqlcmd", "ldapsearch", "docker login",
    "twine", "curl", "openssl", "keytool", "ssh-keygen", "smbclient", "xfreerdp", "htpasswd",
    "sqlplus", "mosquitto_pub", "ipmitool", "snmpwalk", "lftp", "useradd", "cf auth",
    "rabbitmqctl", "nmcli", "wpa_passphrase", "net user", "vault login", "ldappasswd",
]  # fmt: skip
_FLAGS = ["-p", "-pS3cr", "-P", "-a", "-w", "-u", "--user", "-U", "-passin pass:", "-k", "-N",
          "/p:", "-b", "-s", "password", "AUTH", "add_user", "-storepass", "-bc"]  # fmt: skip
_BETWEEN = [" ", "  ", "\t", "\n", "\\n", "\\\n", ";", "|", "&&", "&&&", "&", "\\", "-", "x" * 40,
            " user:", "@db", "/", "'q w'", '"q"', "\\\"v\\\"", "u%", "h1,", "%s", "\u017f", "\u0130", "\u212a", "é"]  # fmt: skip


def _texts(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rnd.randint(1, 50)):
            roll = rnd.random()
            if roll < 0.15:
                parts.append(rnd.choice(_NAMES))
            elif roll < 0.3:  # a command with a flag and a value, perhaps after other flags
                value = rnd.choice(("Secr3t", "'q w'", "u:pw9", "dom/u%pw", "pass:pw1", "s3"))
                more = rnd.choice(("", " -h db", " -v", " host"))
                gap = rnd.choice((" ", "", "\t", "="))
                parts.append(f"{rnd.choice(_NAMES)}{more} {rnd.choice(_FLAGS)}{gap}{value}")
            elif roll < 0.45:  # flags alone
                parts.append(rnd.choice(_FLAGS))
            elif roll < 0.9:
                parts.append(rnd.choice(_BETWEEN))
            else:
                parts.append("y" * rnd.choice((100, 700, 1500, 2100)))  # past REACH
        texts.append("".join(parts))
    return texts


def test_command_passwords_are_found_as_when_every_stretch_is_read() -> None:
    texts = _texts(3, 4000)
    texts += [case.text for case in families_corpus.CASES]
    texts += [control.text for control in families_corpus.CONTROLS]
    changed = 0
    for _needles, command, flags in _COMPILED:
        for text in texts:
            plain = _plain(command, flags, text)
            assert redact_command(command, flags, text, text.lower()) == plain, (text, flags)
            assert redact_command(command, flags, text) == plain, (text, flags)
            changed += plain != text
    assert changed > 500
