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
    │   └── AgentRefused     a well-formed agent id the caller may not name (HINDSIGHT_ALLOWED_AGENTS,
    │                        or over HTTP the token's --allow)
    ├── NotFound             no such memory for this agent
    ├── StillStarting        a call came before the server's database and embedder were ready
    └── SealError            sealed content cannot be decrypted with the configured key
"""

from __future__ import annotations

import shlex
from typing import Iterable


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


def refused_by_token(own: str, allowed: Iterable[str], agent: str) -> str:
    """The refusal over HTTP, where the request's token pins the agent: its fix is a token
    that allows `agent` too (the server's environment does not decide it)."""
    allow = ",".join(sorted({*allowed, agent} - {"*"}))
    return (
        f"may only name this token's own agent {own!r}; acting for {agent!r} as well needs a token "
        f"made with `hindsight token create --agent {shlex.quote(own)} --allow {shlex.quote(allow)}`"
    )


class AgentRefused(InvalidInput):
    """A well-formed agent id the caller may not name: one HINDSIGHT_ALLOWED_AGENTS does not
    name, or over HTTP (`token`: the token's agent and the agents it allows) one the token
    does not allow. The words are the same whether that agent exists or not."""

    def __init__(self, field: str, agent: str, token: tuple[str, Iterable[str]] | None = None):
        self.agent = agent
        super().__init__(field, REFUSED_AGENT if token is None else refused_by_token(*token, agent))


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
