"""A retrieve_memory call checked: each argument validated (InvalidInput names the first
bad one), and the parameters every recall statement shares (sql/queries/recall.sql)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, NamedTuple

from ..data.lexicon import tool_kinds
from ..errors import InvalidInput
from ..rules import asks, deixis, recap, scoring, tools, trouble
from ..rules import validate as v
from ..rules.tools import Kind as ToolKind

DEFAULT_MAX_TOKENS = 1000


class Filters(NamedTuple):
    """$1-$10 of every recall statement (the recall_filters fragment applies them)."""

    agent_id: str
    include_shared: bool
    as_of: datetime  # what was current then
    memory_type: str | None
    tags: list[str] | None  # all of them
    metadata: dict[str, Any] | None  # contained
    start: datetime | None  # created from
    end: datetime | None  # created before
    min_decay: float  # the lowest decay_score; 0 for none
    project: str | None = None  # only this project's memories (the call's `project`; "": global ones)


class Hints(NamedTuple):
    """recall_vector_hinted's $17-$22: what brings candidates besides similarity ($13 is the
    vector plan: an exact scan or the index; $14-$16 the rows in hand)."""

    window_start: datetime | None  # the time window the query names
    window_end: datetime | None
    tools: list[str] | None  # lower-cased
    session_id: str | None  # the caller's session
    task_type: str | None
    window_by_index: bool = False  # its nearest through the HNSW index (rules.plans.window_plan)


@dataclass(frozen=True)
class Request:
    """A checked retrieve_memory call."""

    agent_id: str
    query: str
    top_k: int
    as_of: datetime
    as_of_given: bool  # asked about a chosen moment, not about now
    filters: Filters
    task_type: str | None
    session_id: str | None
    tools: tuple[str, ...]
    include_shared: bool
    min_decay: float
    format: str
    max_tokens: int
    open_projects: tuple[str, ...] = ()  # ranked as today; another project's memories lower
    pointed_at: str | None = None  # the open project, when the question points at it ("this repo")
    troubled: bool = False  # the question asks what went wrong, why, or how it was fixed (rules.trouble)
    recap: bool = False  # it asks what happened in the time it names (rules.recap; Recall.ask sets it)

    @functools.cached_property
    def asks_for(self) -> str | None:
        """The kind of value the question asks for (rules.asks: money, a version, how often…),
        read without the words that point at the open project ("this repo"); once per request."""
        return asks.asked_kind(deixis.without_pointer(self.query)[0] if self.pointed_at else self.query)

    @functools.cached_property
    def unfinished(self) -> bool:
        """Whether it asks what was being done and is not finished (rules.recap.asks_unfinished)."""
        return recap.asks_unfinished(self.query)

    @functools.cached_property
    def asks_which(self) -> tuple[ToolKind, ...]:
        """The kinds of tool the question asks which one of ("Which linter …?": rules.tools)."""
        return tool_kinds().asked(self.query)

    @functools.cached_property
    def searched(self) -> str:
        """What the keyword channel looks for: the question, less the names of the kinds of tool it
        asks which one of, whose tools it looks for instead (rules.tools.without_names)."""
        return tools.without_names(self.query, self.asks_which) if self.asks_which else self.query


def check(
    agent_id: Any,
    query: Any,
    *,
    top_k: Any = 5,
    memory_type: Any = None,
    time_range: Any = None,
    task_type: Any = None,
    session_id: Any = None,
    tools: Any = None,
    tags: Any = None,
    metadata: Any = None,
    include_shared: Any = True,
    as_of: Any = None,
    min_decay_score: Any = scoring.RECALL_CUT,
    format: Any = "json",
    max_tokens: Any = None,
    project: Any = None,
    open_projects: tuple[str, ...] = (),
) -> Request:
    """Validate a retrieve_memory call; InvalidInput names the first bad field. `project`
    restricts to one project; `open_projects` (the client's) only orders."""
    agent_id = v.agent_id(agent_id)
    if isinstance(query, str) and len(query) > v.MAX_QUERY_CHARS:
        raise InvalidInput("query", v.too_long(len(query), v.MAX_QUERY_CHARS, "characters"))
    query = v.text("query", query, max_bytes=v.MAX_QUERY_CHARS * 4)  # 4 bytes a character at most
    top_k = v.integer("top_k", top_k, 1, v.MAX_TOP_K)
    memory_type = v.memory_type(memory_type, required=False)
    tags = v.tags(tags)
    tools = v.tags(tools, field="tools")
    metadata = v.metadata(metadata)
    task_type = v.text("task_type", task_type, max_bytes=256, required=False)
    session_id = v.text("session_id", session_id, max_bytes=256, required=False)
    if not isinstance(include_shared, bool):
        raise InvalidInput("include_shared", "must be true or false")
    as_of_given = as_of is not None
    as_of = v.timestamp("as_of", as_of) or datetime.now(timezone.utc)
    start, end = _time_range(time_range)
    if (
        not isinstance(min_decay_score, (int, float))
        or isinstance(min_decay_score, bool)
        or not 0 <= min_decay_score <= 1
    ):
        raise InvalidInput("min_decay_score", "must be a number from 0 to 1")
    if format not in ("json", "prompt"):
        raise InvalidInput("format", f"{format!r} is not allowed; use json or prompt")
    max_tokens = v.integer("max_tokens", DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens, 50, 100_000)
    filters = Filters(
        agent_id=agent_id,
        include_shared=include_shared,
        as_of=as_of,
        memory_type=memory_type,
        tags=tags,
        metadata=metadata,
        start=start,
        end=end,
        min_decay=float(min_decay_score),
        project=v.project(project),
    )
    open_projects = (filters.project,) if filters.project else tuple(open_projects)
    return Request(
        agent_id=agent_id,
        query=query,
        top_k=top_k,
        as_of=as_of,
        as_of_given=as_of_given,
        filters=filters,
        task_type=task_type,
        session_id=session_id,
        tools=tuple(dict.fromkeys(t.lower() for t in tools or [])),
        include_shared=include_shared,
        min_decay=float(min_decay_score),
        format=format,
        max_tokens=max_tokens,
        open_projects=open_projects,
        pointed_at=deixis.open_project(query, open_projects),
        troubled=trouble.asks_about_trouble(query),
    )


def _time_range(value: Any) -> tuple[datetime | None, datetime | None]:
    if value is None:
        return None, None
    if not isinstance(value, dict) or not set(value) <= {"start", "end"}:
        raise InvalidInput("time_range", "must be an object {start, end} of ISO 8601 date-times")
    start = v.timestamp("time_range.start", value.get("start"))
    end = v.timestamp("time_range.end", value.get("end"))
    if start and end and start >= end:
        raise InvalidInput("time_range", "start must be before end")
    return start, end
