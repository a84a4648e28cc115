"""Pure rules: what to store, how to score and decay, guards, dedup, time phrases, validation, secret detection.
No I/O and no clock: import nothing of ours but errors (and each other).
"""
