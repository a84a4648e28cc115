"""The exceptions hindsight raises. Driver and library errors are translated into these
at the boundary that meets them (hindsight.data.db for asyncpg, hindsight.embedders for the
embedder); the MCP server and the CLI turn them into messages for people and models.

    HindsightError
    ├── ConfigError          settings that cannot work (bad URL, unknown embedder)
    ├── DatabaseError        the database lacks pgvector, refused, or failed
    │   ├── DatabaseUnavailable  it cannot be reached (stopped, restarting, network)
    │   └── EmbedderMismatch the stored vectors come from another embedder
    ├── EmbedderError        the embedder could not be loaded or failed
    ├── InvalidInput         a caller's argument is wrong: names the field and what is allowed
    │   └── AgentRefused     a well-formed agent id that HINDSIGHT_ALLOWED_AGENTS does not name
    ├── NotFound             no such memory for this agent
    ├── StillStarting        a call came before the server's database and embedder were ready
    └── SealError            sealed content cannot be decrypted with the configured key
"""

from __future__ import annotations


class HindsightError(Exception):
    """Base of every error hindsight raises on purpose."""


class ConfigError(HindsightError):
    pass


class DatabaseError(HindsightError):
    pass


class DatabaseUnavailable(DatabaseError):
    pass


class EmbedderMismatch(DatabaseError):
    pass


class EmbedderError(HindsightError):
    pass


class InvalidInput(HindsightError):
    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


REFUSED_AGENT = (
    "may only name this server's own agent (HINDSIGHT_AGENT_ID); acting for another "
    "agent needs HINDSIGHT_ALLOWED_AGENTS in the server's environment"
)


class AgentRefused(InvalidInput):
    """A well-formed agent id that HINDSIGHT_ALLOWED_AGENTS does not name."""

    def __init__(self, field: str, agent: str):
        self.agent = agent
        super().__init__(field, REFUSED_AGENT)


class NotFound(HindsightError):
    def __init__(self, field: str, value: str, agent_id: str):
        self.field = field
        super().__init__(
            f"{field}: no memory with id {value} is visible to agent {agent_id!r} "
            "(it does not exist, was deleted, or belongs to another agent)"
        )


class SealError(HindsightError):
    pass


class StillStarting(HindsightError):
    pass
