"""The IDE's lifecycle hooks on labelled replays, through the `hook` tool of a real stdio
server: the door Claude Code's mcp_tool hooks come in by (hindsight hooks install).

    python benchmarks/hooks_replay.py [--bench ../shared/bench/idebench_dev] [--show] [--limit N]

1. Capture. benchmarks/data/hook_day.jsonl (make_hook_day.py): a day of hook events as
   Claude Code sends them, 37 sessions across four repositories, EN and ZH, each labelled
   keep or drop. They are replayed in order into an empty store, each session in its
   repository's folder, with its transcript written as Claude Code writes it (for Stop and
   PreCompact). An event is kept when a memory was created while it was handled (a
   reinforced duplicate is not a new memory). Reports precision and recall of the keeps,
   by event, and the duplicates: current memories with the same content.
2. Injection. The IDE benchmark's 260 memories loaded (as abstention.py loads them), then
   each prompt of benchmarks/data/hook_prompts.jsonl as the first prompt of a new session in
   its repository: for the prompts with a relevant memory, the share whose block holds one of
   its gold memories; for the others, the share whose block is empty. The standing block
   (the session's preferences, shown with every first prompt) is reported apart.
3. Latency: each hook call as the client times it (request written to answer read, over the
   server's pipes), p50 / p95 by event.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import asyncpg

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))
from abstention import load_bench  # noqa: E402
from rawrpc import RawServer, server_env  # noqa: E402

from hindsight.data import pg_embedded as embedded  # noqa: E402
from hindsight.rules.injection import PROMPT_HEAD, STANDING_HEAD  # noqa: E402

AGENT = "dev"
FIELDS = ("session_id", "cwd", "prompt", "tool_name", "tool_input", "tool_response", "error", "source")


def _server(url: str, log: Path, agent: str = AGENT) -> RawServer:
    env = server_env(HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID=agent, HINDSIGHT_LOG_LEVEL="INFO")
    return RawServer([str(Path(sys.executable).parent / "hindsight-server")], env, stderr=log.open("w"))


async def _hook(server: RawServer, arguments: dict, took: dict[str, list[float]]) -> str:
    started = time.perf_counter()
    answer = await server.call("hook", arguments, timeout=60)
    took[arguments["event"]].append((time.perf_counter() - started) * 1000)
    return answer["result"]["content"][0]["text"]


def _as_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class Transcripts:
    """Each session's transcript, as Claude Code writes it, from the events replayed so far."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.entries: dict[str, list[dict]] = defaultdict(list)

    def add(self, event: dict) -> None:
        entries = self.entries[event["session_id"]]
        if event["event"] == "UserPromptSubmit":
            entries.append({"type": "user", "message": {"role": "user", "content": event["prompt"]}})
        elif event["event"] in ("PostToolUse", "PostToolUseFailure"):
            n = f"toolu_{len(entries):04d}"
            failed = event["event"] == "PostToolUseFailure"
            result = event.get("error") if failed else _as_text(event.get("tool_response", {}).get("stdout", ""))
            entries += [
                {"type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": n, "name": event["tool_name"], "input": event["tool_input"]}]}},
                {"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": n, "content": result or "", "is_error": failed}]}},
            ]  # fmt: skip
        elif event["event"] == "Stop" and entries and entries[-1]["type"] != "assistant":
            # the turn's answer: Claude Code writes it before it is done (the server waits for it)
            entries.append({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "Done."}]}})  # fmt: skip

    def write(self, session: str) -> str:
        path = self.folder / f"{session}.jsonl"
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.entries[session]))
        return str(path)


