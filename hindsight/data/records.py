"""Memories as the parts return them: `Memory`, with real ids and datetimes, and its JSON
form, made by the faces when they answer (`Memory.json`); `row_to_dict` for the read model's
rows, which are JSON-ready from the start."""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def row_to_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row JSON-ready: ids and times as strings."""
    return {key: json_value(value) for key, value in dict(row).items()}


def json_value(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


@dataclass(frozen=True)
class Memory:
    """One memory as get_memory, update_memory, invalidate_memory and list_memories return
    it (sql/queries/memories.sql's memory_columns, in their order). `state`: the columns a
    read adds from memory_state (decay_score, access_count, last_accessed), absent from what
    a write returns; `notes`: what the call adds (revealed, warning, redacted)."""

    id: uuid.UUID
    agent_id: str
    session_id: str | None
    memory_type: str
    content: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    created_at: datetime
    stored_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    invalidated_at: datetime | None
    invalidation_reason: str | None
    invalidated_by: uuid.UUID | None
    shared: bool
    slot: str | None
    flags: list[str]
    reinforce_count: int
    strength: float
    consolidated_into: uuid.UUID | None
    sealed: bool
    project: str | None
    state: Mapping[str, Any] | None = None
    notes: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, row: Mapping[str, Any], **notes: Any) -> "Memory":
        """From a row of memory_columns (and the state a read adds)."""
        fields = {f.name for f in dataclasses.fields(cls)} - {"state", "notes"}
        values = dict(row)
        state = {k: values[k] for k in STATE if k in values} or None
        return cls(**{k: values[k] for k in fields}, state=state, notes=notes)

    def noted(self, **notes: Any) -> "Memory":
        return dataclasses.replace(self, notes={**self.notes, **notes})

    def json(self) -> dict[str, Any]:
        """The JSON form the tools, the CLI and the page show: ids and times as strings, the
        state after the columns, then the notes."""
        out = {f.name: json_value(getattr(self, f.name)) for f in dataclasses.fields(self)[:-2]}
        out.update({k: json_value(v) for k, v in (self.state or {}).items()})
        return out | dict(self.notes)


STATE = ("decay_score", "access_count", "last_accessed")


@dataclass(frozen=True)
class Listing:
    """A page of list_memories: the memories, newest first, and the page asked for."""

    memories: tuple[Memory, ...]
    limit: int
    offset: int

    def json(self) -> dict[str, Any]:
        return {"memories": [m.json() for m in self.memories], "limit": self.limit, "offset": self.offset}
