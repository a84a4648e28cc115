"""Checks on what callers send. Pure: no I/O. Each failure is an InvalidInput naming the
field and what is allowed, raised before anything is written."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from typing import Any

from ..errors import InvalidInput
from . import detectors
from .kinds import MEMORY_TYPES as MEMORY_TYPES  # the four layers
from .privacy import kind_words, shown

MAX_CONTENT_BYTES = 32 * 1024
MAX_METADATA_BYTES = 16 * 1024
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_QUERY_CHARS = 2000
MAX_TOP_K = 50
MAX_LIST_LIMIT = 200
_AGENT_ID = re.compile(r"^[^\s\x00-\x1f\x7f]{1,128}$")
# Times the database, Python and relative-time arithmetic all handle (UTC).
EARLIEST = datetime(1000, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)


def text(field: str, value: Any, *, max_bytes: int, required: bool = True) -> str | None:
    if value is None:
        if required:
            raise InvalidInput(field, "is required: a non-empty string")
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, not {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(field, "must not contain NUL (\\u0000) characters")
    if not value.strip():
        raise InvalidInput(field, "must not be empty or only whitespace")
    size = len(value.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(field, too_long(size, max_bytes, "bytes (UTF-8)"))
    return value


def too_long(size: int, limit: int, unit: str) -> str:
    """The one wording of a length limit, for every path (the MCP tools' schema leaves these
    checks to the validators: server.params)."""
    return f"is {size} {unit.split()[0]}; at most {limit} {unit} are allowed"


def no_secret(field: str, value: str) -> str:
    """Identifiers (tags, slot, project, session_id, metadata keys…) are stored and shown as they are:
    one that looks like a secret or personal data is refused, without showing it."""
    found = detectors.find(value)
    if found:
        raise InvalidInput(
            field,
            f"looks like it holds {kind_words(found[0][2])}; secrets and personal data are not "
            f"allowed in {field.split('[')[0]} — put them in content, where they are "
            "redacted (or encrypted with HINDSIGHT_ENCRYPTION_KEY)",
        )
    return value


def identifier(field: str, value: Any, *, max_bytes: int = 256, required: bool = False) -> str | None:
    """A short caller-chosen name (session_id, task_type…): text without secrets."""
    checked = text(field, value, max_bytes=max_bytes, required=required)
    return None if checked is None else no_secret(field, checked)


def content(value: Any, field: str = "content") -> str:
    return text(field, value, max_bytes=MAX_CONTENT_BYTES)  # type: ignore[return-value]


def agent_id(value: Any, field: str = "agent_id") -> str:
    if not isinstance(value, str) or not _AGENT_ID.match(value):
        raise InvalidInput(field, "must be 1-128 characters with no spaces or control characters")
    return value


def memory_type(value: Any, field: str = "memory_type", required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if value not in MEMORY_TYPES:
        raise InvalidInput(field, f"{shown(value)} is not allowed; use one of {', '.join(MEMORY_TYPES)}")
    return str(value)


def integer(field: str, value: Any, lo: int, hi: int, *, required: bool = True) -> int | None:
    """A whole number from lo to hi. One wording, whatever is wrong and whichever path it
    came by: the MCP tools' schema check (server.arguments) says the same words."""
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidInput(field, f"must be a whole number from {lo} to {hi}")
    return int(value)


def importance(value: Any, required: bool = True) -> int | None:
    return integer("importance", value, 1, 5, required=required)


def memory_id(value: Any, field: str = "memory_id", required: bool = True) -> uuid.UUID | None:
    if value is None and not required:
        return None
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise InvalidInput(
            field,
            "is not a memory id (the value is not shown: a caller once put a secret "
            "there); ids are UUIDs like "
            "'0b7e3c5e-2f0d-4c1e-9a57-3f1d2c4b5a69'",
        ) from None


