"""Where the launched MCP server (`python -I -S .../mcp/entry.py`) looks for the `mcp` SDK before
`site` runs (mcp/sdk_found.py): where `site` puts it, with the version `site` and importlib find."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mcp

from onlooker.mcp.front import LISTING_FILE

SRC = str(Path(LISTING_FILE).parents[2])


def without_site(code: str) -> list[object]:
    """`code`'s printed JSON, run under `python -I -S` with onlooker's folder on sys.path."""
    prelude = f"import sys; sys.path.append({SRC!r}); from onlooker.mcp import sdk_found as f; "
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", prelude + code], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    found: list[object] = json.loads(done.stdout)
    return found


def test_the_sdk_is_found_where_site_puts_it_and_site_stays_out() -> None:
    version = json.loads(Path(LISTING_FILE).read_text(encoding="utf-8"))["mcp_version"]
    code = (
        "import json; print(json.dumps([f.sdk_folder(), f.sdk_installed(), "
        f"f.sdk_is({version!r}), f.sdk_is('0.0.1'), 'site' in sys.modules]))"
    )
    folder, installed, current, other, site_loaded = without_site(code)
    assert folder == str(Path(mcp.__file__).parents[1])  # where the SDK is imported from
    assert (installed, current, other, site_loaded) == (True, True, False, False)


def test_add_site_gives_the_path_a_normal_start_has() -> None:
    code = "import json; f.add_site(); print(json.dumps([sys.prefix, sys.path]))"
    prefix, path = without_site(code)
    normal = subprocess.run(
        [sys.executable, "-I", "-c", "import json, sys; print(json.dumps([sys.prefix, sys.path]))"],
        capture_output=True, text=True,
    )  # fmt: skip
    normal_prefix, normal_path = json.loads(normal.stdout)
    assert prefix == normal_prefix
    assert [p for p in path if p != SRC] == [p for p in normal_path if p != SRC]
