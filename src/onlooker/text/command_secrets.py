"""Passwords on command lines: `mysql -pS3cret`, `sshpass -p pw`, `zip -P pw`, `sqlcmd -P pw`,
`ldapsearch -w pw`, `docker login -p pw`, `curl -u user:pw`, `openssl … -passin pass:pw`, ….

A flag counts only after its own command, within that command (up to a newline, `;`, `|`, `&&`).
"""

# ruff: noqa: E501 - each command's flags read best as one line
from __future__ import annotations

import re
from collections.abc import Iterator

from ._shape import Shape, already_redacted, mark, replace_spans
from .literal_starts import finditer_from_starts
from .secret_names import is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: A password on a command line: quoted (also JSON-escaped) or a run of non-space characters.
_VALUE = r"""(?P<v>'[^'\n]{1,256}'|"[^"\n]{1,256}"|\\"[^"\n\\]{1,256}\\"|[^\s'"\\|;&<>]{1,256})"""
_SPACED = rf"[ \t]+{_VALUE}"
_ATTACHED = rf"(?![ \t]){_VALUE}"
_EITHER = rf"[ \t]*{_VALUE}"
_FLAG = r"(?<![^\s])"

#: `sqlplus user/password@db`: found on the lines holding an `@` (see `_LINES_HOLDING`).
_SQLPLUS = r"[ \t](?:-\w+[ \t]+){0,3}['\"]?[^\s/@'\"]{1,128}/(?P<v>[^\s@/'\"]{1,256})@"

