"""The detached worker: drains the store's job queue so no hook waits on a model.

`ensure_worker(home)` starts `python -m onlooker.daemon.worker` for a data home unless one
already runs (one per data home, held by a lock file); it survives the process that started it and
exits once idle. A job's kind names its handler in HANDLERS (`"module:function"`) or one a plugin
registers (`onlooker.jobs`), called as `handle(job, ctx)` with a WorkerContext (`.store`,
`.clock`, `.model(spec)`).
"""

from ._handlers import HANDLERS
from ._launch import ensure_worker, worker_pid
from ._process import WorkerContext, run_job, serve

__all__ = ["HANDLERS", "WorkerContext", "ensure_worker", "run_job", "serve", "worker_pid"]
