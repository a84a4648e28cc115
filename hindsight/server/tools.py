"""The eight tools: module-level functions that reach the services through `ctx` (the
lifespan's context). Their parameter types, limits and descriptions are in params; the
docstrings are the published descriptions."""

from __future__ import annotations

import contextlib
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations

from ..errors import InvalidInput
from ..services import (
    Services,
    delete_request,
    get_request,
    invalidate_request,
    list_request,
    recall_request,
    record_request,
    store_request,
    update_request,
)
from ..services import vocabulary as v
from ..services.vocabulary import RECALL_CUT
from .params import (
    AgentId,
    AlsoTaskType,
    AsOf,
    Content,
    ErrorMet,
    Feedback,
    Format,
    Happened,
    Importance,
    Labels,
    Layer,
    Limit,
    ListInvalidated,
    ListShared,
    MaxTokens,
    MemoryId,
    Metadata,
    MinDecay,
    NewContent,
    NewImportance,
    NewMetadata,
    NewTags,
    Offset,
    OnlyLayer,
    OnlyMetadata,
    OnlyProject,
    OnlyTags,
    Project,
    Query,
    Reason,
    ReplacedBy,
    Reveal,
    SearchShared,
    Sensitive,
    SessionId,
    Shared,
    Slot,
    Supersedes,
    TaskKind,
    TaskStatus,
    TimeRange,
    ToolResults,
    ToolsAhead,
    ToolsUsed,
    TopK,
    TtlSeconds,
)
from .roots import call_meta, session_in_call


async def services_of(ctx: Context) -> Services:
    """The services, once open (a call that comes while they open waits: services.Opening)."""
    return await ctx.request_context.lifespan_context.ready()


def session_of(s: Services, given: str | None, ctx: Context) -> str | None:
    """The call's session, else the client's: the one its `_meta` carries (Codex), else its
    environment's (CLAUDE_CODE_SESSION_ID, …)."""
    if given is not None:
        return given
    found = session_in_call(call_meta(ctx))
    if found is not None:
        with contextlib.suppress(InvalidInput):  # not usable as a session id: as if absent
            return v.identifier("session_id", found)
    return s.settings.session_id


async def open_projects(ctx: Context) -> tuple[str, ...]:
    """The projects the client has open (hindsight.server.roots)."""
    return await ctx.mcp_server.open_projects.current(ctx)


async def open_project(ctx: Context) -> str | None:
    """Where a write goes: the first open project."""
    return next(iter(await open_projects(ctx)), None)


