"""Bearer tokens of the HTTP transport: create (shown once), list, revoke, and check the
one a request presents (rules.tokens holds the form and the digest)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..data.db import Database
from ..errors import InvalidInput
from ..rules import tokens
from ..rules import validate as v
from ..rules.privacy import shown


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


_ID_PREFIX = re.compile(r"[0-9a-f-]{8,36}")


async def revoke(db: Database, which: str) -> dict[str, Any]:
    """Revoke one token: `which` is its exact name or a literal prefix of its id (8 or more
    hexadecimal digits and dashes, as `hindsight token list` shows). More than one token
    matching, none, or one already revoked: refused, naming what matched."""
    which = v.text("token", which, max_bytes=200)
    prefix = which.lower() if _ID_PREFIX.fullmatch(which.lower()) else None
    found = await db.fetch("token_find", prefix, which)
    live = [r for r in found if r["revoked_at"] is None]
    if not found:
        raise InvalidInput("token", _unknown(which, prefix))
    if not live:
        raise InvalidInput("token", f"{_listed(found)} {'is' if len(found) == 1 else 'are'} already revoked")
    if len(live) > 1:
        raise InvalidInput(
            "token",
            f"{shown(which)} matches {len(live)} tokens: {_listed(live)}; give more of the id of the one to revoke",
        )
    rows = await db.fetch("token_revoke", live[0]["id"])
    if not rows:  # revoked by another command meanwhile
        raise InvalidInput("token", f"{_listed(live)} is already revoked")
    return {"revoked": [{"id": str(r["id"]), "name": r["name"], "agent_id": r["agent_id"]} for r in rows]}


def _unknown(which: str, prefix: str | None) -> str:
    if prefix is not None:
        return f"no token has an id starting with {which!r} or the name {which!r}"
    return (
        f"no token is named {shown(which)} (or give 8 or more hexadecimal digits of its id, "
        "as `hindsight token list` shows)"
    )


def _listed(rows: list) -> str:
    """Tokens as `hindsight token list` shows them: id prefix, name and agent."""
    return ", ".join(f"{str(r['id'])[:8]} ({r['name'] or 'no name'}, agent {r['agent_id']})" for r in rows)


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
