"""The operator's face: the `hindsight` command (main runs it, parser reads it, commands and
offline do it), its rendering, doctor, IDE configs, stats.
Imports services and the parts below; nothing imports it but the console script.
"""
