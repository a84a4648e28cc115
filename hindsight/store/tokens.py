"""Bearer tokens of the HTTP transport: create (shown once), list, revoke, and check the
one a request presents (rules.tokens holds the form and the digest)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..data.db import Database
from ..errors import InvalidInput, NotFound
from ..rules import tokens
from ..rules import validate as v


@dataclass(frozen=True)
class Caller:
    """Whom a request's token lets it act for: its agent, and the others it may name."""

    agent_id: str
    allowed_agents: frozenset[str]


async def create(
    db: Database, agent_id: Any, *, allow: list[str] = (), name: str | None = None, expires: str | None = None,
    now: datetime,
) -> dict[str, Any]:  # fmt: skip
    """A new token for `agent_id`; the token itself is in the answer and nowhere else."""
    agent = v.agent_id(agent_id, "agent")
    allowed = sorted({a if a == "*" else v.agent_id(a, "allow") for a in allow})
    name = v.identifier("name", name, max_bytes=200)
    lifetime = tokens.lifetime(expires)
    token = tokens.from_bytes(secrets.token_bytes(32))
    expires_at = now + lifetime if lifetime else None
    row = await db.fetchrow("token_insert", tokens.digest(token), agent, allowed, name, expires_at)
    return {"token": token, "id": str(row["id"]), "agent_id": agent, "allowed_agents": allowed, "name": name,
            "expires_at": expires_at.isoformat() if expires_at else None}  # fmt: skip


async def listed(db: Database) -> list[dict[str, Any]]:
    rows = await db.fetch("token_list")
    return [{k: (str(val) if k == "id" else val.isoformat() if isinstance(val, datetime) else val)
             for k, val in dict(r).items()} for r in rows]  # fmt: skip


async def revoke(db: Database, which: str) -> dict[str, Any]:
    """Revoke one token by its id (or a prefix of at least 8 characters) or its name."""
    which = v.text("token", which, max_bytes=200)
    if len(which) < 8 and not which.isidentifier():
        raise InvalidInput("token", "give its name or at least 8 characters of its id")
    rows = await db.fetch("token_revoke", which)
    if not rows:
        raise NotFound(f"no token that is not already revoked has id or name {which!r}")
    return {"revoked": [{"id": str(r["id"]), "name": r["name"], "agent_id": r["agent_id"]} for r in rows]}


async def caller(db: Database, presented: str, now: datetime) -> Caller | None:
    """The caller a presented token stands for, or None (malformed, unknown, expired, revoked)."""
    if not tokens.well_formed(presented):
        return None
    row = await db.fetchrow("token_by_hash", tokens.digest(presented))
    if row is None or not tokens.usable(row["expires_at"], row["revoked_at"], now):
        return None
    if row["last_used"] is None or (now - row["last_used"]).total_seconds() > 60:
        await db.execute("token_used", row["id"], now)
    return Caller(row["agent_id"], frozenset(row["allowed_agents"]))
