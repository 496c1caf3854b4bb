"""Literals that a secret's name points to by their place rather than by a `name = value`: a
call given a name and a value (`Header.Set("X-Vault-Token", "…")`), a module called as soon as it
is loaded (`require('twilio')(sid, '…')`), a Terraform variable's default under a secret's name,
an `INSERT` row's value under a secret-named column, and a GraphQL variable passed to a
secret-named argument (`login(password: $p)` with `"variables": {"p": "…"}`).
"""

# ruff: noqa: E501 - each shape reads best as one pattern on one line
from __future__ import annotations

import re

from ._shape import Shape, mark, replace_spans
from .code_literals import _ARG, _PUBLISHABLE, _literal, _replaced
from .literal_starts import sub_from_starts
from .secret_names import is_secret_name

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: `INSERT INTO t (a, password) VALUES ('…', '…')`: the columns, then one row of values.
_INSERT = re.compile(
    r"""(?i)insert\s+into\s+[\w."`\[\]]{1,128}\s*\((?P<columns>[^()\n]{1,400})\)\s*values\s*\((?P<values>[^()\n]{1,2000})\)"""
)
_SQL_VALUE = re.compile(r"""\s*(?:N?'(?P<v>(?:[^'\n]|'')*)'|(?P<other>[^,]*))\s*(?:,|$)""")


def redact_inserts(text: str, lowered: str) -> str:
    """Each quoted value of an `INSERT` row whose column is named for a secret."""

    def replace(match: re.Match[str]) -> str:
        columns = [c.strip().strip('"`[]') for c in match.group("columns").split(",")]
        values = list(_SQL_VALUE.finditer(match.group("values")))
        whole, offset = match.group(0), match.start("values") - match.start()
        pieces, done = [], 0
        for column, value in zip(columns, values, strict=False):
            literal = value.group("v")
            if literal is None or not is_secret_name(column) or not _literal(literal):
                continue
            start = offset + value.start("v")
            pieces.append(whole[done:start] + mark("sql_password"))
            done = start + len(literal)
        return "".join(pieces) + whole[done:] if pieces else whole

    return sub_from_starts(_INSERT, replace, text, lowered)


#: A module called as soon as it is loaded: `require('twilio')(sid, token)`,
#: `require('stripe')('sk_…')`; its arguments are a vendor client's credentials.
_REQUIRED_CALL = re.compile(
    r"""require\(\s*["'][\w@/.-]{1,100}["']\s*\)\s*\((?P<args>[^()\n]{1,400})\)"""
)


#: A Terraform variable named for a secret and its default: `variable "db_pass" { default = "…" }`.
_VARIABLE_DEFAULT = re.compile(
    r'variable[ \t]+"(?P<name>[\w-]{1,100})"[ \t]*\{[^{}]{0,400}?\bdefault[ \t]*=[ \t]*"(?P<v>[^"\n]{1,512})"'
)


def redact_variable_defaults(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if not is_secret_name(match.group("name")) or not _literal(match.group("v")):
            return match.group(0)
        return _replaced(match, "v", "code_literal")

    return _VARIABLE_DEFAULT.sub(replace, text)


#: A call given a name and a value: `req.Header.Set("X-Vault-Token", "…")`, `os.Setenv("DB_PASS",
#: "…")`, `headers.append('X-Api-Key', '…')`, `conf.set("password", "…")`.
_NAME_VALUE_CALL = re.compile(
    r"""\((?P<q>["'])(?P<name>[A-Za-z_][\w.-]{1,100})(?P=q)[ \t]*,[ \t]*(?P<q2>["'])(?P<v>[^"'\n]{1,512})(?P=q2)[ \t]*\)"""
)


def redact_name_value_calls(text: str, lowered: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if not is_secret_name(match.group("name")) or not _literal(match.group("v")):
            return match.group(0)
        return _replaced(match, "v", "code_literal")

    return _NAME_VALUE_CALL.sub(replace, text)


def redact_required_calls(text: str, lowered: str) -> str:
    """Each literal argument of a module called on load that reads as a random credential:
    16 characters or more, letters with digits, no spaces (not a region, a URL or a name)."""

    def replace(match: re.Match[str]) -> str:
        whole, offset = match.group(0), match.start("args") - match.start()
        pieces, done = [], 0
        for arg in _ARG.finditer(match.group("args")):
            value = arg.group("v")
            if value is None or not _credential_literal(value):
                continue
            start = offset + arg.start("v")
            pieces.append(whole[done:start] + mark("code_literal"))
            done = start + len(value)
        return "".join(pieces) + whole[done:] if pieces else whole

    return _REQUIRED_CALL.sub(replace, text)


def _credential_literal(value: str) -> bool:
    return (
        len(value) >= 16
        and _literal(value)
        and not value.startswith(_PUBLISHABLE)
        and not any(c in value for c in " /:.")
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


#: A GraphQL argument given a variable (`password: $p`), found from its `$` (the name is read
#: backwards from there), and the variable's value in the request's `variables` (`"p": "…"`,
#: perhaps JSON-escaped), looked for after the word.
_GRAPHQL_VARIABLE = re.compile(r":[ \t]*\$(?P<var>[A-Za-z_]\w{0,100})")
_ARGUMENT_BEFORE = re.compile(r"(?<![\w$])[A-Za-z_]\w{0,100}[ \t]*$")
GRAPHQL_REACH = 4000


def redact_graphql_variables(text: str, lowered: str) -> str:
    at = lowered.find("variables")
    if at < 0 or "$" not in text:
        return text
    spans: list[tuple[int, int]] = []
    for found in _GRAPHQL_VARIABLE.finditer(text, max(0, at - GRAPHQL_REACH), at):
        argument = _ARGUMENT_BEFORE.search(text, max(0, found.start() - 101), found.start())
        if argument is None or not is_secret_name(argument.group(0).strip()):
            continue
        value = re.compile(
            rf'\\?"{re.escape(found.group("var"))}\\?"[ \t]*:[ \t]*\\?"(?P<v>[^"\\\n]{{1,512}})\\?"'
        ).search(text, at, at + GRAPHQL_REACH)
        if value is not None and _literal(value.group("v")):
            spans.append(value.span("v"))
    return replace_spans(text, sorted(set(spans)), "secret_field") if spans else text


PLACED_SHAPES = (
    Shape("code_literal", ("require(",), redact_required_calls),
    Shape("code_literal", ('("', "('"), redact_name_value_calls),
    Shape("code_literal", ("variable",), redact_variable_defaults),
    Shape("sql_password", ("insert into",), redact_inserts),
    Shape("secret_field", ("variables",), redact_graphql_variables),
)
