"""A hook's event as the hooks part reads it, from what each client sends: Claude Code's
mcp_tool hook input (its fields by name, objects as JSON text), and the JSON a command hook of
Gemini CLI, Cursor or Codex reads on stdin."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import NO_CAPTURE
from ..errors import InvalidInput
from ..rules import projects
from ..rules import validate as v
from ..rules.capture import ToolEvent

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PreCompact", "Stop")
# The other clients' names for the same moments.
ALIASES = {
    "BeforeAgent": "UserPromptSubmit",  # Gemini CLI
    "AfterTool": "PostToolUse",
    "PreCompress": "PreCompact",
    "AfterAgent": "Stop",
    "beforeSubmitPrompt": "UserPromptSubmit",  # Cursor
    "afterShellExecution": "PostToolUse",
    "afterMCPExecution": "PostToolUse",
    "afterFileEdit": "PostToolUse",
    "stop": "Stop",
    "sessionStart": "SessionStart",
}
MAX_FIELD = 256 * 1024  # characters of a tool's input or output read from one event


@dataclass(frozen=True)
class HookEvent:
    name: str  # one of EVENTS
    session_id: str | None = None
    cwd: str | None = None
    prompt: str = ""
    tool: ToolEvent | None = None
    source: str = ""  # SessionStart's: startup, resume, clear, compact
    transcript_path: str | None = None


def from_fields(fields: dict[str, Any]) -> HookEvent:
    """The event from a hook's fields (Claude Code's names; Gemini CLI's and Cursor's map to
    them). InvalidInput names a field that is unusable."""
    name = str(fields.get("hook_event_name") or fields.get("event") or "")
    name = ALIASES.get(name, name)
    if name not in EVENTS:
        raise InvalidInput("event", f"{name!r} is not a hook event hindsight handles; allowed: {', '.join(EVENTS)}")
    tool = None
    if name in ("PostToolUse", "PostToolUseFailure"):
        tool = _tool(fields, failed=name == "PostToolUseFailure")
    session = _text(fields.get("session_id") or fields.get("conversation_id"))
    return HookEvent(
        name=name,
        session_id=v.identifier("session_id", session) if session else None,
        cwd=_text(fields.get("cwd") or _first(fields.get("workspace_roots"))) or None,
        prompt=_text(fields.get("prompt") or fields.get("user_prompt")),
        tool=tool,
        source=_text(fields.get("source") or fields.get("trigger")),
        transcript_path=_text(fields.get("transcript_path")) or None,
    )


def _tool(fields: dict[str, Any], failed: bool) -> ToolEvent:
    name = _text(fields.get("tool_name"))
    arguments = _json(fields.get("tool_input"))
    if not name and fields.get("command") is not None:  # Cursor's afterShellExecution
        name, arguments = "shell", {"command": _text(fields.get("command"))}
    if not name:
        raise InvalidInput("tool_name", "is required for a tool event: the tool the agent called")
    output = _json(fields.get("tool_response") or fields.get("tool_output") or fields.get("output"))
    error = _text(fields.get("error")) or None
    if failed and not error:
        error = "the tool reported a failure"
    return ToolEvent(name, arguments, output, error)


def _json(value: Any) -> Any:
    """An object given as JSON text (Claude Code interpolates objects so), or as it is."""
    if isinstance(value, str):
        value = value[:MAX_FIELD]
        if value.strip().startswith(("{", "[")):
            try:
                return json.loads(value)
            except ValueError:
                return value
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    return (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))[:MAX_FIELD]


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def capturing(on: bool, cwd: str | None, folder: tuple[str, str, str] | None) -> bool:
    """Whether the hooks store anything: not with HINDSIGHT_CAPTURE=off (`on`), nor in a
    project whose folder holds .hindsight-no-capture (`hindsight hooks capture off`)."""
    if not on:
        return False
    places = [Path(cwd)] if cwd else []
    root = projects.folder_of(folder[0]) if folder else None
    if root:
        places.append(Path(root))
    try:
        return not any((place / NO_CAPTURE).exists() for place in places)
    except OSError:
        return True
