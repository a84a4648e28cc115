"""hindsight: long-term memory for LLM agents, served over MCP on PostgreSQL + pgvector.

The parts, from the faces down (each folder's docstring says what it may import):
server/ cli/ ui/ (faces) -> services.py (the one composition) -> store/ recall/ upkeep/
-> data/ embedders/ -> rules/ (pure). config, logs and errors serve them all.
"""

__version__ = "0.1.0"  # the one place it is written: pyproject.toml reads it (tool.setuptools.dynamic)


def version() -> str:
    """This package's version, without importlib.metadata (20 ms of imports at every start)."""
    return __version__