#: (needles, the command's names, its password flags): the needles gate the family.
COMMAND_FLAGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("mysql", "mariadb"), r"(?:mysql(?:dump|admin|import|check|show|slap|sh|pump|binlog)?|mariadb(?:-dump|-admin|-import|-check)?)", rf"{_FLAG}-p{_ATTACHED}"),
    (("sshpass",), r"sshpass", rf"{_FLAG}-p{_EITHER}"),
    (("redis-cli",), r"redis-cli", rf"{_FLAG}-a{_EITHER}"),
    (("mongo",), r"mongo(?:sh|dump|restore|export|import|stat|top|files)?", rf"{_FLAG}-p{_EITHER}"),
    (("zip",), r"(?:zip|unzip|zipcloak)", rf"{_FLAG}-P{_SPACED}"),
    (("7z", "rar"), r"(?:7z[ar]?|rar|unrar)", rf"{_FLAG}-(?:hp|p){_ATTACHED}"),
    (("sqlcmd", "bcp", "osql", "isql"), r"(?:sqlcmd|bcp|osql|isql)", rf"{_FLAG}-P{_EITHER}"),
    (("ldap",), r"ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop)", rf"{_FLAG}-w{_EITHER}"),
    (("login",), r"(?:docker|podman|nerdctl|helm(?:[ \t]+registry)?|oras|skopeo|buildah|crane|regctl|az)[ \t]+login", rf"{_FLAG}-p{_EITHER}"),
    (("twine",), r"twine", rf"{_FLAG}-p{_SPACED}"),
    (("curl", "wget", "http", "xh"), r"(?:curl|https?|xh|xhs)", rf"{_FLAG}-(?:u|-user|U|-proxy-user|a|-auth)(?:[ \t]+|=)['\"]?[^\s:'\"]{{1,128}}:(?P<v>[^\s'\"]{{1,256}})"),
    (("openssl",), r"openssl", rf"{_FLAG}-(?:pass(?:in|out)?[ \t]+pass:|k[ \t]+){_VALUE}"),
    (("keytool", "jarsigner"), r"(?:keytool|jarsigner)", rf"{_FLAG}-(?:(?:src|dest)?(?:store|key)pass|new){_SPACED}"),
    (("ssh-keygen",), r"ssh-keygen", rf"{_FLAG}-[NP]{_SPACED}"),
    (("smbclient", "rpcclient", "smbmap", "crackmapexec", "netexec"), r"(?:smbclient|rpcclient|smbmap|crackmapexec|netexec)", rf"{_FLAG}-U[ \t]*['\"]?[^\s%'\"]{{1,128}}%(?P<v>[^\s'\"]{{1,256}})"),
    (("freerdp", "rdesktop"), r"(?:(?:x|wl)?freerdp|rdesktop)", rf"{_FLAG}(?:/p:|-p[ \t]+){_VALUE}"),
    (("htpasswd",), r"htpasswd", rf"{_FLAG}-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+)*(?:[ \t]+[^\s-][^\s]*){{1,2}}[ \t]+{_VALUE}"),
    (("sqlplus",), r"sqlplus", _SQLPLUS),
    (("mosquitto",), r"mosquitto_(?:pub|sub|rr)", rf"{_FLAG}-P{_SPACED}"),
    (("ipmitool",), r"ipmitool", rf"{_FLAG}-P{_SPACED}"),
    (("snmp",), r"snmp(?:walk|get|set|bulkwalk|bulkget|getnext|trap|table|status|df|delta|netstat)", rf"{_FLAG}-[AX]{_SPACED}"),
    (("lftp",), r"lftp", rf"{_FLAG}-u[ \t]+['\"]?[^\s,'\"]{{1,128}},(?P<v>[^\s'\"]{{1,256}})"),
    (("psexec", "ncftp", "useradd", "usermod", "oc login", "cf login"), r"(?:psexec(?:\.exe|\.py)?|ncftp(?:get|put)?|useradd|usermod|oc[ \t]+login|cf[ \t]+login)", rf"{_FLAG}-p{_SPACED}"),
    (("cf auth",), r"cf", rf"(?<=auth)[ \t]+[^\s-]\S*[ \t]+{_VALUE}"),
    (("rabbitmqctl",), r"rabbitmqctl", rf"(?:add_user|change_password|authenticate_user)[ \t]+\S+[ \t]+{_VALUE}"),
    (("mysqladmin", "nmcli"), r"(?:mysqladmin|nmcli)", rf"[ \t]password[ \t]+{_VALUE}"),
    (("wpa_passphrase",), r"wpa_passphrase", rf"(?<=wpa_passphrase)[ \t]+\S+[ \t]+{_VALUE}"),
    (("net user",), r"net", r"(?<=user)[ \t]+[^\s/]+[ \t]+(?P<v>[^\s/*'\"][^\s]{2,255})"),
    (("vault",), r"vault", r"(?<=login)[ \t]+(?P<v>[^\s\-=$][^\s=]{7,255})(?=\s|$)"),
    (("ldappasswd",), r"ldappasswd", rf"{_FLAG}-s{_SPACED}"),
    (("redis-cli",), r"redis-cli", rf"[ \t](?:AUTH|auth)[ \t]+(?:\S+[ \t]+)?{_VALUE}(?=\s|$)"),
    (("smbclient",), r"smbclient", r"(?<=smbclient)[ \t]+//\S+[ \t]+(?P<v>[^\s\-'\"][^\s]{0,255})"),
    (("cqlsh", "winrm", "rabbitmqadmin", "hdbsql"), r"(?:cqlsh|evil-winrm|rabbitmqadmin|hdbsql)", rf"{_FLAG}-p{_SPACED}"),
    # impacket's `[[domain/]user[:password]@]target`
    (("psexec", "smbexec", "wmiexec", "atexec", "dcomexec", "secretsdump", "gettgt", "getuserspns", "getnpusers"), r"(?:psexec|smbexec|wmiexec|atexec|dcomexec|secretsdump|getTGT|GetUserSPNs|GetNPUsers)(?:\.py)?", r":(?P<v>[^\s:@'\"/]{1,256})@"),
    (("net use",), r"net", r"(?<=use)[ \t]+(?:[A-Za-z]:|\*)?[ \t]*\\\\\S+[ \t]+(?P<v>[^\s/*'\"][^\s]{2,255})"),
    (("mc alias", "mc config"), r"mc", r"(?<=set|add)[ \t]+\S+[ \t]+\S+://\S+[ \t]+[^\s-]\S*[ \t]+(?P<v>[^\s\-'\"][^\s]{2,255})"),
)  # fmt: skip

#: Where a command ends: a line break (not one continued by `\`), `;`, `|`, `&&` or a JSON `\n`.
_COMMAND_END = re.compile(r"(?<!\\)\n|;|\||&&|(?<!\\)\\n")
#: How far past its name a command's flags are looked for.
REACH = 2000
#: Flags looked at one by one in a text (and one more per 200 characters); past that, each flag
#: with its value is replaced whole, with no Python per match (see assignments.BUDGET).
BUDGET = 1000
#: A command's name, followed by a space (where it starts is checked by `_starts_command`).
_COMMAND = r"(?:{})(?=[ \t])"


def _literal_first(flags: str) -> str:
    r"""`(?<![^\s])-p…` as `-(?<![^\s]-)p…`: the same matches, found by jumping from `-` to `-`."""
    return f"-(?<![^\\s]-){flags[len(_FLAG) + 1 :]}" if flags.startswith(f"{_FLAG}-") else flags


