"""Memories as tools and the CLI return them: JSON-ready, ids and times as strings."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def row_to_dict(row) -> dict[str, Any]:
    """A memory as tools and the CLI return it: JSON-ready, ids and times as strings."""
    out: dict[str, Any] = {}
    for key, value in dict(row).items():
        if isinstance(value, uuid.UUID):
            value = str(value)
        elif isinstance(value, datetime):
            value = value.isoformat()
        out[key] = value
    return out
