"""The four memory types (layers), on their own so that the command line's parser can name
them for --type without loading the rules that check text (tests/unit/test_layout.py)."""

MEMORY_TYPES = ("working", "episodic", "semantic", "procedural")
