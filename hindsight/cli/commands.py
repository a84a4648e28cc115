"""The commands that work on the database: `async def cmd_*(args, services)`, each handed
the services `run` opened once. Data goes to stdout; progress and notes to stderr.
"""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from typing import Any

from ..errors import InvalidInput, NotFound
from ..services import Services, list_request, recall_request, store_request
from . import render


def _out(lines: list[str]) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))


def _json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, default=str))


async def cmd_migrate(args, s: Services) -> int:
    revision, where = s.database()
    print(f"database at revision {revision} ({where})", file=sys.stderr)
    return 0


async def cmd_store(args, s: Services) -> int:
    stored = store_request(
        s.agent(args.agent),
        args.content,
        memory_type=args.type,
        importance=args.importance,
        metadata=args.metadata,
        tags=args.tag or None,
        session_id=args.session,
        slot=args.slot,
        project=args.project,
        open_project=s.settings.project,
        call="cli store",
    )
    result = (await s.memories.keep(stored)).json()
    result.pop("memory")
    print(json.dumps(result, ensure_ascii=False) if args.json else result["id"])
    if not args.json:
        _store_notes(result)
    return 0


def _store_notes(result: dict[str, Any]) -> None:
    """On stderr, what the write did besides creating: a duplicate, what it superseded, the
    older memories it may make outdated, flags, redactions."""
    if result["status"] != "created":
        of = f" (of {result['duplicate_of']})" if "duplicate_of" in result else ""
        print(f"{result['status']}{of}", file=sys.stderr)
    for c in result.get("possible_conflicts", ()):
        how = "likely outdated by this one" if c["likely_outdated"] else "similar"
        text = " ".join(c["content"].split())
        print(f"{how}: {c['id'][:8]} ({c['similarity']:.2f}) {text[:60]}", file=sys.stderr)
    if result.get("possible_conflicts"):
        print(f"if this replaces one: hindsight invalidate <id> --reason ... --replaced-by {result['id']}",
              file=sys.stderr)  # fmt: skip
    if result.get("flags"):
        print(f"flags: {', '.join(result['flags'])}", file=sys.stderr)
    if result.get("redacted"):
        print(f"redacted: {', '.join(map(str, result['redacted']))}", file=sys.stderr)


NOTHING_RELEVANT = (
    "(nothing relevant remembered for this question: the memories shown are only the nearest, none of them relevant)"
)


async def cmd_recall(args, s: Services) -> int:
    if args.question is not None and args.query is not None:
        raise InvalidInput("query", "give it once: as the argument or as --query")
    query = args.query if args.question is None else args.question
    if (query is None) == (args.batch is None):
        raise InvalidInput("recall", "give exactly one of --query or --batch (or the query as the argument)")
    agent = s.agent(args.agent)
    if args.batch:
        for item in _batch_queries(args.batch, args.top_k):
            found = await s.recall.ask(recall_request(agent, item["query"], top_k=item["k"], as_of=item["as_of"]))
            keys = ("id", "content", "score", "created_at", "metadata")
            results = [{key: m[key] for key in keys} for m in found.json()["memories"]]
            print(json.dumps({"qid": item["qid"], "results": results}, ensure_ascii=False), flush=True)
        return 0
    opened = (s.settings.project,) if s.settings.project else ()
    asked = recall_request(agent, query, top_k=args.top_k, project=args.project, open_projects=opened)
    result = (await s.recall.ask(asked)).json()
    if args.json:
        _json(result)
    else:
        _out(render.recall_table(result["memories"], render.width()))
    if not result["memories"]:
        print("(no memories found)", file=sys.stderr)
    elif result.get("nothing_relevant"):  # the nearest memories, each marked not relevant, as JSON has them
        print(NOTHING_RELEVANT, file=sys.stderr)
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
    asked = list_request(
        s.agent(args.agent),
        memory_type=args.type,
        session_id=args.session,
        tags=args.tag or None,
        metadata=args.metadata,
        include_shared=args.shared,
        include_invalidated=args.all,
        limit=args.limit,
        offset=args.offset,
        project=args.project,
    )
    listed = (await s.memories.list(asked)).json()
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
    found = await s.views.ids_starting(agent, prefix)
    if not found:
        raise NotFound("memory_id", f"starting with {given!r}", agent)
    if len(found) > 1:
        raise InvalidInput(
            "memory_id",
            f"{given!r} is the start of several memories ({', '.join(str(f) for f in found)}); give more characters",
        )
    return found[0]


async def cmd_show(args, s: Services) -> int:
    agent = s.agent(args.agent)
    shown = await s.views.shown(agent, await _resolve(s, agent, args.memory_id), reveal=args.reveal)
    if args.json:
        _json(shown)
    else:
        _out(render.memory_block(shown["memory"], shown["history"], render.width()))
    return 0


