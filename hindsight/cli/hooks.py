"""`hindsight hooks install | uninstall | capture`: the IDE's lifecycle hooks in its settings
file (cli/hook_blocks.py says which entries, and how each client runs them), and a project's
switch for capture.

Install merges hindsight's entries into the client's file: the user's own hooks stay as they
are, hindsight's earlier entries are replaced (installing twice changes nothing), the file is
backed up first (<file>.bak-<time>), and `--print` only shows the result. Gemini CLI and
Codex run a command per event: `hindsight-hook` (cli/hook_client.py), which hands the event
to the hindsight server the same client runs.
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from ..config import NO_CAPTURE, Settings
from ..errors import InvalidInput
from . import hook_blocks as blocks

FILES = {  # client -> (its folder, the settings file hooks live in)
    "claude-code": (".claude", "settings.json"),
    "gemini": (".gemini", "settings.json"),
    "codex": (".codex", "hooks.json"),
    "cursor": (".cursor", "hooks.json"),
}


def settings_file(scope: str, project: Path | None = None, client: str = "claude-code") -> Path:
    """The client's file of a scope: user (~/.claude/settings.json …), project
    (<project>/.claude/settings.json, shared through the repository) or local (Claude Code's
    <project>/.claude/settings.local.json, this machine only)."""
    folder, name = FILES[client]
    if scope == "user":
        return Path.home() / folder / name
    if scope == "local" and client != "claude-code":
        raise InvalidInput("scope", f"local is Claude Code's (settings.local.json); for {client} use user or project")
    return (project or Path.cwd()) / folder / (name if scope == "project" else "settings.local.json")


def _block(client: str, server: str) -> dict:
    if client == "claude-code":
        return blocks.claude(server)
    beside = Path(sys.executable).parent / "hindsight-hook"
    return blocks.commands(client, str(beside) if beside.exists() else "hindsight-hook")


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
    project = Path(args.project_dir) if args.project_dir else None
    path = Path(args.file) if args.file else settings_file(args.scope, project, args.client)
    before = _read(path)
    ours = blocks.is_ours(args.client, args.server)
    after = (
        blocks.merged(before, _block(args.client, args.server), ours) if install else blocks.without_ours(before, ours)
    )
    if install and args.client == "cursor":
        after.setdefault("version", 1)
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
        print(NEXT[args.client].format(server=args.server), file=sys.stderr)
    return 0


NEXT = {
    "claude-code": "they call the `hook` tool of the MCP server {server!r}: add it too if you have not "
    "(hindsight mcp-config --client claude-code --entry | claude mcp add-json --scope user hindsight -)",
    "gemini": "they reach the hindsight server Gemini CLI runs (hindsight mcp-config --client gemini)",
    "codex": "they reach the hindsight server Codex runs (hindsight mcp-config --client codex); Codex reads "
    "hooks with `[features] codex_hooks = true` in ~/.codex/config.toml",
    "cursor": "they reach the hindsight server Cursor runs (hindsight mcp-config --client cursor); Cursor's "
    "prompt hook cannot add context: it captures, recall stays the model's (retrieve_memory)",
}


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
