"""SQL files of hindsight, loaded by name (see hindsight.data.queries)."""
