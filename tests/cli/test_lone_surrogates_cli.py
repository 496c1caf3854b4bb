"""The command line stores no text UTF-8 cannot encode (specs/store.md, "Text that cannot be
encoded"): arguments holding bytes that are not UTF-8, requests from a file or stdin with a lone
surrogate escape or such bytes, all become U+FFFD; a path argument is kept byte for byte. What was
stored lists, and `reindex` rebuilds it the same from the journal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ONLOOKER = os.fsencode(Path(sys.executable).with_name("onlooker"))
FFFD = "\ufffd"


def onlooker(*args: bytes | str, stdin: bytes = b"", cwd: Path) -> dict[str, Any]:
    done = subprocess.run([ONLOOKER, *args], input=stdin, capture_output=True, cwd=cwd,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_text_that_cannot_be_encoded_is_stored_as_u_fffd(
    tmp_path: Path, onlooker_home: Path
) -> None:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    added = onlooker(b"observations", b"add", b"leak in the \xed\xa0\x80 parser \xff", b"--observer",
                     b"fuzz\xfe", b"--json", cwd=root)  # fmt: skip
    assert added["observations"][0]["content"] == f"leak in the {FFFD * 3} parser {FFFD}"
    assert added["observations"][0]["observer"] == f"fuzz{FFFD}"

    request = {"operation": "create_batch", "observations": [
        {"observer": "file", "content": "from a file \ud800", "metadata": {"k\udc00": "v"}}]}  # fmt: skip
    folder = tmp_path / os.fsdecode(b"requests-\xff")  # a path that is not UTF-8: kept as it is
    folder.mkdir()
    (folder / "request.json").write_bytes(json.dumps(request).encode().replace(b"file", b"f\xffle"))
    from_file = onlooker(b"observations", b"call", b"@" + os.fsencode(folder / "request.json"),
                         cwd=root)  # fmt: skip
    assert from_file["observations"][0]["content"] == f"from a f{FFFD}le {FFFD}"
    assert from_file["observations"][0]["metadata"] == {f"k{FFFD}": "v"}

    request["observations"][0]["content"] = "from stdin \udfff"
    from_stdin = onlooker("observations", "call", "-", stdin=json.dumps(request).encode(),
                          cwd=root)  # fmt: skip
    assert from_stdin["observations"][0]["content"] == f"from stdin {FFFD}"

    listed = onlooker("observations", "list", "--json", cwd=root)
    contents = sorted(o["content"] for o in listed["observations"])
    assert len(contents) == 3 and all(FFFD in c for c in contents)
    rebuilt = subprocess.run([ONLOOKER, b"reindex", b"--fresh"], capture_output=True, cwd=root,
                             timeout=120)  # fmt: skip
    assert rebuilt.returncode == 0, rebuilt.stderr
    again = onlooker("observations", "list", "--json", cwd=root)
    assert sorted(o["content"] for o in again["observations"]) == contents
