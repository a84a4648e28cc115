"""The tools' parameter types: one definition each, with the limits and descriptions the
published schema shows. Shared ones first, then those of one tool (or two), by tool."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ..services import MAX_TOOL_RESULTS, MAX_TTL_SECONDS
from ..services import vocabulary as v


def at_most(limit: int) -> Any:
    """maxLength in the published schema, left to our validators to check (UTF-8 bytes for
    text, characters for a query), so that a value too long gets the same words by every
    path: the tool, the command line, import (rules.validate.too_long)."""
    return Field(json_schema_extra={"maxLength": limit})


# ---- shared -------------------------------------------------------------------------------
MemoryType = Literal["working", "episodic", "semantic", "procedural"]
AgentId = Annotated[
    str | None,
    Field(
        max_length=128,
        description=(
            "Agent whose memory this is; defaults to the server's HINDSIGHT_AGENT_ID (others only if "
            "HINDSIGHT_ALLOWED_AGENTS allows them)"
        ),
    ),
]
MemoryId = Annotated[
    str, Field(max_length=64, description=("The memory's id (a UUID, as returned by store_memory or retrieve_memory)"))
]
OtherId = Annotated[str | None, Field(max_length=64)]
Text = Annotated[str, at_most(v.MAX_CONTENT_BYTES)]
SessionId = Annotated[Annotated[str, at_most(256)] | None, Field(description="The conversation or task session")]
Importance = Annotated[
    int,
    Field(ge=1, le=5, description=("1 (trivial, kept a week) to 5 (critical, kept for good); 3 is kept half a year")),
]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description=("JSON object; well-known keys: task_type, outcome, tools_used, entities, error, speaker")),
]
Names = Annotated[list[Annotated[str, Field(max_length=v.MAX_TAG_CHARS)]] | None, Field(max_length=v.MAX_TAGS)]
Flag = Annotated[bool, Field(description="true or false")]

# ---- retrieve_memory and list_memories ----------------------------------------------------
OnlyLayer = Annotated[MemoryType | None, Field(description="Only this layer")]
OnlyTags = Annotated[Names, Field(description="Only memories with all these tags")]
OnlyMetadata = Annotated[dict[str, Any] | None, Field(description="Only memories whose metadata contains this object")]

# ---- store_memory -------------------------------------------------------------------------
Content = Annotated[Text, Field(description="What to remember, in the user's own language (max 32 KB)")]
Layer = Annotated[
    MemoryType,
    Field(
        description=(
            "semantic: facts and preferences; procedural: how-to, fixes, failures; episodic: events; "
            "working: scratch state for this session"
        )
    ),
]
Labels = Annotated[Names, Field(description="Short labels (no secrets: they are stored as given)")]
TtlSeconds = Annotated[
    int | None,
    Field(
        ge=1,
        le=MAX_TTL_SECONDS,
        description=("Forget after this many seconds (overrides the importance-based retention)"),
    ),
]
Shared = Annotated[Flag, Field(description="Let every agent read it (only you can change it)")]
Project = Annotated[
    str | None,
    Field(
        max_length=200,
        description=(
            "The project (repository) it belongs to; default: the one the IDE has open (its project folder), "
            'except preferences about the user, which stay global; "" for no project'
        ),
    ),
]
OnlyProject = Annotated[
    str | None,
    Field(
        max_length=200,
        description=(
            "Only this project's memories (\"\" for the global ones); default: all, the open project's "
            "and global ones first"
        ),
    ),
]
Slot = Annotated[
    str | None,
    Field(
        max_length=200,
        description=(
            "The fact this is the current value of, e.g. 'preference:dataframe_library'; the slot's "
            "previous memory is superseded"
        ),
    ),
]
Supersedes = Annotated[
    OtherId, Field(description=("Id of a memory this one replaces (it is invalidated and kept as history)"))
]
Sensitive = Annotated[
    Names, Field(description=("Metadata keys whose values are sensitive (encrypted at rest, or redacted)"))
]

# ---- record_interaction -------------------------------------------------------------------
Happened = Annotated[
    Text | None, Field(description=("What happened or was said (the user's message, your summary of a step)"))
]
TaskKind = Annotated[
    Annotated[str, at_most(256)] | None, Field(description=("Kind of task, e.g. 'deploy', 'debug', 'refactor'"))
]
TaskStatus = Annotated[Annotated[str, at_most(64)] | None, Field(description="completed, failed, in_progress, ...")]
Feedback = Annotated[Literal["positive", "negative"] | None, Field(description=("Explicit feedback from the user"))]
ToolResults = Annotated[
    list[dict[str, Any]] | None,
    Field(
        max_length=MAX_TOOL_RESULTS,
        description=("Tool calls of this step: [{tool, arguments?, output?, error?}]"),
    ),
]
ToolsUsed = Annotated[Names, Field(description="Names of tools used")]
ErrorMet = Annotated[Text | None, Field(description="An error message met in this step")]

# ---- retrieve_memory ----------------------------------------------------------------------
Query = Annotated[
    str,
    at_most(v.MAX_QUERY_CHARS),
    Field(
        description=(
            "What you need to know, in natural language (any language); relative times like "
            "'last week' or '上周' narrow it"
        ),
    ),
]
TopK = Annotated[int, Field(ge=1, le=v.MAX_TOP_K, description="How many memories to return")]
TimeRange = Annotated[dict[str, str] | None, Field(description=("Only memories from {start, end} (ISO 8601)"))]
AlsoTaskType = Annotated[
    Annotated[str, at_most(256)] | None, Field(description=("Also bring the latest memories of this task type"))
]
ToolsAhead = Annotated[Names, Field(description="Tools you are about to use: their past failures come first")]
SearchShared = Annotated[Flag, Field(description="Also search memories other agents shared")]
AsOf = Annotated[
    str | None, Field(max_length=64, description=("Recall what was current at this ISO 8601 time (default now)"))
]
MinDecay = Annotated[float, Field(ge=0, le=1, description="Skip memories that decayed below this")]
Format = Annotated[Literal["json", "prompt"], Field(description="'prompt' adds a block ready for a system prompt")]
MaxTokens = Annotated[
    int | None, Field(ge=50, le=100_000, description=("Token budget of the prompt block (default 1000)"))
]

# ---- get_memory, update_memory, invalidate_memory, list_memories ---------------------------
Reveal = Annotated[
    Flag, Field(description=("Show the original of redacted secrets (needs the server's encryption key)"))
]
NewContent = Annotated[Text | None, Field(description="New content (re-embedded)")]
NewImportance = Annotated[int | None, Field(ge=1, le=5, description="New importance, 1-5")]
NewMetadata = Annotated[dict[str, Any] | None, Field(description="Replaces the metadata object")]
NewTags = Annotated[Names, Field(description="Replaces the tags")]
Reason = Annotated[str, at_most(2048), Field(description="Why it is no longer true")]
ReplacedBy = Annotated[OtherId, Field(description="Id of the memory that replaces it")]
ListShared = Annotated[Flag, Field(description="Also list memories other agents shared")]
ListInvalidated = Annotated[Flag, Field(description="Also list invalidated and expired memories")]
Limit = Annotated[int, Field(ge=1, le=v.MAX_LIST_LIMIT, description="Page size")]
Offset = Annotated[int, Field(ge=0, le=10_000_000, description="Rows to skip")]
