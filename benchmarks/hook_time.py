"""What the prompt hook shows for prompts that name a time ("last week", 上周, "yesterday"):
benchmarks/data/hook_time_prompts.jsonl (make_hook_prompts.py), over the IDE benchmark's
memories, at the benchmark's own date.

    python benchmarks/hook_time.py [--bench ../shared/bench/idebench_dev] [--show]

hooks_replay.py asks its prompts through a real server, which asks at the clock's now, so it
moves the memories by the gap to now, and "last week" then depends on the weekday it runs;
here recall is asked in process as of the benchmark's date, with the open repository, and the
hook's own rule (rules.injection.worth_showing) picks what its block would show. For a prompt
with memories of that time (`relevant`), the share whose block shows one of its gold
memories; for the others (`none`), the share whose block is empty.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from abstention import bench_database, load_bench  # noqa: E402


async def ask(url, settings, ide, prompts) -> list[tuple[dict, list[str]]]:
    from hindsight import services
    from hindsight.rules import injection

    out = []
    async with services.opened(settings, url) as s:
        await s.recall.warm()
        for p in prompts:
            found = await s.recall.retrieve(
                ide.AGENT,
                p["prompt"],
                top_k=5,
                as_of=datetime.fromisoformat(ide.DEFAULT_NOW),
                open_projects=(p["project"],),
            )
            shown = [h for h in found["memories"] if injection.worth_showing(found, h, set(), None)]
            out.append((p, [(h["metadata"] or {}).get("external_id") for h in shown]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=str(HERE.parent.parent / "shared" / "bench" / "idebench_dev"))
    ap.add_argument("--show", action="store_true", help="each prompt's block")
    args = ap.parse_args()
    ide, memories, _ = load_bench(Path(args.bench))
    prompts = [json.loads(x) for x in open(HERE / "data" / "hook_time_prompts.jsonl", encoding="utf-8")]

    with bench_database(ide, memories, "hs-hook-time-") as (settings, url):
        rows = asyncio.run(ask(url, settings, ide, prompts))
    print(f"prompts that name a time: {len(rows)}")
    print(f"{'lang':<4} | {'relevant: gold in block':>24} | {'none: block empty':>18} | {'shown per prompt':>16}")
    for lang in ("en", "zh", "all"):
        chosen = [r for r in rows if lang in ("all", r[0]["lang"])]
        some = [bool(set(p["gold"]) & set(ids)) for p, ids in chosen if p["kind"] == "relevant"]
        none = [not ids for p, ids in chosen if p["kind"] == "none"]
        per = sum(len(ids) for _, ids in chosen) / max(1, len(chosen))
        print(
            f"{lang:<4} | {sum(some) / max(1, len(some)):>17.2f} (n={len(some):>2}) | "
            f"{sum(none) / max(1, len(none)):>11.2f} (n={len(none):>2}) | {per:>16.1f}"
        )
    if args.show:
        for p, ids in rows:
            ok = bool(set(p["gold"]) & set(ids)) if p["kind"] == "relevant" else not ids
            print(f"  {'ok ' if ok else 'BAD'} {p['kind']:<8} {p['prompt'][:60]!r:<64} shown {ids} gold {p['gold']}")


if __name__ == "__main__":
    main()
