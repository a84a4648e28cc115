"""Pure rules: what to store, how to score and decay, guards, dedup, time phrases, validation, secrets.
No I/O and no clock: imports nothing of ours but errors (and other rules).
"""
