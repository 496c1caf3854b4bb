"""Long-lived helpers of the hook path, one of each per data home: the hook service (`hookd`) that
keeps sessions warm, the detached `worker` that drains the job queue, and the tiny standard-library
`client` every hook runs. Both daemons start on demand, hold one single-instance lock and exit idle.
"""
