"""Text handling shared by every layer: secret redaction, clipping that never halves a secret,
.gitignore rules and glob patterns.
"""