async def store_memory(
    ctx: Context,
    content: Content,
    memory_type: Layer = "episodic",
    session_id: SessionId = None,
    importance: Importance = 3,
    metadata: Metadata = None,
    tags: Labels = None,
    ttl_seconds: TtlSeconds = None,
    shared: Shared = False,
    slot: Slot = None,
    supersedes: Supersedes = None,
    sensitive: Sensitive = None,
    project: Project = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Save one memory worth keeping across sessions: a user preference or constraint, a
    correction, a fix that worked, the cause of a failure, a decision, a fact about the
    project. Do not store chit-chat or what is already in the conversation only. When a
    fact changed, pass `slot` or `supersedes` so the old one stops being recalled.
    Returns {id, status: created|duplicate|superseded, duplicate_of?, superseded?,
    possible_conflicts? (similar memories: check whether one is now wrong; if this one
    replaces it, call invalidate_memory(memory_id=<old>, replaced_by=<this id>)), flags?,
    redacted? (secrets found: they are never stored in plain text)}."""
    s = await services_of(ctx)
    stored = store_request(
        s.acting_for(agent_id),
        content,
        memory_type=memory_type,
        session_id=session_of(s, session_id, ctx),
        importance=importance,
        metadata=metadata,
        tags=tags,
        ttl_seconds=ttl_seconds,
        shared=shared,
        slot=slot,
        supersedes=supersedes,
        sensitive=sensitive,
        project=project,
        open_project=await open_project(ctx),
    )
    return (await s.memories.keep(stored)).json()


async def record_interaction(
    ctx: Context,
    content: Happened = None,
    session_id: SessionId = None,
    task_type: TaskKind = None,
    task_status: TaskStatus = None,
    user_feedback: Feedback = None,
    tool_results: ToolResults = None,
    tools_used: ToolsUsed = None,
    error: ErrorMet = None,
    project: Project = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Hand over an interaction and let the server decide whether it is worth
    remembering: preferences, corrections, errors and their fixes, failures, task
    outcomes, feedback and tool results are kept (in the right memory layer); chit-chat
    and small talk are not. Cheap: call it freely. Returns {stored, reason, id}."""
    s = await services_of(ctx)
    agent = s.acting_for(agent_id)
    event = record_request(
        content,
        session_id=session_of(s, session_id, ctx),
        task_type=task_type,
        task_status=task_status,
        user_feedback=user_feedback,
        tool_results=tool_results,
        tools_used=tools_used,
        error=error,
    )
    return await s.record(agent, event, project=project, open_project=await open_project(ctx))


async def retrieve_memory(
    ctx: Context,
    query: Query,
    top_k: TopK = 5,
    memory_type: OnlyLayer = None,
    time_range: TimeRange = None,
    task_type: AlsoTaskType = None,
    session_id: SessionId = None,
    tools: ToolsAhead = None,
    tags: OnlyTags = None,
    metadata: OnlyMetadata = None,
    include_shared: SearchShared = True,
    as_of: AsOf = None,
    min_decay_score: MinDecay = RECALL_CUT,
    format: Format = "json",
    max_tokens: MaxTokens = None,
    project: OnlyProject = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Recall what is relevant: call it before starting a task, when the user mentions
    earlier work or preferences, and before using a tool that may have failed before
    (pass it in `tools`). Returns the best matches first, each with id, content,
    memory_type, created_at, score, confidence (0-1: how likely it is relevant), the channels that found it,
    score_parts, metadata, and possibly_outdated_by when a newer memory says it changed.
    Invalidated and expired memories are never returned. The project the IDE has open
    (its project folder) comes first with global memories; another project's ranks lower but
    still shows when it is clearly the best match; each hit names its `project`.
    Confidence never rises down the list. nothing_relevant: true says that no memory is
    relevant (the question names things never stored, and nothing is close in meaning; or it
    asks for an amount, number, duration, frequency or time none of the first hits states, each
    hit's evidence then saying lacks: 1): the hits are then marked relevant: false.
    format='prompt' returns only a ready block (and the ids), which then holds no memory."""
    s = await services_of(ctx)
    asked = recall_request(
        s.acting_for(agent_id),
        query,
        top_k=top_k,
        memory_type=memory_type,
        time_range=time_range,
        task_type=task_type,
        session_id=session_of(s, session_id, ctx),
        tools=tools,
        tags=tags,
        metadata=metadata,
        include_shared=include_shared,
        as_of=as_of,
        min_decay_score=min_decay_score,
        format=format,
        max_tokens=max_tokens,
        project=project,
        open_projects=await open_projects(ctx),
    )
    return (await s.recall.ask(asked)).json()


async def get_memory(
    ctx: Context, memory_id: MemoryId, reveal: Reveal = False, agent_id: AgentId = None
) -> dict[str, Any]:
    """Read one memory by id, in any state (invalidated ones show why and when)."""
    s = await services_of(ctx)
    return (await s.memories.get(get_request(s.acting_for(agent_id), memory_id, reveal))).json()


async def update_memory(
    ctx: Context,
    memory_id: MemoryId,
    content: NewContent = None,
    importance: NewImportance = None,
    metadata: NewMetadata = None,
    tags: NewTags = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Correct or refine one of your memories in place (typo, better wording, importance).
    When a fact has changed, prefer invalidate_memory plus store_memory so history stays."""
    s = await services_of(ctx)
    asked = update_request(
        s.acting_for(agent_id), memory_id, content=content, importance=importance, metadata=metadata, tags=tags
    )
    return (await s.memories.update(asked)).json()


async def invalidate_memory(
    ctx: Context, memory_id: MemoryId, reason: Reason, replaced_by: ReplacedBy = None, agent_id: AgentId = None
) -> dict[str, Any]:
    """Mark a memory as no longer true (the user changed their mind, a fix stopped working).
    It stops being recalled but is kept as history."""
    s = await services_of(ctx)
    return (
        await s.memories.invalidate(invalidate_request(s.acting_for(agent_id), memory_id, reason, replaced_by))
    ).json()


async def delete_memory(ctx: Context, memory_id: MemoryId, agent_id: AgentId = None) -> dict[str, Any]:
    """Forget a memory for good, e.g. when the user says "forget this". Cannot be undone;
    to record that something stopped being true, use invalidate_memory instead."""
    s = await services_of(ctx)
    deleted = await s.memories.delete(delete_request(s.acting_for(agent_id), memory_id))
    return {"deleted": True, "id": str(deleted)}


async def list_memories(
    ctx: Context,
    memory_type: OnlyLayer = None,
    session_id: SessionId = None,
    tags: OnlyTags = None,
    metadata: OnlyMetadata = None,
    include_shared: ListShared = False,
    include_invalidated: ListInvalidated = False,
    limit: Limit = 20,
    offset: Offset = 0,
    project: OnlyProject = None,
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Browse memories, newest first: to review what is stored or find an id to update,
    invalidate or delete. To find memories about a topic, use retrieve_memory."""
    s = await services_of(ctx)
    asked = list_request(
        s.acting_for(agent_id),
        memory_type=memory_type,
        session_id=session_id,
        tags=tags,
        metadata=metadata,
        include_shared=include_shared,
        include_invalidated=include_invalidated,
        limit=limit,
        offset=offset,
        project=project,
    )
    return (await s.memories.list(asked)).json()


TOOLS = (
    store_memory,
    record_interaction,
    retrieve_memory,
    get_memory,
    update_memory,
    invalidate_memory,
    delete_memory,
    list_memories,
)


def _hints(read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """What a client may run without asking: nothing here reaches beyond the memory store."""
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=None if read_only else destructive,
        idempotent_hint=True if read_only else idempotent,
        open_world_hint=False,
    )


# name -> (title, annotations), published in tools/list
DESCRIBED = {
    "store_memory": ("Store a memory", _hints(False)),
    "record_interaction": ("Hand over an interaction", _hints(False)),
    "retrieve_memory": ("Recall relevant memories", _hints(True)),
    "get_memory": ("Read one memory", _hints(True)),
    "update_memory": ("Correct a memory", _hints(False, idempotent=True)),
    "invalidate_memory": ("Mark a memory no longer true", _hints(False, idempotent=True)),
    "delete_memory": ("Forget a memory", _hints(False, destructive=True, idempotent=True)),
    "list_memories": ("Browse memories", _hints(True)),
    "hook": ("IDE lifecycle hook (not for the model)", _hints(False, idempotent=False)),
}
