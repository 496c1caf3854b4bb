"""The file every installed Claude Code hook runs: `python -I -S .../onlooker/daemon/entry.py`.

Kept tiny because a script run by path is compiled each time; the client it imports comes from
its cached bytecode. Isolated mode leaves this folder off sys.path, so it is added here.
"""

import sys

sys.path.insert(0, __file__.rpartition("/")[0] or ".")
from client import main  # type: ignore[import-not-found]  # this folder, added above

sys.exit(main())
