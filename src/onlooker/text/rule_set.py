"""A maintained rule set, kept as data: gitleaks' default rules (`gitleaks.toml`, MIT, see
`gitleaks.LICENSE`), some 200 vendor token patterns, each gated by its keywords.

Update: `python -m onlooker.text.rule_set --update PATH` copies a newer `config/gitleaks.toml` in
after checking that every rule still loads (specs/redaction.md). Patterns are Go RE2; the few
constructs Python's `re` reads differently are translated here (`translate`).
"""

from __future__ import annotations

import math
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ._shape import Shape, already_redacted, keywords_first, mark, placeholder
from .folding import starts_haystack
from .literal_starts import ascii_sub
from .pattern_starts import literal_prefixes

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

RULES_FILE = Path(__file__).with_name("gitleaks.toml")
#: Rules whose family onlooker's own shapes cover with their context (names, commands, key
#: blocks), or whose pattern scans whole lines with `.*`: left out, said here rather than hidden.
LEFT_OUT = frozenset({
    "generic-api-key", "curl-auth-header", "curl-auth-user", "kubernetes-secret-yaml",
    "private-key", "jwt", "pkcs12-file", "vault-service-token",
})  # fmt: skip
_POSIX = {
    "[:alnum:]": "a-zA-Z0-9", "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9", "[:lower:]": "a-z",
    "[:upper:]": "A-Z", "[:xdigit:]": "0-9a-fA-F", "[:space:]": r"\s", "[:word:]": r"\w",
    "[:punct:]": r"!-/:-@\[-`{-~",
}  # fmt: skip


def translate(pattern: str) -> str:
    """A Go RE2 pattern as Python `re` reads it: a flag group `(?i)` after the start becomes a
    scoped group `(?i:…)` to the end of its enclosing group; `\\z` is `\\Z`; POSIX classes."""
    for posix, chars in _POSIX.items():
        pattern = pattern.replace(posix, chars)
    out: list[str] = []
    closes: list[int] = []  # depth at which each opened `(?i:` is closed
    depth = 0
    at = 0
    in_class = False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            pair = pattern[at : at + 2]
            out.append("\\Z" if pair == "\\z" else pair)
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[at + 1 : at + 2] == "^":
                out.append("[^")
                at += 2
            else:
                out.append("[")
                at += 1
            if pattern[at : at + 1] == "]":  # a `]` first in a class is a literal
                out.append("\\]")
                at += 1
            continue
        elif pattern.startswith("(?i)", at) and at > 0:
            out.append("(?i:")
            closes.append(depth)
            at += 4
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            while closes and closes[-1] == depth:
                closes.pop()
                out.append(")")
            depth -= 1
        out.append(char)
        at += 1
    out.extend(")" for _ in closes)
    return "".join(out)


_NAME_PREFIX = re.compile(r"^(\(\?i\))?\[\\w\.-\]\{0,50\}\?(\(\?i:\[\\w\.-\]\{0,50\}\?)?")


def _without_name_prefix(pattern: str) -> str:
    """gitleaks' keyword-context rules open with `[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?`, lazy runs
    that may match nothing and only widen the match leftwards: the secret group is the same
    without them, and the pattern is no longer tried through 50 characters at every position."""
    found = _NAME_PREFIX.match(pattern)
    if found is None:
        return pattern
    return (found.group(1) or "") + ("(?i:" if found.group(2) else "") + pattern[found.end() :]


_BOUNDARY_LITERAL = re.compile(r"^\\b\((?P<lit>[A-Za-z0-9_][A-Za-z0-9_-]*)(?![*+?{A-Za-z0-9_-])")


def _literal_first(pattern: str) -> str:
    """`\\b(sntryu_…` as `(sntryu_(?<!\\wsntryu_)…`: the same matches, but the engine jumps to
    the literal instead of trying every position."""
    found = _BOUNDARY_LITERAL.match(pattern)
    if found is None:
        return pattern
    literal = found.group("lit")
    return f"({literal}(?<!\\w{literal}){pattern[found.end() :]}"


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


