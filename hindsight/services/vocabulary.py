"""What of the rules a face may use, through the door: the limits its argument schemas
state, the memory types, the recall cut, the checks a face runs on arguments of its own
(a URL's agent and memory id, a command's time, a client's identifier), how a refused value
may be shown, how a root folder names its project, and the ranking's weights the page
explains. Faces import this, never hindsight.rules (tests/unit/test_layout.py)."""

from __future__ import annotations

from ..rules.privacy import shown
from ..rules.projects import folder_of, from_folder, from_remote, origin_url
from ..rules.scoring import RECALL_CUT, Weights
from ..rules.validate import (
    MAX_CONTENT_BYTES,
    MAX_LIST_LIMIT,
    MAX_QUERY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TOP_K,
    MEMORY_TYPES,
    agent_id,
    identifier,
    memory_id,
    project,
    timestamp,
)

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_LIST_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_TAGS",
    "MAX_TAG_CHARS",
    "MAX_TOP_K",
    "MEMORY_TYPES",
    "RECALL_CUT",
    "Weights",
    "agent_id",
    "folder_of",
    "from_folder",
    "from_remote",
    "identifier",
    "memory_id",
    "origin_url",
    "project",
    "shown",
    "timestamp",
]
