"""The single-memory verbs' requests (get, update, invalidate, delete, dismiss a possible
conflict) and list's: frozen, each argument checked once where the request is built
(InvalidInput names the field). The faces build them as services.get_request,
update_request, invalidate_request, delete_request, dismiss_request and list_request."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..rules import privacy
from ..rules import validate as v


@dataclass(frozen=True)
class Get:
    agent_id: str
    memory_id: uuid.UUID
    reveal: bool = False  # the decrypted original in place of the redacted content


@dataclass(frozen=True)
class Update:
    agent_id: str
    memory_id: uuid.UUID
    content: str | None
    importance: int | None
    metadata: dict[str, Any] | None
    tags: list[str] | None
    call: str = "update_memory"


@dataclass(frozen=True)
class Invalidate:
    agent_id: str
    memory_id: uuid.UUID
    reason: str  # redacted
    replaced_by: uuid.UUID | None
    redacted: tuple[str, ...] = ()  # what redaction took out of the reason
    call: str = "invalidate_memory"


@dataclass(frozen=True)
class Delete:
    agent_id: str
    memory_id: uuid.UUID
    call: str = "delete_memory"


@dataclass(frozen=True)
class Dismiss:
    """The newer memory does not replace the older one it was thought to (the page's "not a
    conflict")."""

    agent_id: str
    new_id: uuid.UUID
    old_id: uuid.UUID
    call: str = "ui"


@dataclass(frozen=True)
class List:
    agent_id: str
    memory_type: str | None = None
    session_id: str | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    include_shared: bool = False
    include_invalidated: bool = False
    limit: int = 20
    offset: int = 0
    project: str | None = None  # that project's only ("" the global ones)


def _mid(value: Any, field: str = "memory_id") -> uuid.UUID:
    mid = v.memory_id(value, field)
    assert mid is not None  # required
    return mid


def get(agent_id: Any, memory_id: Any, reveal: Any = False) -> Get:
    return Get(v.agent_id(agent_id), _mid(memory_id), v.boolean("reveal", reveal))


def update(
    agent_id: Any,
    memory_id: Any,
    *,
    content: Any = None,
    importance: Any = None,
    metadata: Any = None,
    tags: Any = None,
    call: str = "update_memory",
) -> Update:
    agent = v.agent_id(agent_id)
    mid = _mid(memory_id)
    checked = Update(
        agent,
        mid,
        None if content is None else v.content(content),
        v.importance(importance, required=False),
        v.metadata(metadata),
        v.tags(tags),
        call,
    )
    if all(x is None for x in (checked.content, checked.importance, checked.metadata, checked.tags)):
        raise InvalidInput("update_memory", "give at least one of content, importance, metadata, tags")
    return checked


def invalidate(
    agent_id: Any, memory_id: Any, reason: Any, replaced_by: Any = None, call: str = "invalidate_memory"
) -> Invalidate:
    agent = v.agent_id(agent_id)
    mid = _mid(memory_id)
    said = v.text("reason", reason, max_bytes=2048)
    assert said is not None  # required
    redacted_reason, redacted = privacy.redact(said)
    replacement = v.memory_id(replaced_by, "replaced_by", required=False)
    if replacement == mid:
        raise InvalidInput("replaced_by", "must be another memory, not the one being invalidated")
    return Invalidate(agent, mid, redacted_reason, replacement, tuple(redacted), call)


def delete(agent_id: Any, memory_id: Any, call: str = "delete_memory") -> Delete:
    return Delete(v.agent_id(agent_id), _mid(memory_id), call)


def dismiss(agent_id: Any, new_id: Any, old_id: Any, call: str = "ui") -> Dismiss:
    return Dismiss(v.agent_id(agent_id), _mid(new_id, "new_id"), _mid(old_id, "old_id"), call)


def listing(
    agent_id: Any,
    *,
    memory_type: Any = None,
    session_id: Any = None,
    tags: Any = None,
    metadata: Any = None,
    include_shared: Any = False,
    include_invalidated: Any = False,
    limit: Any = 20,
    offset: Any = 0,
    project: Any = None,
) -> List:
    agent = v.agent_id(agent_id)
    kind = v.memory_type(memory_type, required=False)
    session = v.text("session_id", session_id, max_bytes=256, required=False)
    tags, metadata = v.tags(tags), v.metadata(metadata)
    for name, flag in (("include_shared", include_shared), ("include_invalidated", include_invalidated)):
        if not isinstance(flag, bool):
            raise InvalidInput(name, "must be true or false")
    limit = v.integer("limit", limit, 1, v.MAX_LIST_LIMIT)
    offset = v.integer("offset", offset, 0, 10_000_000)
    assert limit is not None and offset is not None  # required
    return List(
        agent, kind, session, tags, metadata, include_shared, include_invalidated, limit, offset, v.project(project)
    )
