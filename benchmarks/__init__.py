"""onlooker benchmarks: `make bench` runs them all (benchmarks/run.py)."""
