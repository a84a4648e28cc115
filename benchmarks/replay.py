"""The should_store filter on the replay log: how many events, how many stored, whether
every must-keep event was kept in its layer, and what was kept that did not have to be.

    python benchmarks/replay.py [--log tests/data/interactions_replay.jsonl]

Pure policy, no database: the same decisions record_interaction makes (the stdio test
tests/e2e/test_interactions_e2e.py replays the log through the real server).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from hindsight.rules.policy import should_store
from hindsight.store import interactions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", default=str(Path(__file__).parent.parent / "tests" / "data" / "interactions_replay.jsonl"))
    args = ap.parse_args()
    rows = [json.loads(x) for x in Path(args.log).read_text(encoding="utf-8").splitlines() if x.strip()]
    started = time.perf_counter()
    decisions = [should_store(interactions.parse(**r["event"])) for r in rows]
    per_event_us = (time.perf_counter() - started) / len(rows) * 1e6
    must = [(r, d) for r, d in zip(rows, decisions) if r["expect"] == "keep"]
    kept = sum(d.store and d.memory_type == r["layer"] for r, d in must)
    stored = sum(d.store for d in decisions)
    extra = [(r, d) for r, d in zip(rows, decisions) if r["expect"] != "keep" and d.store]
    print(f"events {len(rows)} ({dict(Counter(r['expect'] for r in rows))})")
    print(f"stored {stored} ({stored / len(rows):.1%}; target at most 25%)")
    print(f"must-keep kept in the right layer: {kept}/{len(must)}")
    print(
        f"stored without being must-keep: {len(extra)}; chitchat stored: "
        f"{sum(r['expect'] == 'chitchat' for r, _ in extra)}"
    )
    print(
        "stored by reason: "
        + ", ".join(f"{k} {v}" for k, v in Counter(d.reason for d in decisions if d.store).most_common())
    )
    print(f"decision time: {per_event_us:.0f} µs per event")


if __name__ == "__main__":
    main()
