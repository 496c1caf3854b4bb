"""The hook file of earlier installs: runs the same client as `onlooker/daemon/entry.py`."""

import sys

sys.path.insert(0, __file__.rpartition("/")[0].rpartition("/")[0] + "/daemon")
from client import leave, main  # type: ignore[import-not-found]  # onlooker/daemon, added above

leave(main())
