"""`redact.warm()`: what redaction compiles on first use, done at once; the same output.

Run in fresh interpreters, so that nothing was compiled before: after `warm()`, redacting the
corpora and onlooker's specs compiles no rule's pattern and builds no automaton again, and the
output equals that of an interpreter that did not warm.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROGRAM = """
import json, sys
from pathlib import Path
from onlooker.text import literal_starts as L, redact as R
root = Path(sys.argv[1])
warm = sys.argv[2] == "warm"
texts = [case["text"] for name in ("secrets.json", "controls.json")
         for case in json.loads((root / "tests/fixtures/redaction" / name).read_text())]
specs = "\\n".join(p.read_text() for p in sorted((root / "specs").glob("*.md")))
texts += [specs[at : at + 10_000] for at in range(0, len(specs), 10_000)]
builds = []
gate = R.COMPILED_GATE
compile_ = gate._compile
def counted():
    builds.append(1)
    return compile_()
if warm:
    R.warm()
asked = set(L.WANTED)
gate._compile = counted
rules = [shape.apply.__self__ for shape in R.SHAPES if hasattr(shape.apply, "__self__")]
compiled_before = sum("compiled" in rule.__dict__ for rule in rules)
out = [R.redact(text) for text in texts]
compiled_after = sum("compiled" in rule.__dict__ for rule in rules)
print(json.dumps({"out": out, "rules": len(rules), "before": compiled_before,
                  "after": compiled_after, "builds": len(builds),
                  "missing": sorted(w for w in L.WANTED if len(w) > 1 and w not in asked)}))
"""


def _run(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM, str(ROOT), mode],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_warm_compiles_every_rule_and_the_automaton_first_with_the_same_output() -> None:
    warmed, cold = _run("warm"), _run("cold")
    assert warmed["out"] == cold["out"]
    # warmed: every rule compiled before the first text, every word the texts asked for known
    # already, and the automaton never built again
    assert warmed["before"] == warmed["after"] == warmed["rules"]
    assert (warmed["builds"], warmed["missing"]) == (0, [])
    # cold: the texts compiled rules, asked for new words and built the automaton again (what
    # warming spares the first hooks)
    assert cold["before"] == 0 and cold["after"] != 0
    assert cold["missing"] and cold["builds"] != 0