def _now(value: str | None):
    from datetime import datetime, timezone

    from ..services import vocabulary as v

    return v.timestamp("--now", value) if value else datetime.now(timezone.utc)


async def cmd_maintain(args, s: Services) -> int:
    report = await s.maintain(_now(args.now), dry_run=args.dry_run, trigger="cli")
    if args.json:
        _json(report)
    else:
        _out(render.maintenance_lines(report))
    if report["status"] == "skipped":
        print("hindsight maintain: another maintenance run is in progress; nothing done", file=sys.stderr)
    return 0


async def cmd_scheduler(args, s: Services) -> int:
    await s.schedule()
    return 0


async def cmd_stats(args, s: Services) -> int:
    from .stats import render as show

    data = await s.views.stats(args.agent, _now(None))
    if args.json:
        _json(data)
    else:
        show(data, render.width())
    return 0


async def cmd_reembed(args, s: Services) -> int:
    name, _ = s.embedder_name()
    bar, task = _progress(0, f"re-embedding with {name}")
    with bar:

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = await s.reembed(batch_size=args.batch_size, limit=args.limit, progress=progress)
    _json(result)
    if result["status"] == "paused":
        print(
            f"hindsight reembed: paused after {result['embedded']} memories, {result['remaining']} to go; "
            "run it again to continue",
            file=sys.stderr,
        )
    return 0


async def cmd_export(args, s: Services) -> int:
    agent = s.agent(args.agent)
    lines = await s.export(agent)
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
    """Every line checked before the database is even opened: the bad ones named (and, with
    --skip-bad-lines, left out)."""
    from ..services import bad_lines, read_import

    if args.file == "-":
        records, bad = read_import(sys.stdin, args.skip_bad_lines)
    else:
        with open(args.file, encoding="utf-8") as fh:
            records, bad = read_import(fh, args.skip_bad_lines)
    if bad:
        print(f"hindsight import: skipping {len(bad)} bad line(s):\n{bad_lines(bad)}", file=sys.stderr)
    return records


async def cmd_import(args, s: Services) -> int:
    records, agent = args.loaded, s.agent(args.agent)
    started = time.perf_counter()
    bar, task = _progress(len(records), "importing")
    with bar:
        counts = await s.import_(
            agent,
            records,
            batch_size=args.batch_size,
            progress=lambda n: bar.advance(task, n),
            on_conflict=args.on_conflict,
        )
    print(import_summary(counts, agent, time.perf_counter() - started), file=sys.stderr)
    return 0


def import_summary(counts: dict[str, int], agent: str, elapsed: float) -> str:
    """What an import did: a rate only when something was imported; lines skipped (already
    present) and replaced only when there were any."""
    done, trails, skipped, replaced = counts["imported"], counts["trails"], counts["skipped"], counts["replaced"]
    said = f"imported {done} {'memory' if done == 1 else 'memories'}"
    said += f" and the history of {trails} deleted {'memory' if trails == 1 else 'memories'}" if trails else ""
    said += f" for agent {agent!r}"
    said += f" in {elapsed:.1f} s ({done / max(elapsed, 1e-9):.1f} memories/s)" if done else ""
    said += f"; {skipped} {'line' if skipped == 1 else 'lines'} skipped (already present)" if skipped else ""
    return said + (f"; {replaced} replaced" if replaced else "")


async def cmd_token(args, s: Services) -> int:
    if args.action == "create":
        allow = [a.strip() for a in (args.allow or "").split(",") if a.strip()]
        made = await s.create_token(
            s.agent(args.agent), allow=allow, name=args.name, expires=args.expires, now=_now(None)
        )
        if args.json:
            _json(made)
        else:
            print(made["token"])
            print(
                f"token {made['id'][:8]} for agent {made['agent_id']!r}"
                + (f", may also act for {', '.join(made['allowed_agents'])}" if made["allowed_agents"] else "")
                + f"; expires {made['expires_at'] or 'never'}. Shown once: only its hash is kept.",
                file=sys.stderr,
            )
        return 0
    if args.action == "revoke":
        if not args.which:
            raise InvalidInput("token", "revoke needs the token's name or the first 8 or more characters of its id")
        done = await s.revoke_token(args.which)
        if args.json:
            _json(done)
        else:
            print("\n".join(f"revoked {r['id'][:8]} ({r['name'] or 'no name'})" for r in done["revoked"]))
        return 0
    listed = await s.list_tokens()
    if args.json:
        _json({"tokens": listed})
    elif listed:
        _out(render.token_table(listed))
    else:
        print("(no tokens)", file=sys.stderr)
    return 0
