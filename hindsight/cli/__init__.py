"""The operator's face: the `hindsight` command, its rendering, doctor, IDE configs, stats.
Imports services and the parts below; nothing imports it but the console script.
"""