_COMPILED = tuple(
    (needles, re.compile(_COMMAND.format(names)), re.compile(_literal_first(flags)))
    for needles, names, flags in COMMAND_FLAGS
)
#: Flags that open with no words to start from, but whose every match lies on one line (no
#: line break in them, no lookaround past them) and holds this character: looked for on the
#: lines holding it (the same matches in the same order: none reaches from one line to another).
_LINES_HOLDING = {_SQLPLUS: "@"}
#: Flags that open with a lookbehind of words (`(?<=login)`, `(?<=set|add)`): every match
#: starts right after one of them.
_AFTER_WORDS = re.compile(r"\(\?<=((?:\w+\|)*\w+)\)")


def _found_flags(flags: re.Pattern[str], text: str, lowered: str | None) -> Iterator[re.Match[str]]:
    """`flags.finditer(text)`, tried only where its matches can start: where the words they
    start with start in `lowered` (when given), right after the words of their lookbehind, or on
    the lines holding a character each holds."""
    if lowered is None:
        return flags.finditer(text)
    after = _AFTER_WORDS.match(flags.pattern)
    if after is not None:
        return _after_words(flags, after.group(1).split("|"), text)
    held = _LINES_HOLDING.get(flags.pattern)
    if held is not None:
        return _on_lines_holding(flags, held, text)
    return finditer_from_starts(flags, text, lowered)


