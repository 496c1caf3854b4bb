"""The file every installed Claude Code hook runs: `python -I -S .../onlooker/daemon/entry.py`.

Kept tiny because a script run by path is compiled each time; the client it imports comes from
its cached bytecode. Isolated mode leaves this folder off sys.path, so it is added here. The
process ends with `leave` (client.py): once the answer is written nothing is left to tear down.
"""

import sys

sys.path.insert(0, __file__.rpartition("/")[0] or ".")
from client import leave, main  # type: ignore[import-not-found]  # this folder, added above

leave(main())
