"""The file the launcher runs for `onlooker mcp`: `python -I -S .../onlooker/mcp/entry.py mcp ...`.

Kept tiny because a script run by path is compiled each time (the front it imports comes from its
cached bytecode). Isolated mode leaves no folder of onlooker's on sys.path, and without `site` no
site-packages either: the folder holding the `onlooker` package is added last (after the standard
library, which nothing installed may shadow); `site` comes at the hand-over (mcp/front.py).
"""

import sys

sys.path.append(__file__.rpartition("/")[0].rpartition("/")[0].rpartition("/")[0] or "/")
from onlooker.mcp.front import serve_isolated

if not serve_isolated(sys.argv[1:]):  # not the front's to serve: the command line, with `site`
    from onlooker.cli import main

    main(sys.argv[1:])
