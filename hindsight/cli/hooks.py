"""`hindsight hooks install | uninstall | capture`: the IDE's lifecycle hooks in its settings
file, and a project's switch for capture.

Claude Code's hooks are `mcp_tool` hooks: each calls the `hook` tool of the hindsight server
Claude Code already runs (no process per event, the embedder already loaded). Measured with
Claude Code 2.1.328 (tests/e2e/test_hooks_claude_code.py, benchmarks/hook_latency.py): a
prompt's hook answers in tens of milliseconds. Two moments the server cannot serve that way:
SessionStart at startup (the server is still connecting: Claude Code skips the call and
records an error), and SessionEnd (Claude Code has closed the server by then). So
SessionStart is hooked on clear and compact only, and a session's standing preferences come
with its first prompt instead; a session's outcome is kept at the end of every turn (Stop)
and before a compaction (PreCompact), which SessionEnd would only repeat.

Install merges hindsight's entries into the settings file: the user's own hooks stay as they
are, hindsight's earlier entries are replaced (installing twice changes nothing), the file is
backed up first (settings.json.bak-<time>), and `--print` only shows the result.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import InvalidInput
from ..hooks.events import NO_CAPTURE

TOOL = "hook"
FIELDS = {  # Claude Code's hook input, by event: what the `hook` tool is given
    "SessionStart": {"source": "${source}"},
    "UserPromptSubmit": {"prompt": "${prompt}"},
    "PostToolUse": {"tool_name": "${tool_name}", "tool_input": "${tool_input}", "tool_response": "${tool_response}"},
    "PostToolUseFailure": {"tool_name": "${tool_name}", "tool_input": "${tool_input}", "error": "${error}"},
    "PreCompact": {"source": "${trigger}", "transcript_path": "${transcript_path}"},
    "Stop": {"transcript_path": "${transcript_path}"},
}
MATCHERS = {
    "SessionStart": "clear|compact",  # at startup the server is not connected yet (see above)
    "PostToolUse": "Bash|Edit|MultiEdit|Write|NotebookEdit",  # commands, and the edits a fix is made of
    "PostToolUseFailure": "*",
}
TIMEOUT = 15  # seconds; the tool answers {} after 12 (server.hook_tool.HOOK_WAIT)


def claude_hooks(server: str = "hindsight") -> dict[str, list[dict[str, Any]]]:
    """hindsight's hooks for Claude Code, event by event."""
    out = {}
    for event, fields in FIELDS.items():
        call = {
            "type": "mcp_tool",
            "server": server,
            "tool": TOOL,
            "input": {"event": event, "session_id": "${session_id}", "cwd": "${cwd}", **fields},
            "timeout": TIMEOUT,
        }
        entry: dict[str, Any] = {"hooks": [call]}
        if event in MATCHERS:
            entry["matcher"] = MATCHERS[event]
        out[event] = [entry]
    return out


def ours(hook: Any, server: str) -> bool:
    return (
        isinstance(hook, dict)
        and hook.get("type") == "mcp_tool"
        and hook.get("server") == server
        and hook.get("tool") == TOOL
    )


def without_ours(settings: dict[str, Any], server: str) -> dict[str, Any]:
    """`settings` with hindsight's hook entries taken out (and events or entries left empty)."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        entries = hooks[event] if isinstance(hooks[event], list) else []
        kept = []
        for entry in entries:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if isinstance(inner, list):
                rest = [h for h in inner if not ours(h, server)]
                if not rest:
                    continue
                entry = {**entry, "hooks": rest}
            kept.append(entry)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def merged(settings: dict[str, Any], server: str) -> dict[str, Any]:
    """`settings` with hindsight's hooks in it, once, after the user's own."""
    out = without_ours(settings, server)
    hooks = out.setdefault("hooks", {})
    for event, entries in claude_hooks(server).items():
        hooks.setdefault(event, []).extend(entries)
    return out


def settings_file(scope: str, project: Path | None = None) -> Path:
    """Claude Code's settings file of a scope: user (~/.claude/settings.json), project
    (<project>/.claude/settings.json, shared through the repository) or local
    (<project>/.claude/settings.local.json, this machine only)."""
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    folder = (project or Path.cwd()) / ".claude"
    return folder / ("settings.json" if scope == "project" else "settings.local.json")


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as exc:
        raise InvalidInput("settings", f"{path} is not valid JSON ({exc}); fix it first, nothing was changed") from None
    if not isinstance(found, dict):
        raise InvalidInput("settings", f"{path} does not hold a JSON object; nothing was changed")
    return found


def _write(path: Path, settings: dict[str, Any]) -> Path | None:
    """Write `settings`, backing up the file it replaces; the backup's path."""
    backup = None
    if path.exists():
        backup = path.with_name(f"{path.name}.bak-{datetime.now():%Y%m%d-%H%M%S}")
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return backup


def _change(args, settings: Settings, install: bool) -> int:
    if args.client != "claude-code":
        raise InvalidInput("client", f"{args.client!r}: hooks are written for claude-code (see the README for others)")
    path = (
        Path(args.file)
        if args.file
        else settings_file(args.scope, Path(args.project_dir) if args.project_dir else None)
    )
    before = _read(path)
    after = merged(before, args.server) if install else without_ours(before, args.server)
    if args.print:
        print(json.dumps(after, indent=2, ensure_ascii=False))
        return 0
    if after == before:
        print(
            f"{path}: hindsight's hooks already {'in place' if install else 'absent'}; nothing changed", file=sys.stderr
        )
        return 0
    backup = _write(path, after)
    done = "installed in" if install else "removed from"
    saved = f" (the previous file is {backup})" if backup else ""
    print(f"hindsight's hooks {done} {path}{saved}", file=sys.stderr)
    if install:
        print(
            f"they call the `{TOOL}` tool of the MCP server {args.server!r}: add it too if you have not "
            "(hindsight mcp-config --client claude-code --entry | claude mcp add-json --scope user hindsight -)",
            file=sys.stderr,
        )
    return 0


def cmd_install(args, settings: Settings) -> int:
    return _change(args, settings, install=True)


def cmd_uninstall(args, settings: Settings) -> int:
    return _change(args, settings, install=False)


def cmd_capture(args, settings: Settings) -> int:
    """Turn the hooks' capture on or off for one project (a file in its folder, which the
    team can commit); what the hooks bring back to the model is unchanged."""
    marker = Path(args.project_dir or Path.cwd()) / NO_CAPTURE
    if args.state == "off":
        marker.write_text("hindsight's hooks store nothing from this project (hindsight hooks capture on)\n")
    elif marker.exists():
        marker.unlink()
    print(f"capture {args.state} for {marker.parent}", file=sys.stderr)
    return 0
