"""MCP conventions beyond the tools: `completion/complete` for the prompt's language and the
resources' agent_id (only agents the caller may act for: nothing about other agents leaks),
and `logging/setLevel`, which sets the level of hindsight's log (stderr)."""

from __future__ import annotations

import logging
from typing import Any

from mcp_types import (
    Completion,
    EmptyResult,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
)

from .. import services
from .guidance import GUIDANCE

LEVELS = {  # MCP's syslog levels -> Python's
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


def register(mcp: Any, settings: Any) -> None:
    @mcp.completion()
    async def complete(ref: Any, argument: Any, _context: Any) -> Completion | None:
        typed = argument.value or ""
        if isinstance(ref, PromptReference) and ref.name == "memory_guidance" and argument.name == "language":
            values = sorted(GUIDANCE)
        elif isinstance(ref, ResourceTemplateReference) and argument.name == "agent_id":
            values = sorted(_agents(settings))
        else:
            return None
        found = [v for v in values if v.startswith(typed)]
        return Completion(values=found[:100], total=len(found), has_more=len(found) > 100)

    async def set_level(_ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
        logging.getLogger("hindsight").setLevel(LEVELS.get(str(params.level).lower(), logging.INFO))
        return EmptyResult()

    mcp._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


def _agents(settings: Any) -> set[str]:
    """The agents a caller may name: its own and the allow-list's (never `*`'s everyone)."""
    caller = services.CALLER.get()
    own, allowed = (caller.agent_id, caller.allowed_agents) if caller else (settings.agent_id, settings.allowed_agents)
    return {own, *(a for a in allowed if a != "*")}
