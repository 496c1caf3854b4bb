"""The maintained rule set (gitleaks' default rules, vendored as data): it loads with the
standard library, every rule compiles in Python's `re`, its license travels with it, and it is
in the package data; the RE2 constructs Python reads differently are translated."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from onlooker.text.redact import redact
from onlooker.text.rule_set import LEFT_OUT, RULES_FILE, entropy, load_rules, translate

ROOT = Path(__file__).parents[2]


def test_every_rule_loads_and_compiles() -> None:
    rules = load_rules()
    data = tomllib.loads(RULES_FILE.read_text())
    assert len(rules) >= 200
    assert {r["id"] for r in data["rules"]} - {r.id for r in rules} <= LEFT_OUT
    for rule in rules:
        assert rule.keywords and all(k == k.lower() for k in rule.keywords)
        assert isinstance(rule.compiled, re.Pattern)


def test_the_license_and_the_package_data() -> None:
    notice = RULES_FILE.with_name("gitleaks.LICENSE").read_text()
    assert "MIT License" in notice and "gitleaks/gitleaks" in notice
    assert "text/gitleaks.toml" in (ROOT / "pyproject.toml").read_text()


def test_re2_constructs_are_translated() -> None:
    assert translate(r"\b(p8e-(?i)[a-z0-9]{32})") == r"\b(p8e-(?i:[a-z0-9]{32}))"
    assert translate(r"dp\.pt\.(?i)[a-z0-9]{43}") == r"dp\.pt\.(?i:[a-z0-9]{43})"
    assert translate(r"(?:[^\w-]|\z)") == r"(?:[^\w-]|\Z)"
    assert translate(r"\b(pat[[:alnum:]]{14})") == r"\b(pat[a-zA-Z0-9]{14})"
    assert re.fullmatch(translate(r"x(?i)AB(c)"), "xab" + "c")


def test_a_rule_keeps_its_entropy_and_allowlist() -> None:
    assert entropy("aaaa") == 0.0 and entropy("abcd") == 2.0
    low = "rubygems_" + "0" * 48  # the rule asks for entropy 2: one digit repeated is no token
    assert redact(f"see {low} ") == f"see {low} "
    high = "rubygems_" + "0a1b2c3d4e5f" * 4
    assert redact(f"see {high} ") == "see [REDACTED:rubygems-api-token] "


def test_vendor_tokens_of_the_rule_set_are_redacted() -> None:
    samples = {
        "infracost-api-token": "ico-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY",
        "prefect-api-token": "pnu_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
        "readme-api-token": "rdme_"
        + "ab3de5fg7hj9kl1mn3pq5rs7tu9vw1xy3za5bc7de9fg1hj3kl5mn7pq9rs1tu3vw5xy7z",
    }
    for rule, token in samples.items():
        assert redact(f"value: {token} ") != f"value: {token} ", rule
        assert token not in redact(f"value: {token} ")