@dataclass(frozen=True)
class Rule:
    """One rule of the set: its pattern (compiled when first needed), the group holding the
    secret, the least entropy a secret has, and what allows a match (regexes, stopwords)."""

    id: str
    pattern: str
    keywords: tuple[str, ...]
    group: int | None = None
    least_entropy: float = 0.0
    allow: tuple[tuple[re.Pattern[str], bool], ...] = ()  # (pattern, tried on the whole match)
    stopwords: tuple[str, ...] = field(default=())

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(
            keywords_first(_literal_first(translate(_without_name_prefix(self.pattern))))
        )

    @cached_property
    def prefixes(self) -> tuple[str, ...] | None:
        """The words every match starts with (literal_starts.literal_prefixes), or None."""
        return literal_prefixes(self.compiled)

    def apply(self, text: str, lowered: str) -> str:
        prefixes = self.prefixes
        if prefixes is not None:  # only where its words start
            haystack = starts_haystack(text, lowered)
            return ascii_sub(self.compiled, prefixes, self._replace, text, haystack)
        return self.compiled.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        group = self.group
        if group is None:
            group = next((i for i in range(1, len(match.groups()) + 1) if match.group(i)), 0)
        secret = match.group(group)
        if (
            not secret
            or already_redacted(secret)
            or placeholder(secret)
            or not self._secret(secret, match.group(0))
        ):
            return match.group(0)
        start, end = match.span(group)
        whole, offset = match.group(0), match.start()
        return f"{whole[: start - offset]}{mark(self.id)}{whole[end - offset :]}"

    def _secret(self, secret: str, whole: str) -> bool:
        if self.least_entropy and entropy(secret) < self.least_entropy:
            return False
        lowered = secret.lower()
        if any(word in lowered for word in self.stopwords):
            return False
        return not any(p.search(whole if on_match else secret) for p, on_match in self.allow)


def load_rules(path: Path = RULES_FILE) -> tuple[Rule, ...]:
    """The rules of a gitleaks config file, less LEFT_OUT and those without keywords."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    common = data.get("allowlist", {})
    shared_allow = tuple((re.compile(translate(p)), False) for p in common.get("regexes", ()))
    shared_stop = tuple(word.lower() for word in common.get("stopwords", ()))
    rules = []
    for entry in data.get("rules", ()):
        keywords = tuple(k.lower() for k in entry.get("keywords", ()))
        if entry["id"] in LEFT_OUT or "regex" not in entry or not keywords:
            continue
        allow: list[tuple[re.Pattern[str], bool]] = list(shared_allow)
        stop = list(shared_stop)
        for allowlist in entry.get("allowlists", ()):
            if allowlist.get("condition", "OR") != "OR" or allowlist.get("paths"):
                continue  # paths (and AND-ed conditions) say nothing about a piece of text
            on_match = allowlist.get("regexTarget") in ("match", "line")
            allow.extend((re.compile(translate(p)), on_match) for p in allowlist.get("regexes", ()))
            stop.extend(word.lower() for word in allowlist.get("stopwords", ()))
        rules.append(
            Rule(
                entry["id"],
                entry["regex"],
                keywords,
                entry.get("secretGroup"),
                float(entry.get("entropy", 0.0)),
                tuple(allow),
                tuple(stop),
            )
        )
    return tuple(rules)


def rule_shapes(rules: tuple[Rule, ...]) -> tuple[Shape, ...]:
    """One shape per rule, gated by its keywords, named by its id."""
    return tuple(Shape(rule.id, rule.keywords, _applier(rule)) for rule in rules)


def _applier(rule: Rule) -> Callable[[str, str], str]:
    return rule.apply


def _update(source: Path) -> int:
    """Copy a newer gitleaks config in, once every one of its rules compiles here."""
    rules = load_rules(source)
    for rule in rules:
        rule.compiled  # noqa: B018 - raises on a pattern this module cannot translate
    RULES_FILE.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    print(f"{len(rules)} rules from {source} -> {RULES_FILE}")
    return 0


if __name__ == "__main__" and sys.argv[1:2] == [
    "--update"
]:  # pragma: no cover - a maintainer's step
    sys.exit(_update(Path(sys.argv[2])))
