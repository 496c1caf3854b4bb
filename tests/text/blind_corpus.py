"""The blind corpus (tests/fixtures/redaction/blind_*.py), loaded by path: `CASES` (secrets with
their family and carrier), `CONTROLS`, and `leaks` / `changed` that say what `redact` missed or
touched, through the text and through the hook input that carries it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from carriers import hook_input

from onlooker.text.redact import redact, redact_value

FIXTURES = Path(__file__).parents[1] / "fixtures" / "redaction"


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_load("blind_tokens")
_SECRETS = _load("blind_secrets")
_load("blind_config")
_load("blind_shell")
CONTROLS: list[Any] = _load("blind_controls").CONTROLS
_load("blind_heldout")
_load("blind_round3")
_ROUND4 = _load("blind_round4")
_ROUND5 = _load("blind_round5")
_ROUND6 = _load("blind_round6")
_ALL: list[Any] = _SECRETS.CASES
#: The fourth held-out set (written before reading the rules), the fifth (after its changes) and
#: the sixth (after the fifth's).
ROUND4 = _ALL[_ROUND4.START : _ROUND5.START]
ROUND4_CONTROLS = CONTROLS[_ROUND4.CONTROLS_START : _ROUND5.CONTROLS_START]
ROUND5 = _ALL[_ROUND5.START : _ROUND6.START]
ROUND5_CONTROLS = CONTROLS[_ROUND5.CONTROLS_START : _ROUND6.CONTROLS_START]
ROUND6 = _ALL[_ROUND6.START :]
ROUND6_CONTROLS = CONTROLS[_ROUND6.CONTROLS_START :]
#: Held-out cases that still leak: kept, and checked to leak (a change that catches one says so).
RESIDUAL: list[Any] = [_ALL[at] for at in _ROUND6.RESIDUAL]
#: Every other case: 0 leaks.
CASES: list[Any] = [case for at, case in enumerate(_ALL) if at not in set(_ROUND6.RESIDUAL)]


def _found(text: str, secrets: tuple[str, ...]) -> list[str]:
    return [s for s in secrets if s in text or json.dumps(s)[1:-1] in text]


def leaks(case: Any) -> list[str]:
    """The secrets of `case` still present after `redact` on its text (after its command, if a
    command printed it) or `redact_value` on its hook input."""
    payload = hook_input(case.carrier, case.text, case.command)
    # a command's output, as text, is read after the command (`$ cmd`), as a transcript shows it
    text = f"$ {case.command}\n{case.text}" if case.command else case.text
    left = _found(redact(text), case.secrets)
    left += _found(json.dumps(redact_value(payload)), case.secrets)
    return sorted(set(left))


def changed(control: Any) -> bool:
    """Whether redaction touched a look-alike, as text or inside its hook input."""
    payload = hook_input(control.carrier, control.text, control.command)
    text = f"$ {control.command}\n{control.text}" if control.command else control.text
    return bool(redact(text) != text or redact_value(payload) != payload)