async def capture(root: Path, day: list[dict], took: dict) -> dict:
    url = embedded.start(root / "capture")
    for project in {e["cwd"].rsplit("/", 1)[-1] for e in day}:
        (root / "src" / project).mkdir(parents=True, exist_ok=True)
    transcripts = Transcripts(root)
    server = _server(url, root / "capture.log")
    await server.start()
    await server.call("list_memories", {"limit": 1}, timeout=180)  # the database is migrated and ready
    conn = await asyncpg.connect(url)
    created = "SELECT count(*) FROM memory_history WHERE agent_id = $1 AND action = 'create'"
    results = []
    try:
        for event in day:
            transcripts.add(event)
            arguments = {"event": event["event"]}
            for field in FIELDS:
                if event.get(field) is not None:
                    arguments[field] = _as_text(event[field])
            arguments["cwd"] = str(root / "src" / event["cwd"].rsplit("/", 1)[-1])
            if event["event"] in ("Stop", "PreCompact"):
                arguments["transcript_path"] = transcripts.write(event["session_id"])
            before = await conn.fetchval(created, AGENT)
            await _hook(server, arguments, took)
            results.append((event, await conn.fetchval(created, AGENT) > before))
        twins = await conn.fetch(
            "SELECT content, count(*) AS n FROM memories WHERE agent_id = $1 AND invalidated_at IS NULL "
            "GROUP BY content HAVING count(*) > 1",
            AGENT,
        )
        kept = await conn.fetch(
            "SELECT content, metadata->>'hook' AS hook, metadata->>'reason' AS reason FROM memories "
            "WHERE agent_id = $1 AND invalidated_at IS NULL ORDER BY created_at",
            AGENT,
        )
    finally:
        await conn.close()
        await server.close()
    return {"results": results, "twins": [dict(t) for t in twins], "kept": [dict(k) for k in kept]}


async def inject(root: Path, bench: Path, prompts: list[dict], took: dict) -> list[tuple[dict, list[str], list[str]]]:
    ide, memories, _ = load_bench(bench)
    home = root / "inject"
    env = {**os.environ, "HINDSIGHT_HOME": str(home)}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    lines, _ = ide.import_lines(memories, "live-like", set(), None, project_field=True)
    # The benchmark's quarter ends at its DEFAULT_NOW; a hook asks now: every time moves by the gap.
    gap = datetime.now(timezone.utc) - datetime.fromisoformat(ide.DEFAULT_NOW)
    path = root / "import.jsonl"
    path.write_text("\n".join(json.dumps(_shifted(json.loads(line), gap)) for line in lines) + "\n", encoding="utf-8")
    exe = Path(sys.executable).parent / "hindsight"
    subprocess.run([str(exe), "import", str(path), "--agent", ide.AGENT], check=True, env=env, capture_output=True)
    url = embedded.start(home)
    conn = await asyncpg.connect(url)
    by_text = {
        " ".join(r["content"].split())[:60]: r["ext"]
        for r in await conn.fetch("SELECT content, metadata->>'external_id' AS ext FROM memories")
    }
    await conn.close()
    for project in {p["project"] for p in prompts}:
        (root / "src" / project).mkdir(parents=True, exist_ok=True)
    server = _server(url, root / "inject.log", ide.AGENT)
    await server.start()
    await server.call("list_memories", {"limit": 1}, timeout=180)  # ready: no prompt waits for the opening
    out = []
    try:
        for n, p in enumerate(prompts):
            folder = str(root / "src" / p["project"])
            call = {"event": "UserPromptSubmit", "session_id": f"prompt-{n}", "cwd": folder, "prompt": p["prompt"]}
            text = await _hook(server, call, took)
            context = json.loads(text).get("hookSpecificOutput", {}).get("additionalContext", "")
            out.append((p, _ids(context, PROMPT_HEAD, by_text), _ids(context, STANDING_HEAD, by_text)))
    finally:
        await server.close()
    return out


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


def _shifted(value, gap: timedelta):
    """`value` with every ISO 8601 time in it moved by `gap`."""
    if isinstance(value, str) and _ISO.match(value):
        return (datetime.fromisoformat(value) + gap).isoformat()
    if isinstance(value, dict):
        return {k: _shifted(v, gap) for k, v in value.items()}
    if isinstance(value, list):
        return [_shifted(v, gap) for v in value]
    return value


def _ids(context: str, head: str, by_text: dict[str, str]) -> list[str]:
    """The benchmark ids of the memories a block (the part under `head`) shows."""
    if head not in context:
        return []
    part = context.split(head, 1)[1].split("\n\n", 1)[0]
    found = []
    for line in part.strip().splitlines():
        body = re.sub(r"^- \[[^\]]*\] ", "", line).rstrip("…")
        found += [ext for text, ext in by_text.items() if text.startswith(body[:60]) or body.startswith(text[:50])][:1]
    return found


