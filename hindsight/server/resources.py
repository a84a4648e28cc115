"""The two resources, memory://{agent_id}/profile and memory://{agent_id}/recent, as
Markdown; resources/list lists the pair of the agent a request acts for: the configured
agent's, or over HTTP the request's token's (services.CALLER)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mcp.server.mcpserver import Context
from mcp_types import ListResourcesResult, PaginatedRequestParams, Resource

from ..services import CALLER, Services, list_request
from .tools import services_of

RESOURCES = {
    "profile": "The agent's current semantic memories: the user's preferences and the facts it holds "
    "(with a project open: the global ones and that project's)",
    "recent": "The agent's 20 most recent current memories, newest first (with a project open: the global "
    "ones and that project's)",
}


async def profile(agent_id: str, ctx: Context) -> str:
    return await _profile_text(await services_of(ctx), agent_id, await ctx.mcp_server.open_projects.current(ctx))


async def recent(agent_id: str, ctx: Context) -> str:
    return await _recent_text(await services_of(ctx), agent_id, await ctx.mcp_server.open_projects.current(ctx))


def _in_view(memories: list[dict[str, Any]], opened: tuple[str, ...]) -> list[dict[str, Any]]:
    """With a project open, the global memories and the open project's; else all."""
    return [m for m in memories if not opened or m.get("project") in (None, *opened)]


def _heading(text: str, opened: tuple[str, ...]) -> list[str]:
    return [f"{text}, project {', '.join(opened)} open" if opened else text, ""]


async def _profile_text(s: Services, agent_id: str, opened: tuple[str, ...] = ()) -> str:
    agent = s.acting_for(agent_id)
    listed = (await s.memories.list(list_request(agent, memory_type="semantic", limit=200))).json()
    rows = sorted(_in_view(listed["memories"], opened), key=lambda m: (-m["importance"], m["created_at"]))[:100]
    lines = _heading(f"# What agent {agent} knows (semantic memories, most important first)", opened)
    lines += [f"- {_one_line(m)}" for m in rows] or ["(nothing yet)"]
    return "\n".join(lines)


async def _recent_text(s: Services, agent_id: str, opened: tuple[str, ...] = ()) -> str:
    agent = s.acting_for(agent_id)
    listed = (await s.memories.list(list_request(agent, limit=200 if opened else 20))).json()
    lines = _heading(f"# Recent memories of agent {agent} (newest first)", opened)
    lines += [
        f"- {m['created_at'][:16].replace('T', ' ')} [{m['memory_type']}] {_one_line(m)}"
        for m in _in_view(listed["memories"], opened)[:20]
    ] or ["(nothing yet)"]
    return "\n".join(lines)


def register(mcp: Any, agent_id: str) -> None:  # a HindsightServer
    """The templates for any agent, then the configured agent's two resources listed
    (clients offer listed resources to attach; templates alone show nothing); over HTTP the
    listing names the request's token's agent instead."""
    mcp.resource(
        "memory://{agent_id}/profile", name="profile", mime_type="text/markdown", description=RESOURCES["profile"]
    )(profile)
    mcp.resource(
        "memory://{agent_id}/recent", name="recent", mime_type="text/markdown", description=RESOURCES["recent"]
    )(recent)

    def reader(text):
        async def read() -> str:
            return await text(await mcp.opening.ready(), agent_id, mcp.open_projects.known())

        return read

    for kind, text in (("profile", _profile_text), ("recent", _recent_text)):
        mcp.resource(_uri(agent_id, kind), name=f"{agent_id} {kind}", mime_type="text/markdown",
                     description=RESOURCES[kind])(reader(text))  # fmt: skip

    async def listed(ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
        """Over HTTP the token's agent's pair (read through the templates); else the SDK's
        listing of the pair registered above."""
        caller = CALLER.get()
        if caller is None:
            return await mcp._handle_list_resources(ctx, params)
        return ListResourcesResult(resources=[
            Resource(uri=_uri(caller.agent_id, kind), name=f"{caller.agent_id} {kind}", mime_type="text/markdown",
                     description=RESOURCES[kind])
            for kind in RESOURCES
        ])  # fmt: skip

    mcp._lowlevel_server.add_request_handler("resources/list", PaginatedRequestParams, listed)


def _uri(agent_id: str, kind: str) -> str:
    return f"memory://{quote(agent_id, safe='')}/{kind}"


def _one_line(memory: dict[str, Any], limit: int = 300) -> str:
    text = " ".join(memory["content"].split())
    text = f"({memory['project']}) {text}" if memory.get("project") else text
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    flags = [f for f in memory.get("flags") or () if f in ("needs_review", "low_trust")]
    return f"{text} ({', '.join(flags)})" if flags else text
