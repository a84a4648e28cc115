"""The `hindsight` command line. Data goes to stdout; progress, logs and errors to stderr.
Errors are one line and a non-zero exit, never a traceback.

A command is either a plain function of (args, settings) — keygen, doctor, mcp-config —
or an `async def` of (args, services): `main` gets the database ready (one synchronous
step: start or join it, migrate), opens the services once and hands them over.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import re
import shutil
import sys
import time
import uuid
from typing import Any

from .. import logs, version
from ..config import Settings
from ..data import bootstrap, migrate
from ..data.db import redact
from ..errors import HindsightError, InvalidInput, NotFound
from ..rules.validate import MEMORY_TYPES
from ..services import Services, opened
from . import render


def _out(lines: list[str]) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))


def _json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, default=str))


# ---- commands without the database ---------------------------------------------------------


def cmd_keygen(args, settings: Settings) -> int:
    from cryptography.fernet import Fernet

    print(Fernet.generate_key().decode())
    return 0


def cmd_doctor(args, settings: Settings) -> int:
    from ..data.db import ensure_pgvector
    from ..embedders.base import create, describe
    from .doctor import stdout_check

    url = bootstrap.resolve_url(settings)
    print(f"database: {redact(url)}{' (embedded)' if not settings.database_url else ''}")
    print(f"pgvector: {asyncio.run(ensure_pgvector(url))}")
    found = asyncio.run(migrate.current(url))
    name, dim = describe(settings)
    create(settings)
    print(f"embedder: {name} ({dim}-d) loads")
    clean, detail = stdout_check(_server_exe())  # the server migrates before it serves
    print(f"stdio:    {detail}")
    current = asyncio.run(migrate.current(url))
    moved = f", migrated from {found or 'nothing'} by the server's start" if current != found else ""
    print(f"schema:   {current or 'not migrated'} (newest {migrate.head()}{moved})")
    return 0 if current == migrate.head() and clean else 1


def _server_exe() -> str:
    """The hindsight-server installed with this CLI (same virtualenv), else the one on PATH."""
    from pathlib import Path

    beside = Path(sys.executable).parent / "hindsight-server"
    return str(beside) if beside.exists() else shutil.which("hindsight-server") or "hindsight-server"


def cmd_mcp_config(args, settings: Settings) -> int:
    from .ide_config import config_for

    config, notes = config_for(args.client, _server_exe(), settings)
    print(json.dumps(config, indent=2, ensure_ascii=False))
    for note in notes:
        print(f"hindsight mcp-config: {note}", file=sys.stderr)
    return 0


def cmd_ui(args, settings: Settings) -> int:
    from ..ui.serve import run as serve

    return serve(settings, port=args.port, open_browser=not args.no_browser, agent=args.agent)


# ---- commands on the database --------------------------------------------------------------


async def cmd_migrate(args, s: Services) -> int:
    print(f"database at revision {migrate.head()} ({redact(s.url)})", file=sys.stderr)
    return 0


async def cmd_store(args, s: Services) -> int:
    result = await s.memories.store(
        s.agent(args.agent),
        args.content,
        memory_type=args.type,
        importance=args.importance,
        metadata=args.metadata,
        tags=args.tag or None,
        session_id=args.session,
        slot=args.slot,
        call="cli store",
    )
    result.pop("memory")
    print(json.dumps(result, ensure_ascii=False) if args.json else result["id"])
    if result["status"] != "created" and not args.json:
        of = f" (of {result['duplicate_of']})" if "duplicate_of" in result else ""
        print(f"{result['status']}{of}", file=sys.stderr)
    return 0


async def cmd_recall(args, s: Services) -> int:
    if (args.query is None) == (args.batch is None):
        raise InvalidInput("recall", "give exactly one of --query or --batch")
    agent = s.agent(args.agent)
    if args.batch:
        for item in _batch_queries(args.batch, args.top_k):
            found = await s.recall.retrieve(agent, item["query"], top_k=item["k"], as_of=item["as_of"])
            results = [
                {key: m[key] for key in ("id", "content", "score", "created_at", "metadata")} for m in found["memories"]
            ]
            print(json.dumps({"qid": item["qid"], "results": results}, ensure_ascii=False), flush=True)
        return 0
    result = await s.recall.retrieve(agent, args.query, top_k=args.top_k)
    if args.json:
        _json(result)
    else:
        _out(render.recall_table(result["memories"], render.width()))
    if not result["memories"]:
        print("(no memories found)", file=sys.stderr)
    return 0


def _batch_queries(path: str, default_k: int) -> list[dict[str, Any]]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise InvalidInput(f"{path} line {n}", f"is not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or "query" not in obj:
                raise InvalidInput(f"{path} line {n}", 'must be an object with "query" (and "qid", "k", "as_of")')
            out.append(
                {
                    "qid": obj.get("qid", n),
                    "query": obj["query"],
                    "k": obj.get("k", default_k),
                    "as_of": obj.get("as_of"),
                }
            )
    return out


async def cmd_list(args, s: Services) -> int:
    listed = await s.memories.list(
        s.agent(args.agent),
        memory_type=args.type,
        session_id=args.session,
        tags=args.tag or None,
        metadata=args.metadata,
        include_shared=args.shared,
        include_invalidated=args.all,
        limit=args.limit,
        offset=args.offset,
    )
    if args.json:
        _json(listed)
        return 0
    _out(render.memory_table(listed["memories"], render.width()))
    shown = len(listed["memories"])
    if shown == args.limit:
        print(f"({shown} shown; --offset {args.offset + shown} for more)", file=sys.stderr)
    elif shown == 0:
        print(
            "(no memories" + ("" if args.all else "; --all includes invalidated and expired ones") + ")",
            file=sys.stderr,
        )
    return 0


async def _resolve(s: Services, agent: str, given: str) -> uuid.UUID:
    """A memory id, or an unambiguous prefix of one (as `list` prints them)."""
    try:
        return uuid.UUID(given)
    except ValueError:
        pass
    prefix = given.lower()
    if not re.fullmatch(r"[0-9a-f][0-9a-f-]{3,34}", prefix):
        raise InvalidInput(
            "memory_id",
            f"{given!r} is not a memory id or the start of one (at least 4 "
            "hexadecimal characters, as `hindsight list` shows)",
        )
    found = [r["id"] for r in await s.db.fetch("resolve_id_prefix", agent, prefix)]
    if not found:
        raise NotFound("memory_id", f"starting with {given!r}", agent)
    if len(found) > 1:
        raise InvalidInput(
            "memory_id",
            f"{given!r} is the start of several memories ({', '.join(str(f) for f in found)}); give more characters",
        )
    return found[0]


async def cmd_show(args, s: Services) -> int:
    from ..store.memories import row_to_dict

    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    try:
        memory = await s.memories.get(agent, mid, reveal=args.reveal)
    except NotFound:
        row = await s.db.fetchrow("show_archived", agent, mid)
        if row is None:
            raise
        memory = row_to_dict(row)
    try:
        history = await s.memories.history(agent, mid)
    except NotFound:  # another agent's shared memory: its history is the owner's
        history = []
    if args.json:
        _json({"memory": memory, "history": history})
    else:
        _out(render.memory_block(memory, history, render.width()))
    return 0


async def cmd_forget(args, s: Services) -> int:
    from ..upkeep.maintenance import forget_archived

    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    try:
        result = await s.memories.delete(agent, mid, call="cli forget")
    except NotFound:
        result = await forget_archived(s.db, agent, mid)
    _json(result)
    return 0


async def cmd_invalidate(args, s: Services) -> int:
    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    replacement = await _resolve(s, agent, args.replaced_by) if args.replaced_by else None
    m = await s.memories.invalidate(agent, mid, args.reason, replacement, call="cli invalidate")
    _json(
        {
            "invalidated": m["id"],
            "at": m["invalidated_at"],
            "reason": m["invalidation_reason"],
            "replaced_by": m["invalidated_by"],
        }
    )
    return 0


async def cmd_restore(args, s: Services) -> int:
    from ..upkeep.maintenance import restore

    agent = s.agent(args.agent)
    mid = await _resolve(s, agent, args.memory_id)
    _json(await restore(s.db, agent, mid, _now(None)))
    return 0


def _now(value: str | None):
    from datetime import datetime, timezone

    from ..rules import validate as v

    return v.timestamp("--now", value) if value else datetime.now(timezone.utc)


async def cmd_maintain(args, s: Services) -> int:
    from ..upkeep.maintenance import Maintenance

    report = await Maintenance(s.db, s.memories).run(_now(args.now), dry_run=args.dry_run, trigger="cli")
    print(json.dumps(report, ensure_ascii=False, default=str, indent=None if args.json else 2))
    if report["status"] == "skipped":
        print("hindsight maintain: another maintenance run is in progress; nothing done", file=sys.stderr)
    return 0


async def cmd_scheduler(args, s: Services) -> int:
    from ..upkeep.schedule import serve

    await serve(s)
    return 0


async def cmd_stats(args, s: Services) -> int:
    from .stats import collect
    from .stats import render as show

    data = await collect(s.db, args.agent, _now(None))
    if args.json:
        _json(data)
    else:
        show(data, render.width())
    return 0


async def cmd_reembed(args, s: Services) -> int:
    from ..embedders import base as embed
    from ..upkeep.reembed import reembed

    name, dimension = embed.describe(s.settings)
    bar, task = _progress(0, f"re-embedding with {name}")
    with bar:

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = await reembed(
            s.db, s.bulk_embedder, name, dimension, batch_size=args.batch_size, limit=args.limit, progress=progress
        )
    _json(result)
    if result["status"] == "paused":
        print(
            f"hindsight reembed: paused after {result['embedded']} memories, {result['remaining']} to go; "
            "run it again to continue",
            file=sys.stderr,
        )
    return 0


async def cmd_export(args, s: Services) -> int:
    from ..store.transfer import export_lines

    agent = s.agent(args.agent)
    lines = await export_lines(s.db, agent)
    sys.stdout.write("".join(line + "\n" for line in lines))
    print(f"exported {len(lines)} lines for agent {agent!r}", file=sys.stderr)
    return 0


def _progress(total: int, what: str):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    return bar, bar.add_task(what, total=total)


def load_import(args) -> list[dict[str, Any]]:
    """Every line checked before the database is even opened."""
    from ..store.importer import read_records

    if args.file == "-":
        return read_records(sys.stdin)
    with open(args.file, encoding="utf-8") as fh:
        return read_records(fh)


async def cmd_import(args, s: Services) -> int:
    from ..store.importer import import_records

    records, agent = args.loaded, s.agent(args.agent)
    embedder = s.bulk_embedder
    started = time.perf_counter()
    bar, task = _progress(len(records), "importing")
    with bar:
        counts = await import_records(
            s.db,
            embedder,
            agent,
            records,
            batch_size=args.batch_size,
            progress=lambda n: bar.advance(task, n),
            sealer=s.write_policy.sealer,
            on_conflict=args.on_conflict,
        )
    elapsed = time.perf_counter() - started
    done, trails = counts["imported"], counts["trails"]
    history = f" and the history of {trails} deleted {'memory' if trails == 1 else 'memories'}" if trails else ""
    print(
        f"imported {done} memories{history} for agent {agent!r} in {elapsed:.1f} s "
        f"({done / max(elapsed, 1e-9):.1f} memories/s); skipped {counts['skipped']} lines already present, "
        f"replaced {counts['replaced']}",
        file=sys.stderr,
    )
    return 0


# ---- the parser ------------------------------------------------------------------------------


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('must be a JSON object, e.g. \'{"task_type": "deploy"}\'')
    return value


def parser() -> argparse.ArgumentParser:
    agent = argparse.ArgumentParser(add_help=False)
    agent.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print JSON")
    one = argparse.ArgumentParser(add_help=False, parents=[agent])
    one.add_argument("memory_id", help="a memory id, or its first characters as `hindsight list` shows them")

    p = argparse.ArgumentParser(prog="hindsight", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action="version", version=f"hindsight {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler, help_: str, parents=(), **defaults) -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=help_, description=help_, parents=list(parents))
        s.set_defaults(handler=handler, **defaults)
        return s

    command("migrate", cmd_migrate, "bring the database schema to the newest revision")

    s = command("store", cmd_store, "store one memory", [agent, as_json])
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

    s = command("recall", cmd_recall, "recall memories relevant to a query", [agent, as_json])
    s.add_argument("--query", help="what to recall")
    s.add_argument(
        "--batch",
        metavar="QUERIES.jsonl",
        help='one query a line: {"qid", "query", "k"?, "as_of"?}; prints one JSON line each',
    )
    s.add_argument("--top-k", type=int, default=5)

    s = command("list", cmd_list, "browse memories, newest first", [agent, as_json])
    s.add_argument("--type", choices=MEMORY_TYPES, help="only this layer")
    s.add_argument("--session", help="only this session")
    s.add_argument("--tag", action="append", help="only memories with this tag (repeatable: all of them)")
    s.add_argument("--metadata", type=json_object, help="only memories whose metadata contains this object")
    s.add_argument("--all", action="store_true", help="also invalidated and expired memories")
    s.add_argument("--shared", action="store_true", help="also memories other agents shared")
    s.add_argument("--limit", type=int, default=20, help="how many (default 20, at most 200)")
    s.add_argument("--offset", type=int, default=0, help="skip this many (paging)")

    s = command("show", cmd_show, "one memory: every field and its history", [one, as_json])
    s.add_argument("--reveal", action="store_true", help="decrypt sealed secrets (needs HINDSIGHT_ENCRYPTION_KEY)")

    command("forget", cmd_forget, "delete one memory for good (its history keeps the trail, not the content)", [one])

    s = command("invalidate", cmd_invalidate, "mark one memory no longer true (kept as history)", [one])
    s.add_argument("--reason", required=True, help="why it is no longer true")
    s.add_argument("--replaced-by", metavar="ID", help="the memory that replaces it")

    s = command(
        "import", cmd_import, "bulk load memories from JSONL (a restore path: kept as given)", [agent], load=load_import
    )
    s.add_argument("file", metavar="FILE.jsonl", help="a JSONL file, or - for standard input")
    s.add_argument(
        "--on-conflict",
        choices=("skip", "replace"),
        default="skip",
        help="a line the agent already has (same id): skip it (default) or replace it",
    )
    s.add_argument("--batch-size", type=int, default=64, help="memories embedded and written together")

    command("export", cmd_export, "JSONL of every memory, its state and history (import restores it exactly)", [agent])

    s = command("maintain", cmd_maintain, "run the maintenance job once (decay, archive, consolidation)", [as_json])
    s.add_argument("--now", help="act as if it were this ISO 8601 time")
    s.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")

    command("scheduler", cmd_scheduler, "run the maintenance job on HINDSIGHT_MAINTENANCE_CRON (default 03:00)")
    command("restore", cmd_restore, "bring a memory back from the archive", [one])

    s = command("stats", cmd_stats, "counts by agent, type and state; decay histogram; last runs", [as_json])
    s.add_argument("--agent", help="only this agent")

    s = command(
        "reembed", cmd_reembed, "re-embed every memory with the configured embedder (resumable)", check_embedder=False
    )  # the point is to change embedders
    s.add_argument("--batch-size", type=int, default=64)
    s.add_argument("--limit", type=int, help="stop after this many memories (run again to continue)")

    s = command(
        "ui",
        cmd_ui,
        "a local web page (127.0.0.1, token in the printed URL) to see, search, explain and correct memories",
        [agent],
    )
    s.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: a free one)")
    s.add_argument("--no-browser", action="store_true", help="only print the URL, do not open a browser")

    command("keygen", cmd_keygen, "print a new HINDSIGHT_ENCRYPTION_KEY")
    command("doctor", cmd_doctor, "check database, pgvector, migrations, embedder and the server's stdout")
    s = command("mcp-config", cmd_mcp_config, "print the JSON an IDE needs to launch the server")
    s.add_argument("--client", default="claude-desktop", choices=["claude-desktop", "cursor", "vscode", "claude-code"])
    return p


def run(args, settings: Settings) -> int:
    if not inspect.iscoroutinefunction(args.handler):
        return args.handler(args, settings)
    if getattr(args, "load", None):
        args.loaded = args.load(args)
    url = bootstrap.prepare(settings, check_embedder=getattr(args, "check_embedder", True))

    async def work() -> int:
        async with opened(settings, url) as services:
            return await args.handler(args, services)

    return asyncio.run(work())


def main(argv: list[str] | None = None) -> None:
    logs.setup()
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        logs.setup(settings.log_level)
        code = run(args, settings)
    except HindsightError as exc:
        print(f"hindsight {args.command}: error: {exc}", file=sys.stderr)
        code = 2
    except OSError as exc:
        print(f"hindsight {args.command}: error: {exc.strerror or exc}: {exc.filename or ''}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    raise SystemExit(code)


if __name__ == "__main__":
    main()
