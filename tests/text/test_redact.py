"""Every secret shape is redacted; ordinary text is left alone; private spans never survive."""

from __future__ import annotations

import json
import re
from pathlib import Path

import blind_corpus
import families_corpus as FAMILIES
import pytest

from onlooker import ToolCall
from onlooker.text._shape import replace_group
from onlooker.text.redact import (
    PRIVATE,
    PRIVATE_MARK,
    SECRET_SHAPES,
    SHAPES,
    redact,
    redact_record,
    redact_value,
)
from onlooker.text.rule_set import load_rules

SECRETS = json.loads((Path(__file__).parents[1] / "fixtures/redaction/secrets.json").read_text())

# (kind, text containing the secret, the secret itself); fake values of the real shapes.
CASES = [
    (
        "private_key",
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----\n",
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo",
    ),
    (
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
    ),
    (
        "anthropic_key",
        "export KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd",
    ),
    (
        "openai_key",
        "client = OpenAI(api_key='sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345')",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    ),
    (
        "openai_key",
        "sk-AbCdEfGhIjKlMnOpQrSt1234567890abcdef in the log",
        "sk-AbCdEfGhIjKlMnOpQrSt1234567890abcdef",
    ),
    ("aws_access_key_id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws_secret_key",
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "github_token",
        "git clone https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/x/y",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    (
        "github_pat",
        "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ),
    ("gitlab_token", "glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCdEfGhIjKlMnOpQrSt"),
    (
        "slack_token",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "slack_webhook",
        "POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "stripe_key",
        "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "google_api_key",
        "https://maps.googleapis.com/?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
        "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    ),
    (
        "google_oauth_secret",
        "client_secret GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz12",
        "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz12",
    ),
    (
        "jwt",
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        "npm_token",
        "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    (
        "pypi_token",
        "password = pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
        "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
    ),
    (
        "huggingface_token",
        "HF_TOKEN hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    ),
    (
        "sendgrid_key",
        "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",
        "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",
    ),
    (
        "mailgun_key",
        "api: key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
        "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
    ),
    ("twilio_key", "SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef0123456789abcdef"),
    (
        "azure_storage_key",
        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    ),
    (
        "databricks_token",
        "dapi0123456789abcdef0123456789abcdef",
        "dapi0123456789abcdef0123456789abcdef",
    ),
    ("digitalocean_token", "dop_v1_" + "a1" * 32, "dop_v1_" + "a1" * 32),
    (
        "shopify_token",
        "shpat_0123456789abcdef0123456789abcdef",
        "shpat_0123456789abcdef0123456789abcdef",
    ),
    ("square_token", "sq0atp-AbCdEfGhIjKlMnOpQrStUv", "sq0atp-AbCdEfGhIjKlMnOpQrStUv"),
    (
        "discord_token",
        "bot.run('MTAxMjM0NTY3ODkwMTIzNDU2Nzg5.GhIjKl.AbCdEfGhIjKlMnOpQrStUvWxYz0')",
        "MTAxMjM0NTY3ODkwMTIzNDU2Nzg5.GhIjKl.AbCdEfGhIjKlMnOpQrStUvWxYz0",
    ),
    (
        "telegram_token",
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/getMe",
        "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0",
    ),
    ("groq_key", "gsk_" + "Ab1" * 18, "gsk_" + "Ab1" * 18),
    ("xai_key", "xai-" + "Zz9" * 20, "xai-" + "Zz9" * 20),
    ("replicate_token", "r8_" + "Q7" * 20, "r8_" + "Q7" * 20),
    ("perplexity_key", "pplx-" + "k3" * 24, "pplx-" + "k3" * 24),
    ("linear_key", "lin_api_" + "Xy5" * 14, "lin_api_" + "Xy5" * 14),
    (
        "resend_key",
        "RESEND=re_123abcDE_AbCdEfGhIjKlMnOpQrStUv",
        "re_123abcDE_AbCdEfGhIjKlMnOpQrStUv",
    ),
    (
        "bearer",
        "curl -H 'Authorization: Bearer abc.DEF-123_ghi~456/jkl+789'",
        "abc.DEF-123_ghi~456/jkl+789",
    ),
    (
        "basic_auth",
        "Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQxMjM=",
        "dXNlcm5hbWU6cGFzc3dvcmQxMjM=",
    ),
    (
        "url_password",
        "DATABASE_URL=postgresql+psycopg://postgres:hunter2sEcReT@db.example.com:5432/app",
        "hunter2sEcReT",
    ),
    (
        "url_password",
        "git remote add origin https://deploy:Pa55w0rd!x@git.example.org/repo.git",
        "Pa55w0rd!x",
    ),
    ("cli_secret", "mysql --password=Tr0ub4dor3 -u root", "Tr0ub4dor3"),
    ("assignment", "PGPASSWORD=s3cr3t-value psql -h db", "s3cr3t-value"),
    ("assignment", 'export MY_SERVICE_API_KEY="9f8e7d6c5b4a"', "9f8e7d6c5b4a"),
    ("assignment", '{"client_secret": "abcdef0123456789"}', "abcdef0123456789"),
    ("assignment", "db_password: correct-horse-battery", "correct-horse-battery"),
]


@pytest.mark.parametrize(
    ("kind", "text", "secret"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_secret_shapes_are_redacted(kind: str, text: str, secret: str) -> None:
    cleaned = redact(text)
    assert secret not in cleaned
    assert "[REDACTED:" in cleaned


def test_every_shape_of_its_own_is_tested() -> None:
    kinds = {kind for kind, _, _ in SECRET_SHAPES}
    assert len(kinds) >= 60
    tested = {kind for kind, _, _ in CASES}
    for case in SECRETS:
        tested |= set(re.findall(r"\[REDACTED:(\w+)\]", redact(case["text"])))
    assert kinds <= tested, kinds - tested
    for case in [*FAMILIES.CASES, *blind_corpus.CASES]:  # the families and blind corpora
        tested |= set(re.findall(r"\[REDACTED:(\w+)\]", redact(case.text)))
    rule_set = {rule.id for rule in load_rules()}  # tested as data: tests/text/test_rule_set.py
    assert {shape.kind for shape in SHAPES if shape.kind not in rule_set} <= tested


@pytest.mark.parametrize(
    "text",
    ["def test_login():\n    assert response.status_code == 200",
     "commit 3f2a1c9e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the parser",
     "id 123e4567-e89b-12d3-a456-426614174000 created",
     "max_tokens = 1024", "See https://example.com/docs/api-key-rotation for details",
     "ssh user@host.example.com", "The password field is empty", "sk-1 is a short name"],
)  # fmt: skip
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_private_spans_are_never_kept() -> None:
    assert redact("keep <private>my home address</private> this") == "keep [private] this"
    assert redact("open <PRIVATE>no closing tag, all of this goes") == "open [private]"


def test_values_and_records() -> None:
    data = {
        "command": "curl -H 'Authorization: Bearer tokentokentoken1234'",
        "n": 3,
        "list": ["AKIAIOSFODNN7EXAMPLE"],
    }
    cleaned = redact_value(data)
    assert "tokentokentoken1234" not in str(cleaned) and cleaned["n"] == 3
    call = ToolCall(tool="Bash", input=data, output="AWS AKIAIOSFODNN7EXAMPLE", error=None)
    safe = redact_record(call)
    assert "AKIAIOSFODNN7EXAMPLE" not in safe.to_json()
    plain = ToolCall(tool="Read", input={"file_path": "/a.py"})
    assert redact_record(plain) is plain


def _reference(text: str) -> str:
    """Every shape applied in turn with no shortcuts: no needles, no hints, the shapes of their
    own as their plain patterns. What `redact` must equal."""
    text = PRIVATE.sub(PRIVATE_MARK, text)
    plain = {
        kind: (re.compile(pattern, re.DOTALL), group) for kind, pattern, group in SECRET_SHAPES
    }
    rule_set = {rule.id for rule in load_rules()}
    for shape in SHAPES:
        if shape.kind in rule_set:  # a rule of the set is its keywords and its pattern (gitleaks)
            if any(keyword in text.lower() for keyword in shape.needles):
                text = shape.apply(text, text.lower())
        elif shape.kind in plain:
            compiled, group = plain[shape.kind]
            if group == 0:
                text = compiled.sub(f"[REDACTED:{shape.kind}]", text)
            else:
                text = compiled.sub(lambda m, g=group, k=shape.kind: replace_group(m, g, k), text)
        else:
            text = shape.apply(text, text.lower())
    return text


def test_the_shortcuts_change_nothing() -> None:
    """Needles, hints and literal-first patterns only skip work: same output as the plain loop."""
    import onlooker

    code = "\n".join(
        path.read_text() for path in sorted(Path(onlooker.__file__).parent.rglob("*.py"))[:40]
    )
    secrets = "\n".join([*(text for _, text, _ in CASES), *(case["text"] for case in SECRETS)])
    mixed = code[:20_000] + "\n" + secrets + "\n" + code[20_000:40_000] + secrets.upper()
    for sample in [mixed, secrets, *(text for _, text, _ in CASES)]:
        assert redact(sample) == _reference(sample)


def test_url_passwords_match_the_plain_pattern_at_the_edges() -> None:
    samples = [
        "a-b1.c+d://user:pw@host and x://u:p@h",
        "_x://u:p@h 1a://u:p@h éx://u:p@h Ab://u:p@h -://u:p@h",
        "s3://u:p@h://v:q@h git+ssh://me:secret@example.org:22/x",
        "redis://:nopw@h  ftp://u:[REDACTED:bearer]@h  mailto://a@b  http://u:p/x@h",
    ]
    for sample in samples:
        assert redact(sample) == _reference(sample)


def test_a_url_password_in_long_text_takes_linear_time() -> None:
    """Once a `x://u:p@` is present, scheme-like runs (`a-a-a-…`) must not cost quadratic time."""
    import time

    def seconds(length: int) -> float:
        text = "see https://user:pw@host " + "a-" * (length // 2)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            cleaned = redact(text)
            best = min(best, time.perf_counter() - start)
        assert "https://user:[REDACTED:url_password]@host" in cleaned
        return best

    baseline = seconds(10_000)
    # 20 times the text: about 20 times the time when linear, 400 times when quadratic; the
    # bound sits between them, wide enough for a loaded 2-core machine
    assert seconds(200_000) < 150 * baseline


@pytest.mark.parametrize(
    "text", ["Authorization: Token  ", "authorization= Bearer \t ", "'authorization': x  "]
)
def test_an_authorization_scheme_followed_by_spaces_only_is_left_alone(text: str) -> None:
    assert redact(text) == text
