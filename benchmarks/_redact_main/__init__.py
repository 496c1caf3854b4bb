"""onlooker/text/'s redaction as it was before issue 26 (the families corpus), frozen here so
benchmarks/bench_redact.py measures it beside today's in one run. Not imported by onlooker."""
