"""The operator's face: the `hindsight` command, its rendering, doctor, IDE configs and stats.
May import services and every part below it; nothing imports it but the entry point (and the UI's launcher, for the version).
"""
