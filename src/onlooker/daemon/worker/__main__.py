"""`python -m onlooker.daemon.worker [--home PATH] [--idle SECONDS]`: drain the job queue until
idle."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ...store.home import data_home
from ._process import IDLE_SECONDS, serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onlooker.daemon.worker", description=__doc__)
    parser.add_argument(
        "--home", type=Path, default=None, help="data home (default: $ONLOOKER_HOME)"
    )
    parser.add_argument("--idle", type=float, default=None, help=f"seconds idle before exiting "
                        f"(default: $ONLOOKER_WORKER_IDLE or {IDLE_SECONDS:g})")  # fmt: skip
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(process)d %(levelname)s %(message)s"
    )
    return serve(args.home or data_home(), idle_seconds=args.idle)


if __name__ == "__main__":
    sys.exit(main())