def report_capture(found: dict, show: bool) -> None:
    rows = found["results"]
    print(f"\ncapture: {len(rows)} hook events, {sum(e['label'] == 'keep' for e, _ in rows)} labelled keep")
    print(f"{'event':<20} {'n':>4} {'keep':>5} {'kept':>5} {'right':>6} {'precision':>9} {'recall':>7}")
    for name in ("UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "PreCompact", "ALL"):
        part = [(e, k) for e, k in rows if name == "ALL" or e["event"] == name]
        if not part:
            continue
        keep = sum(e["label"] == "keep" for e, _ in part)
        kept = sum(k for _, k in part)
        right = sum(k and e["label"] == "keep" for e, k in part)
        precision = right / kept if kept else 1.0
        recall = right / keep if keep else 1.0
        print(f"{name:<20} {len(part):>4} {keep:>5} {kept:>5} {right:>6} {precision:>9.2f} {recall:>7.2f}")
    print(f"duplicates (current memories with the same content): {len(found['twins'])}")
    wrong = [(e, k) for e, k in rows if k != (e["label"] == "keep")]
    if show or wrong:
        print("\nevents the hooks judged otherwise than their label:")
        for e, k in wrong:
            what = e.get("prompt") or (e.get("tool_input") or {}).get("command") or e.get("tool_name") or ""
            judged = "kept" if k else "dropped"
            print(f"  #{e['n']} {e['event']} labelled {e['label']}, {judged}: {what[:90]!r} ({e['why']})")
    if show:
        print("\nwhat the hooks kept:")
        for k in found["kept"]:
            print(f"  [{k['hook']}, {k['reason']}] {k['content'][:150]}")


def report_inject(rows: list, show: bool) -> None:
    print(f"\ninjection: {len(rows)} prompts, each the first of its session")
    print(f"{'set':<6} {'lang':<4} | {'relevant: gold in block':>24} {'(or standing)':>14} | {'none: block empty':>18}")
    for part in ("fit", "check", "all"):
        for lang in ("en", "zh", "all"):
            chosen = [r for r in rows if part in ("all", r[0]["set"]) and lang in ("all", r[0]["lang"])]
            some = [bool(set(r[0]["gold"]) & set(r[1])) for r in chosen if r[0]["kind"] == "relevant"]
            either = [bool(set(r[0]["gold"]) & set(r[1] + r[2])) for r in chosen if r[0]["kind"] == "relevant"]
            none = [not r[1] for r in chosen if r[0]["kind"] == "none"]
            shown = (
                f"{sum(some) / max(1, len(some)):>17.2f} (n={len(some):>2}) {sum(either) / max(1, len(either)):>14.2f}"
            )
            print(f"{part:<6} {lang:<4} | {shown} | {sum(none) / max(1, len(none)):>11.2f} (n={len(none):>2})")
    standing = [len(r[2]) for r in rows]
    print(f"standing block: {statistics.mean(standing):.1f} memories on average with a session's first prompt")
    if show:
        for p, ids, _ in rows:
            ok = bool(set(p["gold"]) & set(ids)) if p["kind"] == "relevant" else not ids
            print(f"  {'ok ' if ok else 'BAD'} {p['kind']:<8} {p['prompt'][:70]!r:<74} shown {ids} gold {p['gold']}")


def report_latency(took: dict[str, list[float]]) -> None:
    print("\nlatency of a hook call at the client (ms)")
    for name, values in sorted(took.items()):
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"  {name:<20} n={len(values):>4}  p50 {statistics.median(values):>6.1f}  p95 {p95:>6.1f}")


async def run(args) -> None:
    day = [json.loads(line) for line in open(HERE / "data" / "hook_day.jsonl", encoding="utf-8")]
    prompts = [json.loads(line) for line in open(HERE / "data" / "hook_prompts.jsonl", encoding="utf-8")]
    if args.limit:
        day, prompts = day[: args.limit], prompts[: args.limit // 2] + prompts[-args.limit // 2 :]
    took: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="hs-hooks-") as scratch:
        root = Path(scratch)
        try:
            found = await capture(root, day, took)
            report_capture(found, args.show)
        finally:
            embedded.release()
        try:
            rows = await inject(root, Path(args.bench), prompts, took)
            report_inject(rows, args.show)
        finally:
            embedded.release()
    report_latency(took)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(HERE.parent.parent / "shared" / "bench" / "idebench_dev"))
    ap.add_argument("--show", action="store_true", help="every prompt's block and every memory kept")
    ap.add_argument("--limit", type=int, help="only the first N events and N prompts (a smoke run)")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
