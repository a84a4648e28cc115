"""MCP's conventions over stdio, with the SDK's client: every tool has a title and annotations
(reads read-only, delete destructive, none open-world), serverInfo carries the package's
version, completion/complete offers the prompt's languages and only the agents the server may
act for, and logging/setLevel is answered."""

from __future__ import annotations

from mcp.types import PromptReference, ResourceTemplateReference
from mcp_client import mcp_client, server_env

from hindsight import version


async def test_titles_annotations_version_completion_and_log_level(db_url):
    env = server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="dev", HINDSIGHT_ALLOWED_AGENTS="ops,docs")
    async with mcp_client(env) as c:
        assert c.session.server_info.version == version()  # not "" (the package's version)
        tools = {t.name: t for t in (await c.session.list_tools()).tools}
        assert len(tools) == 9 and all(t.title and t.annotations for t in tools.values())
        assert all(t.annotations.open_world_hint is False for t in tools.values())
        reads = {n for n, t in tools.items() if t.annotations.read_only_hint}
        assert reads == {"retrieve_memory", "get_memory", "list_memories"}
        assert tools["delete_memory"].annotations.destructive_hint is True
        assert tools["store_memory"].annotations.destructive_hint is False
        assert tools["invalidate_memory"].annotations.idempotent_hint is True

        lang = await c.session.complete(
            PromptReference(type="ref/prompt", name="memory_guidance"), {"name": "language", "value": ""}
        )
        assert lang.completion.values == ["en", "zh"]
        template = ResourceTemplateReference(type="ref/resource", uri="memory://{agent_id}/profile")
        agents = await c.session.complete(template, {"name": "agent_id", "value": ""})
        assert agents.completion.values == ["dev", "docs", "ops"]  # its own and the allow-list: no one else
        some = await c.session.complete(template, {"name": "agent_id", "value": "do"})
        assert some.completion.values == ["docs"]

        await c.session.set_logging_level("debug")  # answered, not "method not found"
        await c.call("store_memory", content="The release train leaves every second Thursday.")
        await c.session.set_logging_level("warning")
