"""The lines of an import file, each checked before anything is written (importer.py
plans and writes them): a plain line's fields (see importer.py), or a line written by
`hindsight export` (transfer.py). Pure but for the JSON parser."""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..errors import InvalidInput
from ..rules import validate as v
from . import transfer

KNOWN = {
    "content",
    "text",
    "timestamp",
    "created_at",
    "memory_type",
    "importance",
    "metadata",
    "tags",
    "id",
    "session_id",
    "slot",
    "supersedes",
    "invalidated_at",
    "invalidation_reason",
    "project",
}
RESTORE_KEYS = {"format", "memory_id", "restore", "deleted", "history"}  # lines written by `hindsight export`


def parse_line(line: str, lineno: int) -> dict[str, Any] | None:
    """One JSONL line -> a checked record, or None for a blank line."""
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise InvalidInput(f"line {lineno}", f"is not valid JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise InvalidInput(f"line {lineno}", "must be a JSON object")
    unknown = set(obj) - KNOWN - (RESTORE_KEYS if "memory_id" in obj else set())
    if unknown:
        raise InvalidInput(f"line {lineno}", f"unknown keys {sorted(unknown)}; allowed: {sorted(KNOWN)}")
    restore = transfer.parse_restore(obj, lineno) if "memory_id" in obj else None
    if restore is not None and restore["kind"] == "history":
        return {"restore": restore}
    try:
        record = _plain(obj)
    except InvalidInput as exc:
        raise InvalidInput(f"line {lineno}: {exc.field}", exc.problem) from None
    record.update(restore=restore, line=lineno)
    return record


def _plain(obj: dict[str, Any]) -> dict[str, Any]:
    content = v.content(obj.get("content", obj.get("text")))
    metadata = dict(v.metadata(obj.get("metadata")) or {})
    external = None
    if obj.get("id") is not None:
        if not isinstance(obj["id"], (str, int)) or isinstance(obj["id"], bool):
            raise InvalidInput("id", "must be a string or a number")
        external = metadata["external_id"] = str(obj["id"])
    created = v.timestamp("timestamp", obj.get("timestamp"))
    alias = v.timestamp("created_at", obj.get("created_at"))
    if created is not None and alias is not None and created != alias:
        raise InvalidInput("created_at", "differs from timestamp; give one of them (created_at is its alias)")
    invalidated = v.timestamp("invalidated_at", obj.get("invalidated_at"))
    created = created or alias
    if invalidated is not None and created is not None and invalidated < created:
        raise InvalidInput("invalidated_at", "is before the memory was created (timestamp)")
    supersedes = obj.get("supersedes")
    if supersedes is not None and (not isinstance(supersedes, (str, int)) or isinstance(supersedes, bool)):
        raise InvalidInput("supersedes", "must be the external id (or memory id) of the memory this one replaces")
    reason = v.text("invalidation_reason", obj.get("invalidation_reason"), max_bytes=2048, required=False)
    if reason is not None and invalidated is None:
        raise InvalidInput("invalidation_reason", "needs invalidated_at")
    return {
        "content": content,
        "created_at": created,
        "memory_type": v.memory_type(obj.get("memory_type", "episodic")),
        "importance": v.importance(obj.get("importance", 3)),
        "metadata": v.metadata(metadata),
        "tags": v.tags(obj.get("tags")) or [],
        "session_id": v.identifier("session_id", obj.get("session_id")),
        "slot": v.slot(obj.get("slot")),
        "supersedes": None if supersedes is None else str(supersedes),
        "invalidated_at": invalidated,
        "invalidation_reason": reason,
        "external_id": external,
        "project": v.project(obj.get("project")) or None,
    }


MAX_BAD_SHOWN = 20  # bad lines named in the error; the rest are counted


def read_records(lines: Iterable[str], skip_bad: bool = False) -> tuple[list[dict[str, Any]], list[InvalidInput]]:
    """Every line checked: (the records, the bad lines' errors). A bad line stops the
    import — InvalidInput naming each (up to MAX_BAD_SHOWN), nothing imported — unless
    `skip_bad`, when the good lines go ahead and the bad ones are returned."""
    records, bad = [], []
    for n, line in enumerate(lines, 1):
        try:
            record = parse_line(line, n)
        except InvalidInput as exc:
            bad.append(exc)
            continue
        if record is not None:
            records.append(record)
    if bad and not skip_bad:
        untouched = "nothing was imported (--skip-bad-lines imports the other lines)"
        if len(bad) == 1:
            raise InvalidInput(bad[0].field, f"{bad[0].problem}; {untouched}")
        raise InvalidInput(f"{len(bad)} bad lines", f"{untouched}:\n{bad_lines(bad)}")
    return records, bad


def bad_lines(bad: list[InvalidInput]) -> str:
    """The bad lines' errors, one per line (the first MAX_BAD_SHOWN, then a count)."""
    shown = [f"  {exc}" for exc in bad[:MAX_BAD_SHOWN]]
    if len(bad) > MAX_BAD_SHOWN:
        shown.append(f"  ... and {len(bad) - MAX_BAD_SHOWN} more")
    return "\n".join(shown)


# ---- the plan: pure ------------------------------------------------------------------------
