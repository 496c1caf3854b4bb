"""The Runtime: the one place where a host's event becomes recorded, observed, delivered feedback.

Every host (the Claude Code hook service, the SDK adapters, plain loops, opencode, Amplifier)
translates its own input into an `Arrival` and the Runtime's `Delivery` back into its own output.
"""
