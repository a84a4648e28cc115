"""The parameters of the statements that take many: one NamedTuple per statement, its fields
named after the columns they fill, in the statement's $1..$n order. Callers build one by
name and pass `*row` (or a list of rows to executemany). tests/unit/test_sql_catalogue.py
reads each statement's column list and checks the fields against it, so the two cannot drift.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, NamedTuple


class NewMemory(NamedTuple):
    """insert_memory: a live write. `search_vector` is the text to_tsvector reads; None for
    id, created_at, flags or strength takes the column's default."""

    agent_id: str
    id: uuid.UUID | None
    session_id: str | None
    memory_type: str
    content: str
    content_hash: bytes
    embedding: Any
    search_vector: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    created_at: datetime | None
    expires_at: datetime | None
    shared: bool
    dedup_key: bytes | None
    slot: str | None
    flags: list[str] | None
    sealed: bytes | None
    strength: float | None
    project: str | None = None  # None: global


class MemoryUpdate(NamedTuple):
    """update_memory: None keeps a column as it is; `reseal` says whether `sealed` is given
    (None then clears it)."""

    agent_id: str
    id: uuid.UUID
    content: str | None
    content_hash: bytes | None
    embedding: Any
    search_vector: str | None
    importance: int | None
    metadata: dict[str, Any] | None
    tags: list[str] | None
    dedup_key: bytes | None
    reseal: bool
    sealed: bytes | None
    flags: list[str] | None


class ImportedMemory(NamedTuple):
    """import_memory: a plain import line, written as given."""

    agent_id: str
    id: uuid.UUID
    session_id: str | None
    memory_type: str
    content: str
    content_hash: bytes
    embedding: Any
    search_vector: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    created_at: datetime
    slot: str | None
    invalidated_at: datetime | None
    invalidation_reason: str | None
    invalidated_by: uuid.UUID | None
    sealed: bytes | None
    project: str | None = None


class RestoredMemory(NamedTuple):
    """restore_insert: an exported live memory, every column as exported."""

    agent_id: str
    id: uuid.UUID
    session_id: str | None
    memory_type: str
    content: str
    content_hash: bytes
    embedding: Any
    search_vector: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    created_at: datetime | None
    stored_at: datetime | None
    updated_at: datetime | None
    expires_at: datetime | None
    invalidated_at: datetime | None
    invalidation_reason: str | None
    invalidated_by: uuid.UUID | None
    shared: bool
    dedup_key: bytes | None
    slot: str | None
    flags: list[str]
    sealed: bytes | None
    strength: float
    reinforce_count: int
    consolidated_into: uuid.UUID | None
    likely_replaces: list[uuid.UUID]
    project: str | None = None


class ArchivedMemory(NamedTuple):
    """restore_archive_insert: an exported archived memory, back into the archive."""

    agent_id: str
    id: uuid.UUID
    session_id: str | None
    memory_type: str
    content: str
    content_hash: bytes
    embedding: Any
    search_vector: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    created_at: datetime | None
    stored_at: datetime | None
    updated_at: datetime | None
    expires_at: datetime | None
    invalidated_at: datetime | None
    invalidation_reason: str | None
    invalidated_by: uuid.UUID | None
    shared: bool
    dedup_key: bytes | None
    slot: str | None
    flags: list[str]
    sealed: bytes | None
    strength: float
    reinforce_count: int
    consolidated_into: uuid.UUID | None
    decay_score: float
    access_count: int
    last_accessed: datetime | None
    doc_len: float
    archived_at: datetime
    archive_reason: str
    project: str | None = None


class HistoryRow(NamedTuple):
    """restore_history: one history row, as exported or as an import's timeline dates it."""

    agent_id: str
    memory_id: uuid.UUID
    action: str
    at: datetime
    call: str
    reason: str | None
    related_id: uuid.UUID | None
    memory_type: str | None
    content: str | None
    metadata: dict[str, Any] | None
    importance: int | None
    slot: str | None
    expires_at: datetime | None


# Which statement each row is for (the catalogue test checks them against each other).
STATEMENTS: dict[str, type[tuple]] = {
    "insert_memory": NewMemory,
    "update_memory": MemoryUpdate,
    "import_memory": ImportedMemory,
    "restore_insert": RestoredMemory,
    "restore_archive_insert": ArchivedMemory,
    "restore_history": HistoryRow,
}
