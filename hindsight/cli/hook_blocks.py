"""hindsight's hook entries for each client, and how they merge into its settings: the user's
own hooks stay as they are, hindsight's earlier entries are replaced, so installing twice
changes nothing.

    claude-code  ~/.claude/settings.json ("hooks": event -> [{matcher?, hooks: [handler]}]),
                 `mcp_tool` handlers calling the server's `hook` tool (no process per event)
    gemini       ~/.gemini/settings.json, the same shape, `command` handlers running
                 `hindsight-hook --client gemini` (Gemini CLI has command hooks only)
    codex        ~/.codex/hooks.json, the same shape, `command` handlers (`--client codex`)
    cursor       ~/.cursor/hooks.json ({"version": 1, "hooks": event -> [{command}]})

Claude Code: measured with 2.1.328, an mcp_tool SessionStart hook at startup is refused (the
server is still connecting: "mcp_tool hooks are not available for the 'SessionStart' hook
event (no MCP client context)") and at SessionEnd the server is already closed. So
SessionStart is hooked on clear and compact only (the standing preferences come with a
session's first prompt), and a session's outcome is kept at every Stop and PreCompact.
Gemini CLI fires PreCompress at every turn whether it compresses or not: it is not hooked.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

CLIENTS = ("claude-code", "gemini", "codex", "cursor")
TOOL = "hook"
TIMEOUT = 15  # seconds; the server answers {} after 12 (server.hook_tool.HOOK_WAIT)
CLAUDE_FIELDS = {  # Claude Code's hook input, by event: what the `hook` tool is given
    "SessionStart": {"source": "${source}"},
    "UserPromptSubmit": {"prompt": "${prompt}"},
    "PostToolUse": {"tool_name": "${tool_name}", "tool_input": "${tool_input}", "tool_response": "${tool_response}"},
    "PostToolUseFailure": {"tool_name": "${tool_name}", "tool_input": "${tool_input}", "error": "${error}"},
    "PreCompact": {"source": "${trigger}", "transcript_path": "${transcript_path}"},
    "Stop": {"transcript_path": "${transcript_path}"},
}
CLAUDE_MATCHERS = {
    "SessionStart": "clear|compact",  # at startup the server is not connected yet (see above)
    "PostToolUse": "Bash|Edit|MultiEdit|Write|NotebookEdit",  # commands, and the edits a fix is made of
    "PostToolUseFailure": "*",
}
COMMAND_EVENTS = {  # the command hooks of the other clients: event -> matcher (None: every one)
    "gemini": {"SessionStart": None, "BeforeAgent": None, "AfterTool": "run_shell_command|replace|write_file",
               "AfterAgent": None},
    "codex": {"SessionStart": None, "UserPromptSubmit": None, "PostToolUse": None, "Stop": None},
    "cursor": {"beforeSubmitPrompt": None, "afterShellExecution": None, "afterFileEdit": None, "stop": None},
}  # fmt: skip


def claude(server: str) -> dict[str, list[dict[str, Any]]]:
    """hindsight's hooks for Claude Code, event by event."""
    out = {}
    for event, fields in CLAUDE_FIELDS.items():
        call = {
            "type": "mcp_tool",
            "server": server,
            "tool": TOOL,
            "input": {"event": event, "session_id": "${session_id}", "cwd": "${cwd}", **fields},
            "timeout": TIMEOUT,
        }
        entry: dict[str, Any] = {"hooks": [call]}
        if event in CLAUDE_MATCHERS:
            entry["matcher"] = CLAUDE_MATCHERS[event]
        out[event] = [entry]
    return out


def commands(client: str, command: str) -> dict[str, list[dict[str, Any]]]:
    """hindsight's command hooks for Gemini CLI, Codex or Cursor, event by event."""
    line = f"{command} --client {client}"
    out: dict[str, list[dict[str, Any]]] = {}
    for event, matcher in COMMAND_EVENTS[client].items():
        if client == "cursor":
            out[event] = [{"command": line}]
            continue
        handler: dict[str, Any] = {"type": "command", "command": line, "timeout": TIMEOUT}
        if client == "gemini":
            handler.update(name="hindsight", timeout=TIMEOUT * 1000)  # Gemini CLI counts milliseconds
        entry: dict[str, Any] = {"hooks": [handler]}
        if matcher:
            entry["matcher"] = matcher
        out[event] = [entry]
    return out


def is_ours(client: str, server: str) -> Callable[[Any], bool]:
    """Whether a handler is one of hindsight's for this client."""
    if client == "claude-code":
        return lambda h: isinstance(h, dict) and h.get("type") == "mcp_tool" and h.get("server") == server and h.get(
            "tool") == TOOL  # fmt: skip
    return lambda h: isinstance(h, dict) and "hindsight-hook" in str(h.get("command", "")) and (
        f"--client {client}" in str(h.get("command", "")))  # fmt: skip


def without_ours(settings: dict[str, Any], ours: Callable[[Any], bool]) -> dict[str, Any]:
    """`settings` with hindsight's hook entries taken out (and events or entries left empty)."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        kept = []
        for entry in hooks[event] if isinstance(hooks[event], list) else []:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if isinstance(inner, list):  # {matcher?, hooks: [...]}
                rest = [h for h in inner if not ours(h)]
                if rest:
                    kept.append({**entry, "hooks": rest})
            elif not ours(entry):  # Cursor's flat entries
                kept.append(entry)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def merged(settings: dict[str, Any], block: dict[str, list[dict[str, Any]]], ours: Callable[[Any], bool]) -> dict:
    """`settings` with hindsight's entries in it, once, after the user's own."""
    out = without_ours(settings, ours)
    hooks = out.setdefault("hooks", {})
    for event, entries in block.items():
        hooks.setdefault(event, []).extend(entries)
    return out
