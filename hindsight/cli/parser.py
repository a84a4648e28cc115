"""The argparse tree of the `hindsight` command, one small function per group of commands.
Each command's handler is set as its default: a plain function of (args, settings) from
offline, or an `async def` of (args, services) from commands.
"""

from __future__ import annotations

import argparse
import importlib
import json
from typing import Any, NamedTuple

from .. import version
from ..rules.kinds import MEMORY_TYPES
from .hook_blocks import CLIENTS as HOOK_CLIENTS
from .ide_config import CLIENTS


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('must be a JSON object, e.g. \'{"task_type": "deploy"}\'')
    return value


class OneLine(argparse.ArgumentParser):
    """A usage error is one line on stderr (the README's promise), naming where help is."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class Lazy(NamedTuple):
    """A command's handler, imported only when the command runs: `hindsight --help` and
    `--version` import nothing heavy (no database driver, no numpy)."""

    module: str  # under hindsight.cli
    name: str

    def resolve(self) -> Any:
        return getattr(importlib.import_module(f"hindsight.cli.{self.module}"), self.name)


class Shared(NamedTuple):
    """The options several commands share, as argparse parents."""

    agent: argparse.ArgumentParser  # --agent
    as_json: argparse.ArgumentParser  # --json
    one: argparse.ArgumentParser  # --agent and one memory id


def _shared() -> Shared:
    agent = argparse.ArgumentParser(add_help=False)
    agent.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print JSON")
    one = argparse.ArgumentParser(add_help=False, parents=[agent])
    one.add_argument("memory_id", help="a memory id, or its first characters as `hindsight list` shows them")
    return Shared(agent, as_json, one)


class Commands:
    """Adds one subcommand: its help doubles as its description, its handler is a default."""

    def __init__(self, sub) -> None:
        self.sub = sub

    def __call__(self, name: str, handler, help_: str, parents=(), **defaults) -> argparse.ArgumentParser:
        s = self.sub.add_parser(name, help=help_, description=help_, parents=list(parents))
        s.set_defaults(handler=handler, **defaults)
        return s


def _store_recall_list(command: Commands, p: Shared) -> None:
    s = command("store", Lazy("commands", "cmd_store"), "store one memory", [p.agent, p.as_json])
    s.add_argument("content")
    s.add_argument(
        "--type",
        default="episodic",
        choices=MEMORY_TYPES,
        help="semantic: facts and preferences; procedural: how-to, fixes; episodic: events "
        "(the default); working: scratch state",
    )
    s.add_argument("--importance", type=int, default=3, help="1-5 (default 3)")
    s.add_argument(
        "--slot",
        help="the fact this memory is the current value of, e.g. preference:editor "
        "(supersedes the slot's previous memory)",
    )
    s.add_argument("--metadata", type=json_object, help="a JSON object")
    s.add_argument("--tag", action="append", help="a tag (repeatable)")
    s.add_argument("--session", help="session id")
    s.add_argument(
        "--project",
        help='the project it belongs to ("" for none); default: HINDSIGHT_PROJECT, except preferences about the user',
    )

    s = command("recall", Lazy("commands", "cmd_recall"), "recall memories relevant to a query", [p.agent, p.as_json])
    s.add_argument("question", nargs="?", metavar="QUERY", help='what to recall: hindsight recall "…" (or --query)')
    s.add_argument("--query", help="what to recall")
    s.add_argument(
        "--batch",
        metavar="QUERIES.jsonl",
        help='one query a line: {"qid", "query", "k"?, "as_of"?}; prints one JSON line each',
    )
    s.add_argument("--top-k", type=int, default=5)
    s.add_argument("--project", help='only this project\'s memories ("" for the global ones)')

    s = command("list", Lazy("commands", "cmd_list"), "browse memories, newest first", [p.agent, p.as_json])
    s.add_argument("--type", choices=MEMORY_TYPES, help="only this layer")
    s.add_argument("--session", help="only this session")
    s.add_argument("--tag", action="append", help="only memories with this tag (repeatable: all of them)")
    s.add_argument("--metadata", type=json_object, help="only memories whose metadata contains this object")
    s.add_argument("--all", action="store_true", help="also invalidated and expired memories")
    s.add_argument("--shared", action="store_true", help="also memories other agents shared")
    s.add_argument("--project", help='only this project\'s memories ("" for the global ones)')
    s.add_argument("--limit", type=int, default=20, help="how many (default 20, at most 200)")
    s.add_argument("--offset", type=int, default=0, help="skip this many (paging)")


def _one_memory(command: Commands, p: Shared) -> None:
    s = command("show", Lazy("commands", "cmd_show"), "one memory: every field and its history", [p.one, p.as_json])
    s.add_argument("--reveal", action="store_true", help="decrypt sealed secrets (needs HINDSIGHT_ENCRYPTION_KEY)")

    s = command(
        "forget",
        Lazy("corrections", "cmd_forget"),
        "delete one memory for good (its history keeps the trail, not the content)",
        [p.one, p.as_json],
    )
    s.add_argument("--yes", action="store_true", help="do not ask (needed when there is no terminal)")

    s = command(
        "invalidate",
        Lazy("corrections", "cmd_invalidate"),
        "mark one memory no longer true (kept as history)",
        [p.one, p.as_json],
    )
    s.add_argument("--reason", required=True, help="why it is no longer true")
    s.add_argument("--replaced-by", metavar="ID", help="the memory that replaces it")


def _import_export(command: Commands, p: Shared) -> None:
    s = command(
        "import",
        Lazy("commands", "cmd_import"),
        "bulk load memories from JSONL (a restore path: kept as given)",
        [p.agent],
        load=Lazy("commands", "load_import"),
    )
    s.add_argument("file", metavar="FILE.jsonl", help="a JSONL file, or - for standard input")
    s.add_argument(
        "--on-conflict",
        choices=("skip", "replace"),
        default="skip",
        help="a line the agent already has (same id): skip it (default) or replace it",
    )
    s.add_argument("--batch-size", type=int, default=64, help="memories embedded and written together")
    s.add_argument(
        "--skip-bad-lines", action="store_true", help="import the good lines when some are bad (each is named)"
    )

    command(
        "export",
        Lazy("commands", "cmd_export"),
        "JSONL of every memory, its state and history (import restores it exactly)",
        [p.agent],
    )


def _upkeep(command: Commands, p: Shared) -> None:
    s = command(
        "maintain",
        Lazy("commands", "cmd_maintain"),
        "run the maintenance job once (decay, archive, consolidation)",
        [p.as_json],
    )
    s.add_argument("--now", help="act as if it were this ISO 8601 time")
    s.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")

    command(
        "scheduler",
        Lazy("commands", "cmd_scheduler"),
        "run the maintenance job on HINDSIGHT_MAINTENANCE_CRON (default 03:00)",
    )
    command("restore", Lazy("corrections", "cmd_restore"), "bring a memory back from the archive", [p.one, p.as_json])

    s = command(
        "stats",
        Lazy("commands", "cmd_stats"),
        "counts by agent, type and state; decay histogram; last runs",
        [p.as_json],
    )
    s.add_argument("--agent", help="only this agent")

    s = command(
        "reembed",
        Lazy("commands", "cmd_reembed"),
        "re-embed every memory with the configured embedder (resumable)",
        check_embedder=False,
    )  # the point is to change embedders
    s.add_argument("--batch-size", type=int, default=64)
    s.add_argument("--limit", type=int, help="stop after this many memories (run again to continue)")


def _tokens(command: Commands, p: Shared) -> None:
    s = command(
        "token",
        Lazy("commands", "cmd_token"),
        "bearer tokens for `hindsight-server --transport streamable-http`: create (shown once), list, revoke",
        [p.as_json],
    )
    s.add_argument("action", choices=("create", "list", "revoke"))
    s.add_argument("which", nargs="?", help="revoke: the token's id (8 characters or more) or its name")
    s.add_argument("--agent", help="create: the agent it acts for (default: HINDSIGHT_AGENT_ID)")
    s.add_argument("--allow", help="create: other agents a call may name, a comma list (or *)")
    s.add_argument("--name", help="create: what it is for, e.g. laptop or ci-bot")
    s.add_argument("--expires", help="create: its lifetime, e.g. 90d, 12h, 2w (default: never)")


def _offline(command: Commands, p: Shared) -> None:
    s = command(
        "ui",
        Lazy("offline", "cmd_ui"),
        "a local web page (127.0.0.1, token in the printed URL) to see, search, explain and correct memories",
        [p.agent],
    )
    s.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: a free one)")
    s.add_argument("--no-browser", action="store_true", help="only print the URL, do not open a browser")

    command("keygen", Lazy("offline", "cmd_keygen"), "print a new HINDSIGHT_ENCRYPTION_KEY")
    command(
        "doctor",
        Lazy("offline", "cmd_doctor"),
        "check database, pgvector, migrations, embedder and the server's stdout",
    )
    s = command(
        "mcp-config", Lazy("offline", "cmd_mcp_config"), "print the config an IDE or agent needs to launch the server"
    )
    s.add_argument(
        "--client", default="claude-desktop", choices=CLIENTS, help="whose config (codex: TOML; others: JSON)"
    )
    s.add_argument(
        "--entry", action="store_true", help="only the server's entry, on one line (for `claude mcp add-json`)"
    )


def _hooks(command: Commands, p: Shared) -> None:
    s = command(
        "hooks",
        None,
        "the IDE's lifecycle hooks: install them in its settings, remove them, turn capture off for a project",
    )
    actions = Commands(s.add_subparsers(dest="action", required=True, metavar="ACTION"))
    for name, handler, what in (
        (
            "install",
            Lazy("hooks", "cmd_install"),
            "merge hindsight's hooks into the client's settings (backed up first)",
        ),
        ("uninstall", Lazy("hooks", "cmd_uninstall"), "take hindsight's hooks out of the client's settings"),
    ):
        a = actions(name, handler, what)
        a.add_argument("--client", default="claude-code", choices=HOOK_CLIENTS, help="whose settings")
        a.add_argument(
            "--scope",
            default="user",
            choices=("user", "project", "local"),
            help="user: ~/.claude/settings.json (~/.gemini/settings.json, ~/.codex/hooks.json, ~/.cursor/hooks.json; "
            "the default); project: the same in the project's folder; local: .claude/settings.local.json",
        )
        a.add_argument("--project-dir", help="the project's folder for --scope project or local (default: here)")
        a.add_argument("--file", help="this settings file instead of the scope's")
        a.add_argument(
            "--server", default="hindsight", help="the name the MCP server is added under (default hindsight)"
        )
        a.add_argument("--print", action="store_true", help="print the settings it would write, change nothing")
    a = actions(
        "capture",
        Lazy("hooks", "cmd_capture"),
        "whether the hooks store anything from a project (a file in its folder)",
    )
    a.add_argument("state", choices=("on", "off"))
    a.add_argument("--project-dir", help="the project's folder (default: here)")


def parser() -> argparse.ArgumentParser:
    p = OneLine(prog="hindsight", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action="version", version=f"hindsight {version()}")
    command = Commands(p.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    shared = _shared()
    command("migrate", Lazy("commands", "cmd_migrate"), "bring the database schema to the newest revision")
    for group in (_store_recall_list, _one_memory, _import_export, _upkeep, _tokens, _offline, _hooks):
        group(command, shared)  # in this order: `hindsight --help` lists them so
    return p