def _after_words(flags: re.Pattern[str], words: list[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of a pattern that opens with a lookbehind of `words`, never empty: tried right
    after each of them, each not inside the match before it."""
    starts: set[int] = set()
    for word in words:
        at = text.find(word)
        while at != -1:
            starts.add(at + len(word))
            at = text.find(word, at + 1)
    done = 0
    for start in sorted(starts):
        if start < done:
            continue
        found = flags.match(text, start)
        if found is not None:
            done = found.end()
            yield found


def _on_lines_holding(flags: re.Pattern[str], char: str, text: str) -> Iterator[re.Match[str]]:
    """The matches of a pattern whose every match holds `char` and no line break: found on each
    line holding `char`, each line once."""
    at = text.find(char)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        yield from flags.finditer(text, start, end)
        at = text.find(char, end)


def redact_command(
    command: re.Pattern[str], flags: re.Pattern[str], text: str, lowered: str | None = None
) -> str:
    """Each password `flags` finds that follows an occurrence of `command` (by at most REACH
    characters) with no end of a command between them. Flags are rarer than command names, so
    the text is searched for flags first; the stretch before each is searched once for commands,
    and the stretch after a command's name once for an end of the command, so every character is
    looked at a bounded number of times."""
    spans: list[tuple[int, int]] = []
    budget = BUDGET + len(text) // 200
    command_end = -1  # where the last command seen ends
    since = clean = -1  # the command end read from, and how far no end of a command was seen
    ended = False  # whether an end of a command follows `since`
    scanned = 0
    # the flags (`-p`, `--user`) found where their words start in `lowered`, when given
    for flag in _found_flags(flags, text, lowered):
        at = flag.start()
        budget -= 1
        if budget < 0:  # a text made of such flags: each in the rest goes whole, in linear time
            head = replace_spans(text[:at], spans, "cli_password")
            return head + flags.sub(mark("cli_password"), text[at:])
        low = max(scanned, at - REACH)
        for found in command.finditer(text, low, at + 1):  # + 1: the space after the name
            if found.end() <= at and _starts_command(text, found.start()):
                command_end = found.end()
        scanned = at
        if command_end < 0 or at - command_end > REACH:
            continue
        # an end of a command after the last command's name, read from there once: what was
        # read so far reaches back to it unbroken, and no end straddles where a name or a flag
        # starts, so this finds what reading each stretch before a flag for ends finds
        if command_end != since:
            since, clean, ended = command_end, command_end, False
        if not ended:
            ended = _COMMAND_END.search(text, clean, at) is not None
            clean = at
        if ended:
            continue
        value = flag.group("v")
        if value and not already_redacted(value) and not _reference(value):
            spans.append(flag.span("v"))
    return replace_spans(text, spans, "cli_password")


_REFERENCE = re.compile(r"\$\{?[A-Za-z_]\w*\}?|%\w+%|<[^<>]+>|\{\{[^{}]+\}\}")


def _reference(value: str) -> bool:
    """A variable or placeholder given as the password (`-p"$DB_PASS"`, `-p '%PW%'`, `<pw>`)."""
    return _REFERENCE.fullmatch(value.strip("\\\"'")) is not None


def _starts_command(text: str, at: int) -> bool:
    """A command's name starts a word, or follows a JSON `\\n` or `\\t`."""
    return (
        at == 0
        or not (text[at - 1].isalnum() or text[at - 1] in "_.-")
        or (text[at - 2 : at] in ("\\n", "\\t"))
    )


#: `-p VALUE` of a command not listed above: a password when a user's flag is on the same
#: command (`-u deploy -p …`, `--username ci -p …`), not a port, a path or a mapping.
_P_FLAG = re.compile(rf"-(?<![^\s]-)p[ \t]+{_VALUE}")
_USER_FLAG = re.compile(
    r"(?<![^\s])(?:-u|-U|-l|--user(?:name)?|--login)(?:[ \t]+|=)['\"]?[^\s\-'\"]"
)


def redact_user_password_flags(text: str, lowered: str) -> str:
    spans: list[tuple[int, int]] = []
    for flag in _P_FLAG.finditer(text):
        value = flag.group("v").strip("'\"")
        if not _password_value(value) or already_redacted(value):
            continue
        start, end = _command_around(text, flag.start(), flag.end())
        if _USER_FLAG.search(text, start, end):
            spans.append(flag.span("v"))
    return replace_spans(text, spans, "cli_password") if spans else text


#: `--value V` of a command storing a secret: one whose `--name` (or `-n`, `--key`) ends with a
#: secret's name (`/prod/db/pass`, `db-password`) or that says `SecureString`.
_VALUE_FLAG = re.compile(rf"--value(?:[ \t]+|=){_VALUE}")
_NAME_FLAG = re.compile(r"(?<![^\s])(?:--name|-n|--key)(?:[ \t]+|=)['\"]?(?P<name>[^\s'\"]{1,200})")
#: `… user add [alias] NAME PASSWORD`: a user created with its password by position (MinIO's
#: `mc admin user add`, `rabbitmqctl add_user`, `influx user create`-like commands).
_USER_ADD = re.compile(
    rf"(?<![\w-])(?:user[ \t]+(?:add|create)|add[_-]?user|create[_-]?user)(?:[ \t]+[^\s\-'\"|;&][^\s|;&]*){{1,2}}[ \t]+{_VALUE}(?=[ \t]*(?:$|\n|;|&&|\|)|[ \t]+-)"
)


def redact_stored_values(text: str, lowered: str) -> str:
    spans: list[tuple[int, int]] = []
    for flag in _VALUE_FLAG.finditer(text):
        start, end = _command_around(text, flag.start(), flag.end())
        command = text[start:end]
        names = [m.group("name").rstrip("/") for m in _NAME_FLAG.finditer(command)]
        stored = "securestring" in command.lower() or any(
            is_secret_name(name.replace("/", "_")) or is_secret_name(name.rsplit("/", 1)[-1])
            for name in names
        )
        value = flag.group("v").strip("'\"")
        if stored and len(value) >= 3 and not already_redacted(value) and not _reference(value):
            spans.append(flag.span("v"))
    return replace_spans(text, spans, "cli_secret") if spans else text


def redact_users_added(text: str, lowered: str) -> str:
    spans = [
        found.span("v")
        for found in finditer_from_starts(_USER_ADD, text, lowered)
        if _password_value(found.group("v").strip("'\""))
    ]
    return replace_spans(text, spans, "cli_password") if spans else text


def _command_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The command holding text[start:end]: its line, cut at `;`, `|`, `&&` (REACH each way)."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - REACH)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else min(line_end, end + REACH)
    first, last = line_start, line_end
    for boundary in _COMMAND_END.finditer(text, line_start, line_end):
        if boundary.end() <= start:
            first = boundary.end()
        elif boundary.start() >= end:
            last = boundary.start()
            break
    return first, last


def _password_value(value: str) -> bool:
    """Letters with digits or signs, six characters or more, no path, mapping or variable."""
    if len(value) < 6 or value[0] in "-$%<{(" or any(c in value for c in "/=:@\\"):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    signs = any(not c.isalnum() and c not in "._-" for c in value)
    return letters and (digits or signs)


def _shape(needles: tuple[str, ...], command: re.Pattern[str], flags: re.Pattern[str]) -> Shape:
    return Shape(
        "cli_password", needles, lambda text, lowered: redact_command(command, flags, text, lowered)
    )


COMMAND_SHAPES = (
    *(_shape(*family) for family in _COMPILED),
    Shape("cli_password", ("-p ", "-p\t"), redact_user_password_flags),
    Shape("cli_secret", ("--value",), redact_stored_values),
    Shape(
        "cli_password",
        (
            "user add",
            "user create",
            "adduser",
            "add_user",
            "add-user",
            "createuser",
            "create_user",
            "create-user",
        ),
        redact_users_added,
    ),
)
