"""record_interaction: check an event, let the pure `should_store` policy decide, and store
what it keeps through the same write path as store_memory (dedup, guard, privacy)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InvalidInput
from ..rules import validate as v
from ..rules.clipping import clip
from ..rules.policy import Interaction, ToolResult, should_store
from ..rules.privacy import shown
from .memories import Memories

MAX_TOOL_RESULTS = 50
FEEDBACK = ("positive", "negative")


def _clipped(field: str, value: str, notes: list[str]) -> str:
    """Tool output and error text over 32 KB keep their head, tail and error lines."""
    kept, cut = clip(value, v.MAX_CONTENT_BYTES)
    if cut:
        notes.append(
            f"{field}: {cut:,} of {len(value.encode('utf-8')):,} bytes cut (over "
            f"{v.MAX_CONTENT_BYTES:,}); head, tail and error lines kept"
        )
    return kept


def _tool_results(value: Any, notes: list[str]) -> tuple[ToolResult, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_TOOL_RESULTS:
        raise InvalidInput(
            "tool_results",
            f"must be a list of at most {MAX_TOOL_RESULTS} objects {{tool, arguments?, output?, error?}}",
        )
    out = []
    for n, item in enumerate(value):
        field = f"tool_results[{n}]"
        if not isinstance(item, dict):
            raise InvalidInput(field, "must be an object {tool, arguments?, output?, error?}")
        unknown = set(item) - {"tool", "arguments", "output", "error", "status"}
        if unknown:
            raise InvalidInput(
                field, f"unknown keys {sorted(unknown)}; allowed: tool, arguments, output, error, status"
            )
        tool = v.identifier(f"{field}.tool", item.get("tool"), required=True)
        output = item.get("output", "")
        if output is None:
            output = ""
        if not isinstance(output, str):  # structured output is kept as JSON text (and cut like text)
            try:
                output = json.dumps(output, ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError, RecursionError):
                raise InvalidInput(f"{field}.output", "must be text or a JSON value (no NaN or Infinity)") from None
        if output:
            output = _clipped(f"{field}.output", output, notes)
            v.text(f"{field}.output", output, max_bytes=v.MAX_CONTENT_BYTES)
        error = item.get("error")
        if isinstance(error, str):
            error = _clipped(f"{field}.error", error, notes)
        error = v.text(f"{field}.error", error, max_bytes=v.MAX_CONTENT_BYTES, required=False)
        status = item.get("status")
        if status is not None and status not in ("ok", "success", "error", "failed"):
            raise InvalidInput(f"{field}.status", f"{shown(status)} is not allowed; use ok, success, error or failed")
        if status in ("error", "failed") and not error:
            error = f"{tool} reported status {status}"
        v.metadata({"arguments": item.get("arguments")}, f"{field}.arguments")
        out.append(ToolResult(tool, item.get("arguments"), output, error))
    return tuple(out)


def parse(
    content: Any,
    *,
    session_id: Any = None,
    task_type: Any = None,
    task_status: Any = None,
    user_feedback: Any = None,
    tool_results: Any = None,
    tools_used: Any = None,
    error: Any = None,
) -> Interaction:
    """Check an event's fields; every problem names the field and what is allowed. Tool
    output and error text over 32 KB are cut (head, tail and error lines kept), not refused."""
    notes: list[str] = []
    results = _tool_results(tool_results, notes)
    if isinstance(error, str):
        error = _clipped("error", error, notes)
    if content is None or (isinstance(content, str) and not content.strip() and results):
        content = ""
    else:
        content = v.content(content)
    if not content and not results:
        raise InvalidInput("content", "is required (what happened), unless tool_results are given")
    status = v.identifier("task_status", task_status, max_bytes=64)
    feedback = user_feedback
    if feedback is not None and feedback not in FEEDBACK:
        raise InvalidInput("user_feedback", f"{shown(feedback)} is not allowed; use positive or negative")
    return Interaction(
        content=content,
        session_id=v.identifier("session_id", session_id),
        task_type=v.identifier("task_type", task_type),
        task_status=status.strip().lower() if status else None,
        user_feedback=feedback,
        tool_results=results,
        tools_used=tuple(v.tags(tools_used, field="tools_used") or ()),
        error=v.text("error", error, max_bytes=v.MAX_CONTENT_BYTES, required=False),
        notes=tuple(notes),
    )


async def record(
    memories: Memories, agent_id: str, event: Interaction, project: Any = None, open_project: str | None = None
) -> dict[str, Any]:
    project = v.project(project)  # refused (a secret in it) whether or not the event is kept
    decision = should_store(event)
    cut = {"cut": list(event.notes)} if event.notes else {}
    if not decision.store:
        return {"stored": False, "reason": decision.reason, "id": None, **cut}
    result = await memories.store(
        agent_id,
        decision.content,
        memory_type=decision.memory_type,
        session_id=event.session_id,
        importance=decision.importance,
        metadata=decision.metadata,
        from_tool=decision.from_tool,
        project=project,
        open_project=open_project,
        call="record_interaction",
        reason=decision.reason,
    )
    out = {
        "stored": result["status"] != "duplicate",
        "reason": decision.reason,
        "id": result["id"],
        "status": result["status"],
        "memory_type": decision.memory_type,
    }
    if result["status"] == "duplicate":
        out["reason"] = f"{decision.reason}; already remembered (memory {result['id']} reinforced)"
    for key in ("superseded", "possible_conflicts", "flags", "redacted", "sealed"):
        if key in result:
            out[key] = result[key]
    return {**out, **cut}