def _check_json(field: str, value: Any, depth: int = 0) -> None:
    if depth > 20:
        raise InvalidInput(field, "is nested too deeply (at most 20 levels)")
    if isinstance(value, str):
        if "\x00" in value:
            raise InvalidInput(field, "must not contain NUL (\\u0000) characters")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInput(field, "keys must be strings")
            _check_json(field, key, depth + 1)
            no_secret(f"{field} keys", key)
            _check_json(field, item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(field, item, depth + 1)
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise InvalidInput(field, f"holds a {type(value).__name__}; only JSON values are allowed")


def metadata(value: Any, field: str = "metadata", required: bool = False) -> dict[str, Any] | None:
    if value is None and not required:
        return None
    if not isinstance(value, dict):
        raise InvalidInput(field, f"must be a JSON object, not {type(value).__name__}")
    _check_json(field, value)
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    except ValueError:
        raise InvalidInput(field, "must not contain NaN or Infinity") from None
    if size > MAX_METADATA_BYTES:
        raise InvalidInput(field, f"is {size} bytes as JSON; at most {MAX_METADATA_BYTES} allowed")
    return value


def tags(value: Any, field: str = "tags", required: bool = False) -> list[str] | None:
    if value is None and not required:
        return None
    if not isinstance(value, list):
        raise InvalidInput(field, "must be a list of strings")
    if len(value) > MAX_TAGS:
        raise InvalidInput(field, f"has {len(value)} tags; at most {MAX_TAGS} allowed")
    for n, tag in enumerate(value):
        if not isinstance(tag, str) or not tag.strip() or "\x00" in tag or len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(
                f"{field}[{n}]",
                f"each tag must be a non-empty string of at most {MAX_TAG_CHARS} "
                f"characters without NUL; got {shown(tag)}",
            )
        no_secret(f"{field}[{n}]", tag)
    return list(dict.fromkeys(value))  # order kept, repeats dropped


def timestamp(field: str, value: Any, required: bool = False) -> datetime | None:
    """An ISO 8601 date-time (its offset kept; UTC when it has none) between EARLIEST and
    LATEST in UTC — an offset must not carry it past either end."""
    if value is None and not required:
        return None
    parsed: datetime
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                field, f"{shown(value)} is not an ISO 8601 date-time like '2024-03-10T14:30:00Z'"
            ) from None
    else:
        raise InvalidInput(field, "must be an ISO 8601 date-time string like '2024-03-10T14:30:00Z'")
    parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    try:
        utc = parsed.astimezone(timezone.utc)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc < LATEST:
        raise InvalidInput(field, f"must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC)")
    return parsed


_SLOT = re.compile(r"^[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]{0,199}$")


def slot(value: Any, field: str = "slot") -> str | None:
    """A slot names one fact that has at most one current value, e.g. preference:editor_theme."""
    if value is None:
        return None
    if not isinstance(value, str) or not _SLOT.match(value) or value != value.strip():
        raise InvalidInput(
            field,
            "must be 1-200 characters without control characters or surrounding "
            "spaces, e.g. 'preference:dataframe_library'",
        )
    return no_secret(field, value)


def project(value: Any, field: str = "project", *, allow_global: bool = True) -> str | None:
    """A project (repository) name: 1-200 characters without control characters or
    surrounding spaces, and no secret (it is stored and shown as it is, like a slot); ""
    (where allowed) says no project (global). None: not given."""
    if value is None:
        return None
    if allow_global and value == "":
        return ""
    if not isinstance(value, str) or not _SLOT.match(value) or value != value.strip():
        allowed = ', or "" for no project (global)' if allow_global else ""
        raise InvalidInput(
            field,
            f"must be a project name of 1-200 characters without control characters or surrounding spaces{allowed}",
        )
    return no_secret(field, value)


def sensitive(value: Any, metadata: dict[str, Any] | None, field: str = "sensitive") -> list[str]:
    """Names of metadata keys whose values are sensitive (sealed or redacted whole)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(k, str) and k for k in value):
        raise InvalidInput(field, "must be a list of metadata key names")
    missing = [shown(k) for k in value if k not in (metadata or {})]
    if missing:
        raise InvalidInput(
            field,
            f"names keys that metadata does not have: {', '.join(missing)}; "
            "list the metadata keys whose values are sensitive",
        )
    return list(dict.fromkeys(value))


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, "must be true or false")
    return value
