"""Glob patterns as regular expressions, for the files a reviewer watches (`src/**/*.py`).

`*` and `?` stay within one path part, `**` spans parts, `[...]` is a character class, `\\` escapes.
"""

from __future__ import annotations

import re


def glob_regex(glob: str) -> str:
    """A regular expression for a `/`-separated glob: `*` and `?` stay within one part, `**` spans
    parts (`a/**/b` also matches `a/b`)."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                start = i == 0 or glob[i - 1] == "/"
                end = i + 2 == n or glob[i + 2] == "/"
                if start and end:
                    if i + 2 == n:
                        out.append(".*")
                        i += 2
                    else:
                        out.append("(?:.*/)?")
                        i += 3
                    continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1)
            if close == -1:
                out.append(re.escape(c))
            else:
                inner = glob[i + 1 : close]
                if inner[:1] in ("!", "^"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner.replace(chr(92), chr(92) * 2)}]")
                i = close
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)
