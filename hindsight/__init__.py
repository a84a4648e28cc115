"""hindsight: long-term memory for LLM agents, served over MCP on PostgreSQL + pgvector.

The parts, from the faces down (each folder's docstring says what it may import):
server/ cli/ ui/ (faces) -> services.py (the one composition) -> store/ recall/ upkeep/
-> data/ embedders/ -> rules/ (pure). config, logs and errors serve them all.
"""


def version() -> str:
    """The installed package's version ("unknown" in a checkout that was never installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("hindsight")
    except PackageNotFoundError:
        return "unknown"
