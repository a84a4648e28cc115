"""The `hook` tool: the door the IDE's lifecycle hooks come in by (hindsight hooks install
writes them). Claude Code calls it from its hooks (type mcp_tool) with the event's fields, and
reads what it answers as the hook's JSON output: additional context for the model on a prompt
or a session's start, `{}` otherwise.

It fails open: whatever goes wrong (the services still starting after HOOK_WAIT seconds, a
field it cannot use, the database gone) is logged on stderr and answered `{}`, so that a
hook never blocks the user's prompt or tool and never shows an error."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context

from ..services import Answer, HookEvent, Services, hook_event
from .params import AgentId
from .roots import named_folder
from .tools import open_project, services_of

log = logging.getLogger("hindsight.server")

HOOK_WAIT = 12.0  # seconds a hook waits for the services to open (the hooks' timeout is 15)


async def hook(
    ctx: Context,
    event: str,
    session_id: str = "",
    cwd: str = "",
    prompt: str = "",
    tool_name: str = "",
    tool_input: str = "",
    tool_response: str = "",
    error: str = "",
    source: str = "",
    transcript_path: str = "",
    agent_id: AgentId = None,
) -> str:
    """For the IDE's lifecycle hooks (installed by `hindsight hooks install`), not for the
    model: use retrieve_memory and record_interaction. Takes one hook event (Claude Code's
    fields: event, session_id, cwd, prompt, tool_name, tool_input, tool_response, error,
    source, transcript_path) and answers the hook's JSON output."""
    fields = {
        "event": event, "session_id": session_id, "cwd": cwd, "prompt": prompt, "tool_name": tool_name,
        "tool_input": tool_input, "tool_response": tool_response, "error": error, "source": source,
        "transcript_path": transcript_path,
    }  # fmt: skip
    try:
        return await asyncio.wait_for(_handle(ctx, fields, agent_id), HOOK_WAIT)
    except Exception as exc:  # fail open: the hook answers nothing, the user's action goes on
        log.warning("hook %s answered nothing: %s", event, exc)
        return "{}"


async def _handle(ctx: Context, fields: dict[str, Any], agent_id: str | None) -> str:
    s = await services_of(ctx)
    found = hook_event(fields)
    answer = await answer_event(
        s, found, s.acting_for(agent_id), await open_project(ctx), getattr(ctx.mcp_server, "local", False)
    )
    return output(found.name, answer)


async def answer_event(s: Services, found: HookEvent, agent: str, open_now: str | None, local: bool) -> Answer:
    """One event for `agent`, its folder named as the roots name folders (services' hook)."""
    return await s.hook(agent, found, _folder(found.cwd), open_now, local=local)


def output(event: str, answer: Answer, client: str = "claude-code", named: str | None = None) -> str:
    """The hook's JSON output: the context for the model on a prompt or a session's start,
    under the client's own name for the event (`named`: Gemini CLI's BeforeAgent); `{}`
    otherwise. Cursor's prompt hook cannot add context: it is told to go on."""
    if client == "cursor":
        return json.dumps({"continue": True}) if event == "UserPromptSubmit" else "{}"
    if not answer.context or event not in ("UserPromptSubmit", "SessionStart"):
        return "{}"
    body = {"hookEventName": named or event, "additionalContext": answer.context}
    return json.dumps({"hookSpecificOutput": body}, ensure_ascii=False)


_FOLDERS: dict[str, tuple[str, str, str] | None] = {}


def _folder(cwd: str | None) -> tuple[str, str, str] | None:
    """(root URI, project, source) of the event's folder, named once per folder."""
    if not cwd:
        return None
    if cwd not in _FOLDERS:
        _FOLDERS[cwd] = named_folder(Path(cwd), checkout_only=False)
    return _FOLDERS[cwd]
