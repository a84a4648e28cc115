"""The `hindsight` command line. Data goes to stdout; progress, logs and errors to stderr.
Errors are one line and a non-zero exit, never a traceback."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import shutil
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from . import bootstrap, migrate
from .config import Settings
from .db import Database, redact
from .embed import AsyncEmbedder, create as create_embedder
from .errors import HindsightError
from .memories import Memories, WritePolicy
from .recall import Recall


BULK_THREADS = 2  # import and batch recall embed with both cores unless told otherwise


@contextlib.asynccontextmanager
async def _opened(settings: Settings, url: str, threads: int | None = None):
    """The pool and the embedder for one command: (Database, Embedder)."""
    embedder = create_embedder(settings, threads)
    db = await Database.open(url, max_size=8)
    try:
        yield db, embedder
    finally:
        await db.close()


def _with_db(url: str, work: Callable[[Database], Awaitable[Any]]) -> Any:
    """Run one coroutine against a small pool that is closed afterwards."""
    async def run() -> Any:
        db = await Database.open(url, max_size=2)
        try:
            return await work(db)
        finally:
            await db.close()

    return asyncio.run(run())


def cmd_migrate(args, settings: Settings) -> int:
    url = bootstrap.prepare(settings)
    print(f"database at revision {migrate.head()} ({redact(url)})", file=sys.stderr)
    return 0


def cmd_store(args, settings: Settings) -> int:
    url = bootstrap.prepare(settings)
    metadata = json.loads(args.metadata) if args.metadata else None

    async def run() -> dict[str, Any]:
        async with _opened(settings, url) as (db, embedder):
            memories = Memories(db, AsyncEmbedder(embedder), WritePolicy.from_settings(settings))
            return await memories.store(args.agent or settings.agent_id, args.content,
                                        memory_type=args.type, importance=args.importance,
                                        metadata=metadata, tags=args.tag or None,
                                        session_id=args.session, slot=args.slot, call="cli store")

    result = asyncio.run(run())
    result.pop("memory")
    print(json.dumps(result, ensure_ascii=False) if args.json else result["id"])
    if result["status"] != "created" and not args.json:
        print(f"{result['status']}" + (f" (of {result['duplicate_of']})" if "duplicate_of" in result else ""),
              file=sys.stderr)
    return 0


def _now(value: str | None):
    from datetime import datetime, timezone

    from . import validate as v

    return v.timestamp("--now", value) if value else datetime.now(timezone.utc)


def cmd_maintain(args, settings: Settings) -> int:
    from .maintenance import Maintenance

    url = bootstrap.prepare(settings)
    now = _now(args.now)

    async def run() -> dict[str, Any]:
        async with _opened(settings, url) as (db, embedder):
            memories = Memories(db, AsyncEmbedder(embedder), WritePolicy.from_settings(settings))
            return await Maintenance(db, memories).run(now, dry_run=args.dry_run, trigger="cli")

    report = asyncio.run(run())
    print(json.dumps(report, ensure_ascii=False, default=str, indent=None if args.json else 2))
    if report["status"] == "skipped":
        print("hindsight maintain: another maintenance run is in progress; nothing done", file=sys.stderr)
    return 0


def cmd_scheduler(args, settings: Settings) -> int:
    from .scheduling import serve

    url = bootstrap.prepare(settings)
    asyncio.run(serve(settings, url))
    return 0


def cmd_restore(args, settings: Settings) -> int:
    from .maintenance import restore

    url = bootstrap.prepare(settings)

    result = _with_db(url, lambda db: restore(db, args.agent or settings.agent_id, args.memory_id, _now(None)))
    print(json.dumps(result))
    return 0


def cmd_stats(args, settings: Settings) -> int:
    from .stats import collect, render

    url = bootstrap.prepare(settings)

    data = _with_db(url, lambda db: collect(db, args.agent, _now(None)))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        render(data)
    return 0


def cmd_reembed(args, settings: Settings) -> int:
    from . import embed
    from .reembed import reembed

    url = bootstrap.prepare(settings, check_embedder=False)  # the point is to change embedders
    name, dimension = embed.describe(settings)
    threads = settings.embed_threads or BULK_THREADS

    async def run() -> dict[str, Any]:
        async with _opened(settings, url, threads) as (db, embedder):
            bar, task = _progress(0, f"re-embedding with {name}")
            with bar:
                def progress(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)
                return await reembed(db, embedder, name, dimension, batch_size=args.batch_size,
                                     limit=args.limit, progress=progress)

    result = asyncio.run(run())
    print(json.dumps(result))
    if result["status"] == "paused":
        print(f"hindsight reembed: paused after {result['embedded']} memories, {result['remaining']} to go; "
              "run it again to continue", file=sys.stderr)
    return 0


def cmd_export(args, settings: Settings) -> int:
    from .transfer import export_lines

    url = bootstrap.prepare(settings)

    lines = _with_db(url, lambda db: export_lines(db, args.agent or settings.agent_id))
    for line in lines:
        sys.stdout.write(line + "\n")
    print(f"exported {len(lines)} lines for agent {args.agent or settings.agent_id!r}", file=sys.stderr)
    return 0


def cmd_keygen(args, settings: Settings) -> int:
    from cryptography.fernet import Fernet

    print(Fernet.generate_key().decode())
    return 0


def _progress(total: int, what: str):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=False)
    return bar, bar.add_task(what, total=total)


def cmd_import(args, settings: Settings) -> int:
    import time

    from .importer import import_records, read_records

    if args.file == "-":
        records = read_records(sys.stdin)  # every line checked before anything is written
    else:
        with open(args.file, encoding="utf-8") as fh:
            records = read_records(fh)
    url = bootstrap.prepare(settings)
    agent = args.agent or settings.agent_id
    threads = settings.embed_threads or BULK_THREADS

    async def run() -> int:
        async with _opened(settings, url, threads) as (db, embedder):
            bar, task = _progress(len(records), "importing")
            with bar:
                return await import_records(db, embedder, agent, records, batch_size=args.batch_size,
                                            progress=lambda n: bar.advance(task, n),
                                            sealer=WritePolicy.from_settings(settings).sealer)

    started = time.perf_counter()
    count = asyncio.run(run())
    elapsed = time.perf_counter() - started
    print(f"imported {count} memories for agent {agent!r} in {elapsed:.1f} s "
          f"({count / max(elapsed, 1e-9):.1f} memories/s)", file=sys.stderr)
    return 0


def _batch_queries(path: str, default_k: int) -> list[dict[str, Any]]:
    from .errors import InvalidInput

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
            out.append({"qid": obj.get("qid", n), "query": obj["query"], "k": obj.get("k", default_k),
                        "as_of": obj.get("as_of")})
    return out


def cmd_recall_batch(args, settings: Settings, url: str) -> int:
    batch = _batch_queries(args.batch, args.top_k)
    agent = args.agent or settings.agent_id

    async def run() -> None:
        async with _opened(settings, url, settings.embed_threads or BULK_THREADS) as (db, embedder):
            recall = Recall(db, AsyncEmbedder(embedder), tz=settings.zone())
            for item in batch:
                found = await recall.retrieve(agent, item["query"], top_k=item["k"], as_of=item["as_of"])
                results = [{key: m[key] for key in ("id", "content", "score", "created_at", "metadata")}
                           for m in found["memories"]]
                print(json.dumps({"qid": item["qid"], "results": results}, ensure_ascii=False), flush=True)

    asyncio.run(run())
    return 0


def cmd_recall(args, settings: Settings) -> int:
    if (args.query is None) == (args.batch is None):
        from .errors import InvalidInput

        raise InvalidInput("recall", "give exactly one of --query or --batch")
    url = bootstrap.prepare(settings)
    if args.batch:
        return cmd_recall_batch(args, settings, url)

    async def run() -> dict[str, Any]:
        async with _opened(settings, url) as (db, embedder):
            return await Recall(db, AsyncEmbedder(embedder), tz=settings.zone()).retrieve(args.agent or settings.agent_id, args.query, top_k=args.top_k)

    result = asyncio.run(run())
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    width = shutil.get_terminal_size((100, 20)).columns
    for rank, m in enumerate(result["memories"], 1):
        text = " ".join(m["content"].split())
        room = max(20, width - 40)
        print(f"{rank:>2}. {m['score']:.4f}  {m['memory_type']:<10} {m['created_at'][:10]}  "
              f"{text[:room]}{'…' if len(text) > room else ''}")
    if not result["memories"]:
        print("(no memories found)", file=sys.stderr)
    return 0


def cmd_doctor(args, settings: Settings) -> int:
    from .db import ensure_pgvector
    from .doctor import stdout_check
    from .embed import describe

    url = bootstrap.resolve_url(settings)
    print(f"database: {redact(url)}{' (embedded)' if not settings.database_url else ''}")
    print(f"pgvector: {asyncio.run(ensure_pgvector(url))}")
    found = asyncio.run(migrate.current(url))
    name, dim = describe(settings)
    create_embedder(settings)
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
    exe = _server_exe()
    server = {"command": exe, "args": [], "env": {"HINDSIGHT_AGENT_ID": settings.agent_id}}
    if args.client == "vscode":
        config: dict[str, Any] = {"servers": {"hindsight": {"type": "stdio", **server}}}
    elif args.client == "claude-code":
        config = {"mcpServers": {"hindsight": {"type": "stdio", **server}}}
    else:  # claude-desktop, cursor
        config = {"mcpServers": {"hindsight": server}}
    print(json.dumps(config, indent=2))
    return 0


def cmd_ui(args, settings: Settings) -> int:
    from .ui.serve import run

    return run(settings, port=args.port, open_browser=not args.no_browser, agent=args.agent)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hindsight", description="Long-term memory for LLM agents.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("migrate", help="bring the database schema to the newest revision")
    s.set_defaults(func=cmd_migrate)

    s = sub.add_parser("store", help="store one memory")
    s.add_argument("content")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    s.add_argument("--type", default="episodic", help="working, episodic, semantic or procedural")
    s.add_argument("--importance", type=int, default=3, help="1-5 (default 3)")
    s.add_argument("--slot", help="the fact this memory is the current value of, e.g. preference:editor "
                                   "(supersedes the slot's previous memory)")
    s.add_argument("--metadata", help="a JSON object")
    s.add_argument("--tag", action="append", help="a tag (repeatable)")
    s.add_argument("--session", help="session id")
    s.add_argument("--json", action="store_true", help="print JSON instead of the id")
    s.set_defaults(func=cmd_store)

    s = sub.add_parser("recall", help="recall memories relevant to a query")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    s.add_argument("--query", help="what to recall")
    s.add_argument("--batch", metavar="QUERIES.jsonl",
                   help='one query a line: {"qid", "query", "k"?, "as_of"?}; prints one JSON line each')
    s.add_argument("--top-k", type=int, default=5)
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.set_defaults(func=cmd_recall)

    s = sub.add_parser("import", help="bulk load memories from JSONL (a restore path: kept as given)")
    s.add_argument("file", metavar="FILE.jsonl", help="a JSONL file, or - for standard input")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    s.add_argument("--batch-size", type=int, default=64, help="memories embedded and written together")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export", help="JSONL of every memory, its state and history (import restores it exactly)")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("maintain", help="run the maintenance job once (decay, archive, consolidation)")
    s.add_argument("--now", help="act as if it were this ISO 8601 time")
    s.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    s.add_argument("--json", action="store_true", help="the report on one line")
    s.set_defaults(func=cmd_maintain)

    s = sub.add_parser("scheduler", help="run the maintenance job on HINDSIGHT_MAINTENANCE_CRON (default 03:00)")
    s.set_defaults(func=cmd_scheduler)

    s = sub.add_parser("restore", help="bring a memory back from the archive")
    s.add_argument("memory_id")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID)")
    s.set_defaults(func=cmd_restore)

    s = sub.add_parser("stats", help="counts by agent, type and state; decay histogram; last runs")
    s.add_argument("--agent", help="only this agent")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stats)

    s = sub.add_parser("reembed", help="re-embed every memory with the configured embedder (resumable)")
    s.add_argument("--batch-size", type=int, default=64)
    s.add_argument("--limit", type=int, help="stop after this many memories (run again to continue)")
    s.set_defaults(func=cmd_reembed)

    s = sub.add_parser("keygen", help="print a new HINDSIGHT_ENCRYPTION_KEY")
    s.set_defaults(func=cmd_keygen)

    s = sub.add_parser("doctor", help="check database, pgvector, migrations and embedder")
    s.set_defaults(func=cmd_doctor)

    s = sub.add_parser("ui", help="a local web page (127.0.0.1, token in the printed URL) to see, search, "
                                  "explain and correct memories")
    s.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: a free one)")
    s.add_argument("--no-browser", action="store_true", help="only print the URL, do not open a browser")
    s.add_argument("--agent", help="agent id (default: HINDSIGHT_AGENT_ID); others as HINDSIGHT_ALLOWED_AGENTS allows")
    s.set_defaults(func=cmd_ui)

    s = sub.add_parser("mcp-config", help="print the JSON an IDE needs to launch the server")
    s.add_argument("--client", default="claude-desktop",
                   choices=["claude-desktop", "cursor", "vscode", "claude-code"])
    s.set_defaults(func=cmd_mcp_config)
    return p


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        code = args.func(args, settings)
    except HindsightError as exc:
        print(f"hindsight {args.command}: error: {exc}", file=sys.stderr)
        code = 2
    except json.JSONDecodeError as exc:
        print(f"hindsight {args.command}: error: --metadata is not valid JSON: {exc}", file=sys.stderr)
        code = 2
    except OSError as exc:
        print(f"hindsight {args.command}: error: {exc.strerror or exc}: {exc.filename or ''}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    raise SystemExit(code)


if __name__ == "__main__":
    main()
